import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  postGraphQL,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';

/**
 * Rules every REST route follows, checked over every route of the OpenAPI document (so routes added later
 * are covered): unknown query parameters are a 400 naming them, a body that is not JSON is a 415, every
 * answer carries the rate-limit headers (a 429 too), and money is in cents.
 */

let stack: QueryStack;
let tenant: Tenant;
let clusterId: string;

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: unknown }>>;
}

/** Every operation of the live document, path parameters filled with ids that exist (or at least parse). */
async function operations(): Promise<{ method: string; path: string; hasBody: boolean }[]> {
  const document = (await (await fetch(`${stack.url}/docs-json`)).json()) as OpenApiDocument;
  const ids: Record<string, string> = { id: clusterId, namespace: 'default', name: 'svc-00000' };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? '00000000-0000-7000-8000-000000000000'),
        hasBody: operation.requestBody !== undefined,
      })),
  );
}

beforeAll(async () => {
  stack = await startQueryStack('qrestcontract', { RATE_LIMIT_REQUESTS: '1000' });
  tenant = await createTenant(stack.prisma, 'contract');
  const cluster = await createCluster(stack.prisma, tenant, 'prod', { cloud: 'aws', crossZonePricePerGb: 0.011 });
  clusterId = cluster.id;
  await waitProcessed(stack.prisma, [
    await pushSnapshot(stack.url, cluster.token, capturedAt(fleet(7, 3, 13), new Date(Date.now() - 60_000))),
  ]);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('unknown query parameters', () => {
  it('are a 400 problem naming them, on every route of the document', async () => {
    const all = await operations();
    expect(all.length).toBeGreaterThan(20);
    for (const { method, path } of all) {
      const answer = await apiClient(stack.url, tenant.adminKey).call(method, `${path}?foo=bar&limit=1&zz=1`);
      expect(answer.status, `${method} ${path}`).toBe(400);
      expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
      const fields = (answer.body as { errors: { field: string; location: string }[] }).errors.map((e) => e.field);
      expect(fields, `${method} ${path}`).toContain('foo');
      expect(fields).toContain('zz');
    }
  });

  it('names what the route takes, and leaves declared parameters alone', async () => {
    const api = apiClient(stack.url, tenant.readKey);
    const fleetAnswer = await api.get('/v1/fleet?foo=bar');
    expect(fleetAnswer.status).toBe(400);
    expect(fleetAnswer.body.detail).toBe(
      'query parameter "foo": unknown query parameter; this route takes no query parameters',
    );
    const services = await api.get(`/v1/clusters/${clusterId}/services?limit=2&colour=blue`);
    expect(services.body.detail).toMatch(/"colour": unknown query parameter; this route takes: .*limit/);
    expect((await api.get(`/v1/clusters/${clusterId}/services?limit=2`)).status).toBe(200);
  });
});

describe('media types', () => {
  it('answers 415 problem+json to a body that is not JSON, on every route that takes one', async () => {
    const withBodies = (await operations()).filter((operation) => operation.hasBody);
    expect(withBodies.length).toBeGreaterThan(5);
    for (const { method, path } of withBodies) {
      const answer = await apiClient(stack.url, tenant.adminKey).call(method, path, 'name=x', {
        'content-type': 'text/plain',
      });
      expect(answer.status, `${method} ${path}`).toBe(415);
      expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect((answer.body as { detail: string }).detail).toMatch(
        /unsupported media type "text\/plain".*application\/json/,
      );
    }
    const ingest = await fetch(`${stack.url}/v1/ingest/snapshots`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer zwa_x' },
      body: 'a=b',
    });
    expect(ingest.status).toBe(415);
  });
});

describe('rate-limit headers', () => {
  it('come with every answer, a 429 included, with Retry-After', async () => {
    const key = (
      await apiClient(stack.url, tenant.adminKey).post('/v1/api-keys', { name: 'limited', scopes: ['read'] })
    ).body.key as string;
    const api = apiClient(stack.url, key);
    const first = await api.get('/v1/fleet');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(999);
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    const notFound = await api.get('/v1/clusters/00000000-0000-7000-8000-000000000000');
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('x-ratelimit-remaining')).toBe('998');
    // Use the window up.
    let last = notFound;
    for (let i = 0; i < 1000 && last.status !== 429; i++) last = await api.get('/v1/clusters?limit=1');
    expect(last.status).toBe(429);
    expect(last.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(last.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last.body).toMatchObject({ status: 429, limit: 1000 });
    expect(last.headers.get('ratelimit-policy')).toBe('"api-key";q=1000;w=60');
    expect(last.headers.get('ratelimit')).toMatch(/^"api-key";r=0;t=\d+$/);
    // A thousand requests in a row: a loaded machine takes its time.
  }, 180_000);
});

describe('answers', () => {
  it('do not name the framework behind the API (no X-Powered-By)', async () => {
    const api = apiClient(stack.url, tenant.adminKey);
    for (const path of ['/v1/fleet', '/v1/clusters/00000000-0000-7000-8000-000000000000', '/healthz', '/v1/nowhere']) {
      const answer = await api.get(path);
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.headers.get('x-powered-by'), path).toBeNull();
    }
  });
});

describe('money', () => {
  it('is in cents in every REST and GraphQL answer', async () => {
    const api = apiClient(stack.url, tenant.readKey);
    const bodies = [
      (await api.get('/v1/fleet')).body,
      (await api.get(`/v1/clusters/${clusterId}/services?limit=50`)).body,
      (await api.get('/v1/savings?groupBy=service')).body,
    ];
    const graphql = await postGraphQL(stack.url, tenant.readKey, {
      query: '{ fleet { clusters { monthly { withHints { cost } withoutHints { cost } missedSavings { cost } } } } }',
    });
    bodies.push(graphql.body);
    const costs: number[] = [];
    const collect = (value: unknown, key = ''): void => {
      if (Array.isArray(value)) value.forEach((item) => collect(item));
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) collect(v, k);
      else if (key === 'cost' && typeof value === 'number') costs.push(value);
    };
    bodies.forEach((body) => collect(body));
    expect(costs.length).toBeGreaterThan(20);
    expect(costs.some((cost) => cost !== 0)).toBe(true);
    for (const cost of costs) expect(Math.round(cost * 100) / 100, String(cost)).toBe(cost);
  });
});
