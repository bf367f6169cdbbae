import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { ProblemSchema } from '../src/http/schemas.js';
import { createApiApp } from '../src/http-app.js';

/**
 * Tenancy: every route of the query API, tried with another organization's ids and keys, must answer 404
 * (never the other tenant's data); every route needs a key (401), refuses agent tokens (403), and admin
 * routes refuse read keys (403). The route table is checked against the OpenAPI document, so a route
 * added later without being listed here fails this test. Then the per-key rate limit (429).
 */

let stack: QueryStack;
let alice: Tenant;
let bob: Tenant;
let aliceCluster: { id: string; token: string };
let bobCluster: { id: string; token: string };
let aliceKeyId: string;
const ALICE_SERVICE = { namespace: 'team-01', name: 'svc-00001' };

interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** OpenAPI path template. */
  template: string;
  admin: boolean;
  /** A request against Alice's resources. */
  path: () => string;
  body?: unknown;
  /** Routes scoped to the caller's organization, not to a resource id: Bob gets his own (empty) data. */
  organizationWide?: boolean;
}

/**
 * Routes of other modules, each with its own tenancy test: agent ingest (agent tokens, not API keys) and
 * scheduled reports.
 */
// /v1/events is a stream that never ends: its tenancy is tested in events.spec.ts.
// Single sign-on (its settings, members, sessions and sign-out) is tested in sso.spec.ts, and every route's
// role in roles.spec.ts. Alert channels, rules, alerts and deliveries: alerts-api.spec.ts.
const OTHER_MODULES = ['/v1/ingest/', '/v1/report', '/v1/events', '/v1/auth/', '/v1/sso', '/v1/members', '/v1/alert'];

const ROUTES: Route[] = [
  { method: 'GET', template: '/v1/fleet', admin: false, path: () => '/v1/fleet', organizationWide: true },
  { method: 'GET', template: '/v1/clusters', admin: false, path: () => '/v1/clusters', organizationWide: true },
  {
    method: 'POST',
    template: '/v1/clusters',
    admin: true,
    path: () => '/v1/clusters',
    body: { name: 'new-one' },
    organizationWide: true,
  },
  { method: 'GET', template: '/v1/clusters/{id}', admin: false, path: () => `/v1/clusters/${aliceCluster.id}` },
  {
    method: 'PATCH',
    template: '/v1/clusters/{id}',
    admin: true,
    path: () => `/v1/clusters/${aliceCluster.id}`,
    body: { crossZonePricePerGb: 5 },
  },
  { method: 'DELETE', template: '/v1/clusters/{id}', admin: true, path: () => `/v1/clusters/${aliceCluster.id}` },
  {
    method: 'POST',
    template: '/v1/clusters/{id}/agent-token',
    admin: true,
    path: () => `/v1/clusters/${aliceCluster.id}/agent-token`,
  },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/services',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/services`,
  },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/services/counts',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/services/counts`,
  },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/services/{namespace}/{name}',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/services/${ALICE_SERVICE.namespace}/${ALICE_SERVICE.name}`,
  },
  {
    method: 'PATCH',
    template: '/v1/clusters/{id}/services/{namespace}/{name}',
    admin: true,
    path: () => `/v1/clusters/${aliceCluster.id}/services/${ALICE_SERVICE.namespace}/${ALICE_SERVICE.name}`,
    body: { monthlyTrafficGb: 9999 },
  },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/zones',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/zones`,
  },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/service-cidrs',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/service-cidrs`,
  },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/traffic-source',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/traffic-source`,
  },
  {
    method: 'PUT',
    template: '/v1/clusters/{id}/traffic-source',
    admin: true,
    path: () => `/v1/clusters/${aliceCluster.id}/traffic-source`,
    body: { preset: 'istio', url: 'https://prometheus.example.com' },
  },
  {
    method: 'DELETE',
    template: '/v1/clusters/{id}/traffic-source',
    admin: true,
    path: () => `/v1/clusters/${aliceCluster.id}/traffic-source`,
  },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/measured-traffic',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/measured-traffic`,
  },
  {
    method: 'POST',
    template: '/v1/clusters/{id}/simulate',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/simulate`,
    body: { whatIf: {} },
  },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/recommendations',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/recommendations`,
  },
  {
    method: 'GET',
    template: '/v1/fleet/clusters/{id}',
    admin: false,
    path: () => `/v1/fleet/clusters/${aliceCluster.id}`,
  },
  {
    method: 'GET',
    template: '/v1/fleet/recommendations',
    admin: false,
    path: () => '/v1/fleet/recommendations',
    organizationWide: true,
  },
  { method: 'GET', template: '/v1/savings', admin: false, path: () => `/v1/savings?clusterId=${aliceCluster.id}` },
  {
    method: 'POST',
    template: '/v1/simulate',
    admin: false,
    path: () => '/v1/simulate',
    body: capturedAt(fleet(2, 2), new Date()),
    organizationWide: true,
  },
  { method: 'GET', template: '/v1/fleet/trends', admin: false, path: () => '/v1/fleet/trends', organizationWide: true },
  {
    method: 'GET',
    template: '/v1/clusters/{id}/trends',
    admin: false,
    path: () => `/v1/clusters/${aliceCluster.id}/trends`,
  },
  { method: 'GET', template: '/v1/me', admin: false, path: () => '/v1/me', organizationWide: true },
  { method: 'GET', template: '/v1/pricing', admin: false, path: () => '/v1/pricing', organizationWide: true },
  {
    method: 'PUT',
    template: '/v1/pricing',
    admin: true,
    path: () => '/v1/pricing',
    body: { crossZonePricePerGb: 0.02 },
    organizationWide: true,
  },
  { method: 'GET', template: '/v1/api-keys', admin: true, path: () => '/v1/api-keys', organizationWide: true },
  { method: 'GET', template: '/v1/audit-log', admin: true, path: () => '/v1/audit-log', organizationWide: true },
  {
    method: 'GET',
    template: '/v1/snapshots/failed',
    admin: true,
    path: () => `/v1/snapshots/failed?clusterId=${aliceCluster.id}`,
    organizationWide: true,
  },
  {
    method: 'POST',
    template: '/v1/snapshots/redrive',
    admin: true,
    path: () => '/v1/snapshots/redrive',
    body: { all: true },
    organizationWide: true,
  },
  {
    method: 'POST',
    template: '/v1/api-keys',
    admin: true,
    path: () => '/v1/api-keys',
    body: { name: 'x' },
    organizationWide: true,
  },
  { method: 'DELETE', template: '/v1/api-keys/{id}', admin: true, path: () => `/v1/api-keys/${aliceKeyId}` },
];

