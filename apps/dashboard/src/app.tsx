import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useLayoutEffect, useSyncExternalStore } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import { prefetchCritical } from './critical-queries';
import { followLiveEvents } from './live-events';
import { whenIdle } from './idle';
import { checkSession, endSession, isAdmin, isAuthKnown, isSignedIn, onAuthChange } from './auth';
import { ConnectionBanner } from './components/freshness';
import { Loading } from './components/states';
import { useIdentity } from './identity';
import type { Identity } from './auth';
import { when } from './format';
import { PAGES } from './routes';
import { SignIn } from './pages/sign-in';

/**
 * Once the first page has drawn and the browser is idle, the other pages' chunks load (they are small;
 * the chart library stays on demand), so moving to another page waits only for its data.
 */
function preloadPagesWhenIdle(): () => void {
  return whenIdle(() => PAGES.forEach((entry) => void entry.page.preload().catch(() => undefined)), 5000);
}

function useSignedIn(): boolean {
  return useSyncExternalStore(onAuthChange, isSignedIn);
}

function useAuthKnown(): boolean {
  return useSyncExternalStore(onAuthChange, isAuthKnown);
}

export function App() {
  const signedIn = useSignedIn();
  const known = useAuthKnown();
  const queryClient = useQueryClient();
  const [location] = useLocation();
  const search = useSearch();
  useEffect(() => {
    if (!known) void checkSession();
  }, [known]);
  useEffect(() => {
    if (!signedIn) queryClient.clear();
  }, [signedIn, queryClient]);
  if (!known) return <Loading what="your session" />;
  if (!signedIn) {
    if (location === '/sign-in' || location.startsWith('/sign-in/')) {
      return (
        <Switch>
          <Route path="/sign-in/:slug" component={SignIn} />
          <Route component={SignIn} />
        </Switch>
      );
    }
    // Back to this page once signed in (a link from an alert into the dashboard, say).
    const here = `${location}${search ? `?${search}` : ''}`;
    return <Redirect to={location === '/' ? '/sign-in' : `/sign-in?returnTo=${encodeURIComponent(here)}`} replace />;
  }
  return <Shell />;
}

function Shell() {
  const identity = useIdentity();
  const queryClient = useQueryClient();
  const [location] = useLocation();
  const search = useSearch();
  useEffect(() => followLiveEvents(queryClient), [queryClient]);
  useEffect(preloadPagesWhenIdle, []);
  // A page's critical answer is asked for while its chunk is still loading, not after it. In-app links
  // ask before the URL changes (prefetchOnNavigation); this covers the first page, back and forward.
  useLayoutEffect(() => prefetchCritical(queryClient, location, search), [location, search, queryClient]);
  const admin = isAdmin(identity.data);
  const links = PAGES.flatMap((entry) => (entry.nav && (admin || !entry.nav.adminOnly) ? [entry.nav] : []));
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">zonewise</span>
        <nav aria-label="pages">
          {links.map(({ href, label }) => (
            <Link key={href} href={href} className={(active) => (active ? 'active' : '')}>
              {label}
            </Link>
          ))}
        </nav>
        <span className="who" data-testid="who">
          {identity.data ? <Who identity={identity.data} /> : ''}
        </span>
        <button type="button" onClick={() => void endSession()}>
          Sign out
        </button>
      </header>
      <ConnectionBanner />
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading what="the page" />}>
          <Switch>
            {PAGES.map((entry) => (
              <Route key={entry.path} path={entry.path} component={entry.page.Page} />
            ))}
            <Route path="/sign-in">
              <Redirect to="/" replace />
            </Route>
            <Route path="/sign-in/:slug">
              <Redirect to="/" replace />
            </Route>
            <Route>
              <h1>Not found</h1>
              <p>
                No page here. <Link href="/">Back to the fleet</Link>.
              </p>
            </Route>
          </Switch>
        </Suspense>
      </main>
    </>
  );
}

/** Who is signed in, with which role, and until when (a session or key that expires says so). */
function Who({ identity }: { identity: Identity }) {
  const what = identity.via === 'api_key' ? `key “${identity.name}”` : (identity.email ?? identity.name);
  const until = identity.expiresAt
    ? ` · ${identity.via === 'sso' ? 'session' : 'key'} ends ${when(identity.expiresAt)}`
    : '';
  return (
    <>
      {identity.organization.name} · {what} ({identity.role})<span className="muted small">{until}</span>
    </>
  );
}
