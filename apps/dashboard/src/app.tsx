import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useSyncExternalStore } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { get } from './api';
import { followLiveEvents } from './live-events';
import { isAdmin, isSignedIn, onAuthChange, signOut } from './auth';
import { Loading } from './components/states';
import { useIdentity } from './identity';
import { SignIn } from './pages/sign-in';

// Every page is a chunk of its own: the first page loads only what it draws.
const Fleet = lazy(() => import('./pages/fleet'));
const Cluster = lazy(() => import('./pages/cluster'));
const Service = lazy(() => import('./pages/service'));
const Savings = lazy(() => import('./pages/savings'));
const Reports = lazy(() => import('./pages/reports'));
const Admin = lazy(() => import('./pages/admin'));

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
  useEffect(() => followLiveEvents(queryClient), [queryClient]);
  // The fleet answer is asked for while the page's chunk is still loading, not after it.
  useEffect(() => {
    if (location === '/') void queryClient.prefetchQuery({ queryKey: ['fleet'], queryFn: () => get('/v1/fleet') });
  }, [location, queryClient]);
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
            <Route path="/" component={Fleet} />
            <Route path="/sign-in">
              <Redirect to="/" replace />
            </Route>
            <Route path="/clusters/:id" component={Cluster} />
            <Route path="/clusters/:id/services/:namespace/:name" component={Service} />
            <Route path="/savings" component={Savings} />
            <Route path="/reports" component={Reports} />
            <Route path="/admin" component={Admin} />
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
