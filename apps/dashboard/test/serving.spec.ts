import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardDirectory } from '../../api/src/http/dashboard.js';
import {
  apiClient,
  createTenant,
  type QueryStack,
  startQueryStack,
  type Tenant,
} from '../../../test/support/query-api.js';

const DASHBOARD = dashboardDirectory();
const html = { accept: 'text/html,application/xhtml+xml' };

describe.skipIf(!DASHBOARD)(
  DASHBOARD ? 'the API serves the dashboard' : 'the API serves the dashboard: SKIPPED, not built (npm run build)',
  () => {
    let stack: QueryStack;
    let tenant: Tenant;

    beforeAll(async () => {
      stack = await startQueryStack('dash_serve');
      tenant = await createTenant(stack.prisma, 'serve');
    });
    afterAll(() => stack?.stop());

    it('answers / and every client route with index.html, never cached', async () => {
      for (const path of ['/', '/clusters/8a6e0f5e-0000-7000-8000-000000000000', '/savings?groupBy=namespace']) {
        const answer = await fetch(`${stack.url}${path}`, { headers: html });
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toContain('text/html');
        expect(answer.headers.get('cache-control')).toBe('no-cache');
        expect(answer.headers.get('content-security-policy')).toContain("script-src 'self'");
        expect(await answer.text()).toContain('<div id="root">');
      }
    });

    it('serves hashed assets cached for a year, and a missing one is a 404 problem', async () => {
      const script = readdirSync(join(DASHBOARD!, 'assets')).find((name) => name.endsWith('.js'))!;
      const answer = await fetch(`${stack.url}/assets/${script}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(answer.headers.get('content-type')).toContain('javascript');
      const missing = await fetch(`${stack.url}/assets/nothing-here.js`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toContain('application/problem+json');
    });

    it('leaves the API where it was, even for a browser asking for HTML', async () => {
      const fleet = await fetch(`${stack.url}/v1/fleet`, { headers: html });
      expect(fleet.status).toBe(401);
      expect(fleet.headers.get('content-type')).toContain('application/problem+json');
      expect((await fetch(`${stack.url}/healthz`, { headers: html })).headers.get('content-type')).toContain('json');
      // /metrics is on the metrics port (METRICS_PORT): here a 404, never the dashboard's page.
      const metrics = await fetch(`${stack.url}/metrics`, { headers: html });
      expect([metrics.status, metrics.headers.get('content-type')]).toEqual([404, expect.stringContaining('json')]);
      expect((await fetch(`${stack.url}/docs-json`, { headers: html })).headers.get('content-type')).toContain('json');
      expect((await fetch(`${stack.url}/graphql`, { headers: html })).status).toBe(405);
    });

    it('answers no other origin (CORS is off by default)', async () => {
      const preflight = await fetch(`${stack.url}/v1/fleet`, {
        method: 'OPTIONS',
        headers: { origin: 'https://ops.example.com', 'access-control-request-method': 'GET' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      const answer = await fetch(`${stack.url}/v1/fleet`, { headers: { origin: 'https://ops.example.com' } });
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('GET /v1/me tells the key its organization, role and expiry', async () => {
      const admin = await apiClient(stack.url, tenant.adminKey).get('/v1/me');
      expect(admin.status).toBe(200);
      expect(admin.body.organization.slug).toBe('serve');
      expect(admin.body).toMatchObject({ via: 'api_key', role: 'admin', name: 'admin', expiresAt: null });
      expect(admin.body.apiKey).toMatchObject({ name: 'admin', role: 'admin', expiresAt: null });
      const read = await apiClient(stack.url, tenant.readKey).get('/v1/me');
      expect(read.body.role).toBe('viewer');
      expect((await apiClient(stack.url, null).get('/v1/me')).status).toBe(401);
    });
  },
);

describe('CORS_ORIGINS', () => {
  let stack: QueryStack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startQueryStack('dash_cors', {
      CORS_ORIGINS: 'https://ops.example.com, https://grafana.example.com',
    });
    tenant = await createTenant(stack.prisma, 'cors');
  });
  afterAll(() => stack?.stop());

  it('lets the listed origins call the API with a key, and no other', async () => {
    const preflight = await fetch(`${stack.url}/v1/fleet`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://grafana.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://grafana.example.com');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const answer = await fetch(`${stack.url}/v1/fleet`, {
      headers: { origin: 'https://ops.example.com', authorization: `Bearer ${tenant.readKey}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://ops.example.com');
    expect(answer.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    const stranger = await fetch(`${stack.url}/v1/fleet`, {
      headers: { origin: 'https://evil.example.com', authorization: `Bearer ${tenant.readKey}` },
    });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });
});