beforeAll(async () => {
  stack = await startQueryStack('qtenancy');
  alice = await createTenant(stack.prisma, 'alice');
  bob = await createTenant(stack.prisma, 'bob');
  aliceCluster = await createCluster(stack.prisma, alice, 'alice-prod', { cloud: 'aws' });
  bobCluster = await createCluster(stack.prisma, bob, 'bob-prod', { cloud: 'gcp' });
  await waitProcessed(stack.prisma, [
    await pushSnapshot(stack.url, aliceCluster.token, capturedAt(fleet(6, 3, 1), new Date(Date.now() - 60_000))),
    await pushSnapshot(stack.url, bobCluster.token, capturedAt(fleet(4, 3, 2), new Date(Date.now() - 60_000))),
  ]);
  const key = await stack.prisma.apiKey.findFirstOrThrow({
    where: { organizationId: alice.organizationId, name: 'read' },
  });
  aliceKeyId = key.id;
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

function call(route: Route, key: string | null) {
  const client = apiClient(stack.url, key);
  return client.call(route.method, route.path(), route.body);
}

describe('tenancy isolation', () => {
  it('lists every query-API route of the OpenAPI document (so none escapes these checks)', async () => {
    const spec = (await apiClient(stack.url, null).get('/docs-json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(spec.paths)
      .filter(([path]) => path.startsWith('/v1/') && !OTHER_MODULES.some((prefix) => path.startsWith(prefix)))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(ROUTES.map((route) => `${route.method} ${route.template}`).sort()).toEqual(documented);
  });

  it("answers 404 to every route asked about another tenant's ids, with Bob's read and admin keys", async () => {
    for (const route of ROUTES.filter((r) => !r.organizationWide)) {
      for (const key of route.admin ? [bob.adminKey] : [bob.readKey, bob.adminKey]) {
        const answer = await call(route, key);
        expect(answer.status, `${route.method} ${route.template}`).toBe(404);
        const problem = ProblemSchema.parse(answer.body);
        expect(problem.detail).toMatch(/^no (cluster|API key)/);
        expect(JSON.stringify(answer.body)).not.toContain('alice-prod');
      }
    }
    // Nothing of Alice's changed: her cluster, its price, her Service's traffic, her key.
    const cluster = await apiClient(stack.url, alice.readKey).get(`/v1/clusters/${aliceCluster.id}`);
    expect(cluster.status).toBe(200);
    expect(cluster.body.pricing.overridePerGb).toBeNull();
    expect(cluster.body.agentToken.rotatedAt).toBeNull();
    const service = await stack.prisma.clusterService.findFirstOrThrow({
      where: { clusterId: aliceCluster.id, ...ALICE_SERVICE },
    });
    expect(service.monthlyTrafficGb).toBeNull();
    expect((await apiClient(stack.url, alice.readKey).get('/v1/fleet')).status).toBe(200);
  });

  it("never shows another tenant's clusters, Services or keys in organization-wide answers", async () => {
    const aliceNames = ['alice-prod', aliceCluster.id];
    for (const route of ROUTES.filter((r) => r.organizationWide && r.method === 'GET')) {
      const answer = await call(route, bob.adminKey);
      expect(answer.status, route.template).toBe(200);
      for (const secret of aliceNames) expect(JSON.stringify(answer.body), route.template).not.toContain(secret);
    }
    const fleet = (await apiClient(stack.url, bob.readKey).get('/v1/fleet')).body as { clusters: { id: string }[] };
    expect(fleet.clusters.map((c) => c.id)).toEqual([bobCluster.id]);
    const savings = (await apiClient(stack.url, bob.readKey).get('/v1/savings')).body;
    expect(JSON.stringify(savings)).not.toContain(aliceCluster.id);
    expect(savings.pricing.map((p: { cluster: { id: string } }) => p.cluster.id)).toEqual([bobCluster.id]);
  });

  it('answers 401 to every route without a key, 403 to agent tokens, 403 to viewer keys on admin routes', async () => {
    for (const route of ROUTES) {
      const name = `${route.method} ${route.template}`;
      const anonymous = await call(route, null);
      expect(anonymous.status, name).toBe(401);
      expect(anonymous.headers.get('content-type'), name).toMatch(/problem\+json/);
      expect(ProblemSchema.parse(anonymous.body).detail, name).toMatch(/missing API key/);
      const agent = await call(route, aliceCluster.token);
      expect(agent.status, name).toBe(403);
      expect(ProblemSchema.parse(agent.body).detail, name).toMatch(/agent token/);
      if (route.admin) {
        const read = await call(route, alice.readKey);
        expect(read.status, name).toBe(403);
        expect(ProblemSchema.parse(read.body).detail, name).toMatch(/"(admin|operator)" role/);
      }
    }
  });

  it("answers NOT_FOUND in GraphQL to every field taking another tenant's ids, and never lists them", async () => {
    const graphql = async (query: string) => {
      const response = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bob.readKey}` },
        body: JSON.stringify({ query }),
      });
      return (await response.json()) as { data: unknown; errors?: { extensions: Record<string, unknown> }[] };
    };
    for (const query of [
      `{ cluster(id: "${aliceCluster.id}") { id name zones { name } services { nodes { name } } } }`,
      `{ savings(clusterId: "${aliceCluster.id}") { totals { services } } }`,
      `{ cluster(id: "${aliceCluster.id}") { recommendations { nodes { name } } } }`,
      `{ clusterSimulation(id: "${aliceCluster.id}") { clusterId services { name } } }`,
    ]) {
      const answer = await graphql(query);
      expect(answer.errors?.[0].extensions, query).toMatchObject({ code: 'NOT_FOUND', status: 404 });
      expect(answer.data, query).toBeNull();
    }
    const fleet = await graphql(
      '{ fleet { clusters { id name } } savings { groups { clusterId } } fleetRecommendations { nodes { clusterId } } pricing { clusters { id } } }',
    );
    expect(JSON.stringify(fleet.data)).not.toContain(aliceCluster.id);
    expect(JSON.stringify(fleet.data)).toContain(bobCluster.id);
  });

  it("cannot push into another tenant's cluster nor name it from the agent side", async () => {
    const push = await fetch(`${stack.url}/v1/ingest/snapshots`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${bobCluster.token}`,
        'content-type': 'application/json',
        'x-zonewise-cluster': aliceCluster.id,
      },
      body: JSON.stringify(capturedAt(fleet(2, 2), new Date(Date.now() - 5_000))),
    });
    expect(push.status).toBe(403);
  });
});

describe('rate limits per API key', () => {
  let limited: INestApplication;
  let url: string;

  beforeAll(async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_MS: '2000' });
    try {
      limited = await createApiApp({ logger: ['error'] });
      await limited.listen(0, '127.0.0.1');
      url = (await limited.getUrl()).replace('[::1]', '127.0.0.1');
    } finally {
      process.env = saved;
    }
  });

  afterAll(async () => {
    await limited?.close();
  });

  it('answers 429 problem+json with Retry-After past the limit, counting each key on its own', async () => {
    const alices = apiClient(url, alice.readKey);
    for (let i = 0; i < 5; i++) {
      const answer = await alices.get(i % 2 ? '/v1/fleet' : '/v1/clusters');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('5');
    }
    const refused = await alices.get('/v1/fleet');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(ProblemSchema.parse(refused.body)).toMatchObject({ status: 429, retryAfterSeconds: retryAfter });
    // Another key of the same organization has its own budget.
    expect((await apiClient(url, alice.adminKey).get('/v1/fleet')).status).toBe(200);
    // Once the window has passed, the key may ask again.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 200));
    expect((await alices.get('/v1/fleet')).status).toBe(200);
  });

  it('does not rate-limit /healthz, /readyz and /metrics', async () => {
    for (let i = 0; i < 8; i++) expect((await apiClient(url, null).get('/healthz')).status).toBe(200);
  });
});
