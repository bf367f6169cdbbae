import { type QueryClient, queryOptions } from '@tanstack/react-query';
import type { AroundNavHandler } from 'wouter';
import { get, query } from './api';
import { isSignedIn } from './auth';
import { predatesNewestSnapshot } from './live-events';
import type { Fleet, ServiceList } from './types';

/**
 * The answer each page's table waits for. The shell asks for it as soon as the URL names the page, so
 * it travels while the page's chunk loads, and nothing secondary (charts, zones, trends) is asked first.
 */

const FLEET_RECHECK_MS = 2000;

export const fleetQuery = queryOptions({
  queryKey: ['fleet'],
  queryFn: () => get<Fleet>('/v1/fleet'),
  // The API caches the fleet summary a few seconds: an answer older than the newest snapshot is asked again.
  refetchInterval: (query) =>
    query.state.data && predatesNewestSnapshot(query.state.data.generatedAt) ? FLEET_RECHECK_MS : false,
});

/** The Services table's query-string parameters, as the cluster page's URL holds them. */
export const SERVICE_FILTERS = ['namespace', 'routing', 'hintState', 'reason', 'opportunity', 'sort', 'order'] as const;

export function servicesPath(clusterId: string, param: (name: string) => string): string {
  const filters = Object.fromEntries(SERVICE_FILTERS.map((name) => [name, param(name)]));
  return `/v1/clusters/${clusterId}/services${query({ ...filters, limit: param('limit') || 50, cursor: param('cursor') })}`;
}

export const servicesQuery = (path: string) =>
  queryOptions({ queryKey: ['services', path], queryFn: () => get<ServiceList>(path) });

const CLUSTER_PAGE = /^\/clusters\/([^/]+)$/;

export function prefetchCritical(queryClient: QueryClient, location: string, search: string): void {
  if (location === '/') {
    void queryClient.prefetchQuery(fleetQuery);
    return;
  }
  const cluster = CLUSTER_PAGE.exec(location);
  if (cluster) {
    const params = new URLSearchParams(search);
    const path = servicesPath(decodeURIComponent(cluster[1]), (name) => params.get(name) ?? '');
    void queryClient.prefetchQuery(servicesQuery(path));
  }
}

/**
 * Wraps every in-app navigation (links, filters, redirects): the critical answer is asked for before
 * the URL changes, so it travels while React draws the new page and tears the old one down. Back and
 * forward, which do not pass here, are covered by the shell's prefetch on each location.
 */
export function prefetchOnNavigation(queryClient: QueryClient): AroundNavHandler {
  return (navigate, to, options) => {
    const [path, search = ''] = String(to).split('?');
    if (isSignedIn()) prefetchCritical(queryClient, path, search);
    navigate(to, options);
  };
}
