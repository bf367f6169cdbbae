import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useLayoutEffect, useSyncExternalStore } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import { prefetchCritical } from './critical-queries';
import { preloadablePage } from './preloadable-page';
import { followLiveEvents } from './live-events';
import { whenIdle } from './idle';
import { isAdmin, isSignedIn, onAuthChange, signOut } from './auth';
import { Loading } from './components/states';
import { useIdentity } from './identity';
import { SignIn } from './pages/sign-in';

// Every page is a chunk of its own: the first page loads only what it draws.
const PAGES = {
  fleet: preloadablePage(() => import('./pages/fleet')),
  cluster: preloadablePage(() => import('./pages/cluster')),
  service: preloadablePage(() => import('./pages/service')),
  savings: preloadablePage(() => import('./pages/savings')),
  reports: preloadablePage(() => import('./pages/reports')),
  admin: preloadablePage(() => import('./pages/admin')),
};

/**
 * Once the first page has drawn and the browser is idle, the other pages' chunks load (they are small;
 * the chart library stays on demand), so moving to another page waits only for its data.
 */
function preloadPagesWhenIdle(): () => void {
  return whenIdle(() => Object.values(PAGES).forEach((page) => void page.preload().catch(() => undefined)), 5000);
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
  const links: [string, string][] = [
    ['/', 'Fleet'],
    ['/savings', 'Savings'],
    ['/reports', 'Reports'],
    ...(admin ? ([['/admin', 'Admin']] as [string, string][]) : []),
  ];
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">zonewise</span>
        <nav aria-label="pages">
          {links.map(([href, label]) => (
            <Link key={href} href={href} className={(active) => (active ? 'active' : '')}>
              {label}
            </Link>
          ))}
        </nav>
        <span className="who">
          {identity.data
            ? `${identity.data.organization.name} · key “${identity.data.apiKey.name}” (${identity.data.apiKey.scopes.join(', ')})`
            : ''}
        </span>
        <button type="button" onClick={() => signOut(null)}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading what="the page" />}>
          <Switch>
            <Route path="/" component={PAGES.fleet.Page} />
            <Route path="/sign-in">
              <Redirect to="/" replace />
            </Route>
            <Route path="/clusters/:id" component={PAGES.cluster.Page} />
            <Route path="/clusters/:id/services/:namespace/:name" component={PAGES.service.Page} />
            <Route path="/savings" component={PAGES.savings.Page} />
            <Route path="/reports" component={PAGES.reports.Page} />
            <Route path="/admin" component={PAGES.admin.Page} />
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
