import { preloadablePage } from './preloadable-page';

/**
 * The signed-in pages: where each lives, its chunk, and its entry in the header's navigation. Adding a
 * page is one entry here (the shell draws the routes and the navigation from this list, and preloads
 * every chunk once the first page is idle).
 */
export interface PageEntry {
  /** wouter's pattern. */
  path: string;
  page: ReturnType<typeof preloadablePage>;
  /** In the header's navigation (omitted: reached by links only). */
  nav?: { label: string; href: string; adminOnly?: boolean };
}

// Every page is a chunk of its own: the first page loads only what it draws.
export const PAGES: PageEntry[] = [
  { path: '/', page: preloadablePage(() => import('./pages/fleet')), nav: { label: 'Fleet', href: '/' } },
  { path: '/clusters/:id', page: preloadablePage(() => import('./pages/cluster')) },
  { path: '/clusters/:id/services/:namespace/:name', page: preloadablePage(() => import('./pages/service')) },
  {
    path: '/savings',
    page: preloadablePage(() => import('./pages/savings')),
    nav: { label: 'Savings', href: '/savings' },
  },
  {
    path: '/reports',
    page: preloadablePage(() => import('./pages/reports')),
    nav: { label: 'Reports', href: '/reports' },
  },
  {
    path: '/traffic-sources',
    page: preloadablePage(() => import('./pages/traffic-sources')),
    nav: { label: 'Traffic sources', href: '/traffic-sources' },
  },
  {
    path: '/prices',
    page: preloadablePage(() => import('./pages/prices')),
    nav: { label: 'Prices', href: '/prices' },
  },
  {
    path: '/audit-log',
    page: preloadablePage(() => import('./pages/audit-log')),
    nav: { label: 'Audit log', href: '/audit-log', adminOnly: true },
  },
  {
    path: '/alerts',
    page: preloadablePage(() => import('./pages/alerts')),
    nav: { label: 'Alerts', href: '/alerts' },
  },
  {
    path: '/admin',
    page: preloadablePage(() => import('./pages/admin')),
    nav: { label: 'Admin', href: '/admin', adminOnly: true },
  },
];
