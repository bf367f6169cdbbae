import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useLayoutEffect, useSyncExternalStore } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import { prefetchCritical } from './critical-queries';
import { followLiveEvents } from './live-events';
import { whenIdle } from './idle';
import { isAdmin, isSignedIn, onAuthChange, signOut } from './auth';
import { ConnectionBanner } from './components/freshness';
import { Loading } from './components/states';
import { useIdentity } from './identity';
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

export function App() {
  const signedIn = useSignedIn();
  const queryClient = useQueryClient();
  const [location] = useLocation();
  useEffect(() => {
    if (!signedIn) queryClient.clear();
  }, [signedIn, queryClient]);
  if (!signedIn) {
    return location === '/sign-in' ? <SignIn /> : <Redirect to={`/sign-in`} replace />;
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
        <span className="who">
          {identity.data
            ? `${identity.data.organization.name} · ${identity.data.apiKey ? 'key ' : ''}“${identity.data.name}” (${identity.data.role})`
            : ''}
        </span>
        <button type="button" onClick={() => signOut(null)}>
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
