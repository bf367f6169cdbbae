import type { NestExpressApplication } from '@nestjs/platform-express';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';

/**
 * Paths the API answers itself; everything else that asks for HTML is a dashboard page. `/metrics` is on
 * the metrics port (METRICS_PORT): here it stays a plain 404, never the dashboard's page.
 */
const API_PREFIXES = ['/v1', '/graphql', '/docs', '/metrics', '/healthz', '/readyz'];

/**
 * The built dashboard (`vite build` writes dist/dashboard): DASHBOARD_DIR, else found from this file,
 * which runs from dist/apps/api (built) or apps/api/src (tests), both below the repository root.
 */
export function dashboardDirectory(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.DASHBOARD_DIR) return existsSync(join(env.DASHBOARD_DIR, 'index.html')) ? resolve(env.DASHBOARD_DIR) : null;
  for (let directory = __dirname; ; directory = dirname(directory)) {
    const candidate = join(directory, 'dist', 'dashboard');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(directory) === directory) return null;
  }
}

// Pages may draw inline styles (bar widths, charts) but run only their own scripts and talk only to this origin.
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function isApiPath(path: string): boolean {
  return API_PREFIXES.some(
    (prefix) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}-`),
  );
}

/**
 * Serves the dashboard at `/`: hashed assets under /assets cached for a year (their names change with
 * their content), and index.html, never cached, for `/` and every client route (a shared link or a reload
 * of /clusters/… opens the page). API paths are untouched.
 */
export function serveDashboard(app: NestExpressApplication, directory: string | null): void {
  if (!directory) return;
  app.useStaticAssets(join(directory, 'assets'), {
    prefix: '/assets/',
    index: false,
    fallthrough: true,
    setHeaders: (response: ServerResponse) => {
      response.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    },
  });
  const index = readFileSync(join(directory, 'index.html'));
  app.use((request: IncomingMessage, response: ServerResponse, next: () => void) => {
    const path = (request.url ?? '/').split('?')[0];
    const isPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      !isApiPath(path) &&
      !/\.[A-Za-z0-9]+$/.test(path) &&
      (request.headers.accept ?? '').includes('text/html');
    if (!isPage) return next();
    response.statusCode = 200;
    response.setHeader('Content-Type', 'text/html; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache');
    response.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    response.end(request.method === 'HEAD' ? undefined : index);
  });
}
