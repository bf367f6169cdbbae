import { createPrismaClient, type PrismaClient } from '@zw/db';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, type RunningProcess, startApp } from '../../../test/support/processes.js';
import { createTestDatabase } from '../../../test/support/databases.js';
import {
  freePort,
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from '../../../test/support/private-services.js';
import {
  type Answer,
  apiClient,
  createCluster,
  createTenant,
  postGraphQL,
  type Tenant,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { ProblemSchema } from '../src/http/schemas.js';

/**
 * Honest answers during outages: the compiled API runs against a PostgreSQL and a Redis of this test's
 * own, which the test stops and starts. While PostgreSQL is down every data route answers 503 problem+json
 * "database unavailable" with Retry-After (never a 500), whether or not the key was verified before; while
 * Redis is down the routes that need the queue answer 503 "queue unavailable", reads keep working, and
 * /readyz says which dependency is missing. Both recover by themselves.
 */
let postgres: PrivatePostgres;
let redis: PrivateRedis;
let api: RunningProcess;
let prisma: PrismaClient;
let url: string;
let tenant: Tenant;
let cluster: { id: string; token: string };

beforeAll(async () => {
  buildApps();
  [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  const databaseUrl = (await createTestDatabase('outages', postgres.serverUrl)).url;
  prisma = createPrismaClient({ databaseUrl, poolMax: 2 });
  tenant = await createTenant(prisma, 'outage-org');
  cluster = await createCluster(prisma, tenant, 'outage-cluster');
  const port = await freePort();
  api = startApp('api', {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: 'zwoutage',
    PORT: String(port),
    HOST: '127.0.0.1',
    QUERY_CACHE_TTL_MS: '0',
    API_KEY_CACHE_MS: '600000',
    READ_CONNECT_TIMEOUT_MS: '1000',
  });
  url = `http://127.0.0.1:${port}`;
  await waitFor(
    'the API',
    () =>
      fetch(`${url}/healthz`)
        .then((r) => r.ok)
        .catch(() => false),
    30_000,
  );
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await prisma?.$disconnect();
  await redis?.dispose();
  await postgres?.dispose();
});

function expectOutage(answer: Answer, dependency: 'database' | 'queue', what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(503);
  expect(answer.headers.get('content-type'), what).toMatch(/application\/problem\+json/);
  expect(Number(answer.headers.get('retry-after')), what).toBeGreaterThanOrEqual(1);
  const problem = ProblemSchema.parse(answer.body);
  expect(problem.detail, what).toMatch(new RegExp(`^${dependency} unavailable`));
}

const WITHOUT_DATABASE = new Set(['/v1/events', '/v1/auth/session']);

/** Every GET data route of the OpenAPI document, its path parameters filled in. */
async function dataRoutes(): Promise<string[]> {
  const document = (await apiClient(url, null).get('/docs-json')).body as { paths: Record<string, object> };
  return (
    Object.entries(document.paths)
      // /v1/events streams from Redis alone (a cached key needs no database): it stays open, by design;
      // /v1/auth/session asked without a session cookie (as here) answers signedIn false from the request alone.
      .filter(([path, operations]) => path.startsWith('/v1/') && !WITHOUT_DATABASE.has(path) && 'get' in operations)
      .map(([path]) =>
        path
          .replace('{id}', cluster.id)
          .replace('{namespace}', 'default')
          .replace('{name}', 'web')
          .replace(/\{[^}]+\}/g, () => randomUUID()),
      )
  );
}

describe('while PostgreSQL is down', () => {
  it('answers every data route 503 "database unavailable" with Retry-After, then recovers', async () => {
    const reader = apiClient(url, tenant.adminKey);
    expect((await reader.get('/v1/clusters')).status).toBe(200); // the key is now verified and cached
    const routes = await dataRoutes();
    expect(routes.length).toBeGreaterThan(10);
    await postgres.stop();
    try {
      for (const route of routes) expectOutage(await reader.get(route), 'database', `GET ${route}`);
      // A key never seen before cannot be verified: 503 too, not 401.
      const stranger = await apiClient(url, `zwk_${'x'.repeat(40)}`).get('/v1/fleet');
      expectOutage(stranger, 'database', 'unverified key');
      const write = await apiClient(url, tenant.adminKey).post('/v1/clusters', { name: 'during-outage' });
      expectOutage(write, 'database', 'POST /v1/clusters');
      const push = await fetch(`${url}/v1/ingest/snapshots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cluster.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(capturedAt(fleet(2, 2), new Date())),
      });
      expectOutage({ status: push.status, headers: push.headers, body: await push.json() }, 'database', 'ingest');
      // What needs no database keeps its answers: a bad snapshot is a 400 naming the problem, and a snapshot
      // that states no captured-at (so needs no retention) is analyzed.
      const badSimulation = await apiClient(url, tenant.adminKey).post('/v1/simulate', { kind: 'List', items: 7 });
      expect(badSimulation.status, JSON.stringify(badSimulation.body)).toBe(400);
      expect(ProblemSchema.parse(badSimulation.body).detail).toMatch(/invalid snapshot/);
      const simulation = await apiClient(url, tenant.adminKey).post('/v1/simulate', fleet(2, 2));
      expect(simulation.status, JSON.stringify(simulation.body)).toBe(200);
      const graphql = await postGraphQL(url, tenant.readKey, { query: '{ fleet { clusters { id } } }' });
      expect(graphql.body.errors?.[0].extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      const ready = await apiClient(url, null).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ProblemSchema.parse(ready.body).detail).toMatch(/postgres/);
      expect(api.output()).not.toMatch(/internal error/);
    } finally {
      await postgres.start();
    }
    await waitFor('the API back on PostgreSQL', async () => (await reader.get('/v1/clusters')).status === 200, 20_000);
    expect((await apiClient(url, null).get('/readyz')).status).toBe(200);
  });
});

describe('while Redis is down', () => {
  it('keeps reads and ingest working, answers queue routes 503 "queue unavailable", and /readyz says redis', async () => {
    await redis.stop();
    try {
      const ready = await apiClient(url, null).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ProblemSchema.parse(ready.body).detail).toMatch(/redis/);
      expect((await apiClient(url, tenant.readKey).get('/v1/clusters')).status).toBe(200);
      const source = await apiClient(url, tenant.adminKey).put(`/v1/clusters/${cluster.id}/traffic-source`, {
        preset: 'istio',
        url: 'https://prometheus.example.com',
      });
      expectOutage(source, 'queue', 'PUT traffic-source');
      // Live events come from Redis alone: told to come back, rather than held open on a stream that is away.
      expectOutage(await apiClient(url, tenant.readKey).get('/v1/events'), 'queue', 'GET /v1/events');
      // The snapshot is stored in PostgreSQL: accepted, and queued once Redis is back.
      const push = await fetch(`${url}/v1/ingest/snapshots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cluster.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(capturedAt(fleet(2, 2), new Date(Date.now() - 5000))),
      });
      expect(push.status).toBe(202);
    } finally {
      await redis.start();
    }
    await waitFor(
      'readiness after Redis is back',
      async () => (await apiClient(url, null).get('/readyz')).status === 200,
      30_000,
    );
  });
});
