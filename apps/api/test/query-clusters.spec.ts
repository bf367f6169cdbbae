import type { INestApplication } from '@nestjs/common';
import { analyzeSnapshot, parseSnapshot } from '@zw/core';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProjects } from '../../../test/support/processes.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
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
import { ClusterListSchema, ClusterSchema, CreatedClusterSchema } from '../src/clusters/clusters.schemas.js';
import { FleetSchema } from '../src/fleet/fleet.schemas.js';
import { createApiApp } from '../src/http-app.js';
import { ProblemSchema } from '../src/http/schemas.js';

/**
 * Phase 1 of the query API over HTTP, on the real stack: API keys and scopes, clusters CRUD, the fleet
 * summary fed by real snapshots, problem+json errors, health, readiness, metrics and the OpenAPI document.
 */

let stack: QueryStack;
let acme: Tenant;

beforeAll(async () => {
  stack = await startQueryStack('qclusters');
  acme = await createTenant(stack.prisma, 'acme');
});

afterAll(async () => {
  await stack?.stop();
});

function expectProblem(answer: { status: number; headers: Headers; body: unknown }, status: number, detail: RegExp) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = ProblemSchema.parse(answer.body);
  expect(problem.status).toBe(status);
  expect(problem.detail).toMatch(detail);
  return problem;
}

describe('operations endpoints', () => {
  it('answers /healthz and /readyz (Postgres and Redis reachable) without a key', async () => {
    const anonymous = apiClient(stack.url, null);
    expect((await anonymous.get('/healthz')).body).toEqual({ status: 'ok' });
    // Polled, as a readiness probe is: /readyz also says 503 while the process is saturated, which this
    // in-process API can be for a moment when the test run loads a shared machine.
    const ready = await waitFor('/readyz to answer 200', async () => {
      const answer = await anonymous.get('/readyz');
      return answer.status === 200 && answer;
    });
    expect(ready.body).toMatchObject({ status: 'ready', checks: { postgres: { ok: true }, redis: { ok: true } } });
  });

  it('answers /readyz 503 naming what is unreachable', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      REDIS_URL: 'redis://127.0.0.1:1',
      DATABASE_URL: stack.db.url.replace(/\/[^/]+$/, '/zw_no_such_database'),
    });
    let broken: INestApplication | undefined;
    try {
      broken = await createApiApp({ logger: [] });
      await broken.listen(0, '127.0.0.1');
      const url = (await broken.getUrl()).replace('[::1]', '127.0.0.1');
      const ready = await apiClient(url, null).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.headers.get('content-type')).toMatch(/problem\+json/);
      expect(ready.body).toMatchObject({ status: 503, checks: { postgres: { ok: false }, redis: { ok: false } } });
      expect(ProblemSchema.parse(ready.body).detail).toMatch(/not ready: postgres .*redis/);
      expect((await apiClient(url, null).get('/healthz')).status).toBe(200);
    } finally {
      process.env = saved;
      await broken?.close();
    }
  });

  it('exposes Prometheus metrics: HTTP latency by route template, queue depth, job durations and failures', async () => {
    const client = apiClient(stack.url, acme.readKey);
    await client.get('/v1/fleet');
    const metrics = await apiClient(stack.metricsUrl, null).get<string>('/metrics');
    expect(metrics.status).toBe(200);
    // Deployment-wide figures: on the metrics port only, never on the API's, with or without a key.
    for (const key of [null, acme.adminKey]) {
      const onApiPort = await apiClient(stack.url, key).get('/metrics', { accept: 'text/html,*/*' });
      expect(onApiPort.status).toBe(404);
      expect(JSON.stringify(onApiPort.body)).not.toMatch(/zonewise_/);
    }
    expect((await apiClient(stack.metricsUrl, null).get('/v1/fleet')).status).toBe(404);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(metrics.body).toMatch(
      /zonewise_http_request_duration_seconds_count\{method="GET",route="\/v1\/fleet",status="200"\} [1-9]/,
    );
    expect(metrics.body).toMatch(/zonewise_queue_jobs\{queue="snapshots",state="waiting"\} \d+/);
    expect(metrics.body).toMatch(/zonewise_job_duration_seconds_bucket\{queue="snapshots",le="\+Inf"\} \d+/);
    expect(metrics.body).toMatch(/zonewise_jobs_failed_total\{queue="snapshots",final="true"\} \d+/);
  });

  it('serves the generated OpenAPI document at /docs-json and its UI at /docs', async () => {
    const anonymous = apiClient(stack.url, null);
    const spec = await anonymous.get<{ openapi: string; paths: Record<string, Record<string, unknown>> }>('/docs-json');
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toMatch(/^3\./);
    for (const [path, methods] of Object.entries({
      '/v1/fleet': ['get'],
      '/v1/clusters': ['get', 'post'],
      '/v1/clusters/{id}': ['get', 'patch', 'delete'],
      '/v1/api-keys': ['get', 'post'],
    })) {
      expect(Object.keys(spec.body.paths[path] ?? {}), path).toEqual(expect.arrayContaining(methods));
    }
    const ui = await anonymous.get<string>('/docs');
    expect(ui.status).toBe(200);
    expect(ui.body).toMatch(/swagger/i);
  });
});

describe('authentication and scopes', () => {
  it('answers 401 problem+json with WWW-Authenticate for a missing, malformed or unknown key', async () => {
    const missing = await apiClient(stack.url, null).get('/v1/fleet');
    expectProblem(missing, 401, /missing API key/);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectProblem(await apiClient(stack.url, 'not-a-key').get('/v1/fleet'), 401, /invalid API key/);
    expectProblem(await apiClient(stack.url, `zwk_${'x'.repeat(43)}`).get('/v1/fleet'), 401, /invalid API key/);
  });

  it('refuses an agent token on the query API with 403 saying what it is for', async () => {
    const cluster = await createCluster(stack.prisma, acme, 'agent-token-check');
    expectProblem(await apiClient(stack.url, cluster.token).get('/v1/fleet'), 403, /agent token.*only push snapshots/);
  });

  it('lets a viewer key query but not change anything (403 naming the role)', async () => {
    const read = apiClient(stack.url, acme.readKey);
    expect((await read.get('/v1/clusters')).status).toBe(200);
    const problem = expectProblem(await read.post('/v1/clusters', { name: 'nope' }), 403, /"admin" role.*has "viewer"/);
    expect(problem).toMatchObject({ requiredRole: 'admin', role: 'viewer' });
    expectProblem(await read.post('/v1/api-keys', { name: 'x' }), 403, /"admin" role/);
  });

  it("lets an operator change a cluster's price (a price override) but nothing else of it", async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const operator = apiClient(stack.url, acme.operatorKey);
    const { body } = await admin.post('/v1/clusters', { name: 'priced-by-operator' });
    const path = `/v1/clusters/${body.cluster.id}`;
    const priced = await operator.patch(path, { crossZonePricePerGb: 0.02 });
    expect(priced.status).toBe(200);
    expect(priced.body.pricing.pricePerGb).toBe(0.02);
    expectProblem(await operator.patch(path, { name: 'renamed', crossZonePricePerGb: 0.03 }), 403, /"admin" role/);
    expectProblem(await operator.delete(path), 403, /"admin" role/);
  });

  it('creates API keys through POST /v1/api-keys (admin), and a revoked key answers 401 at once', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const created = await admin.post<{ apiKey: { id: string; role: string; prefix: string }; key: string }>(
      '/v1/api-keys',
      { name: 'grafana', scopes: ['read'] },
    );
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^zwk_/);
    expect(created.body.key.startsWith(created.body.apiKey.prefix)).toBe(true);
    expect(created.body.apiKey.role).toBe('viewer'); // the older `scopes` form still works
    const grafana = apiClient(stack.url, created.body.key);
    expect((await grafana.get('/v1/fleet')).status).toBe(200);

    const listed = await admin.get<{ apiKeys: { id: string; name: string }[] }>('/v1/api-keys');
    expect(listed.body.apiKeys.map((key) => key.name)).toContain('grafana');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

    expect((await admin.delete(`/v1/api-keys/${created.body.apiKey.id}`)).status).toBe(204);
    expectProblem(await grafana.get('/v1/fleet'), 401, /revoked/);
    expectProblem(await admin.delete(`/v1/api-keys/00000000-0000-7000-8000-000000000000`), 404, /no API key/);
  });
});

describe('bootstrap', () => {
  it('creates an organization and its first admin API key from the admin CLI; the key then works', async () => {
    buildProjects(['apps/api']);
    // Run without blocking the event loop: the API under test answers from this process, and a loop held
    // for seconds lets its keep-alive timer close a pooled connection just as the next request reuses it.
    const cli = async (...args: string[]) =>
      JSON.parse(
        (
          await promisify(execFile)(
            process.execPath,
            [join(__dirname, '..', '..', '..', 'dist', 'apps', 'api', 'admin-cli.js'), ...args],
            { env: { ...process.env, DATABASE_URL: stack.db.url }, encoding: 'utf8' },
          )
        ).stdout,
      ) as Record<string, string>;
    const org = await cli('create-org', '--org', 'bootstrapped', '--org-name', 'Bootstrapped Inc');
    expect(org).toMatchObject({ slug: 'bootstrapped', name: 'Bootstrapped Inc' });
    const key = await cli('create-api-key', '--org', 'bootstrapped', '--name', 'first-admin', '--scope', 'admin');
    expect(key.apiKey).toMatch(/^zwk_/);
    expect(key.role).toBe('admin');
    const admin = apiClient(stack.url, key.apiKey);
    expect((await admin.post('/v1/clusters', { name: 'first' })).status).toBe(201);
    expect((await admin.get('/v1/fleet')).body.clusters).toHaveLength(1);
  });
});

describe('clusters', () => {
  it('creates a cluster and returns its agent token once; the token pushes snapshots', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const created = await admin.post('/v1/clusters', {
      name: 'prod-eu-1',
      cloud: 'aws',
      region: 'eu-west-1',
      kubernetesVersion: '1.35',
    });
    expect(created.status).toBe(201);
    const body = CreatedClusterSchema.parse(created.body);
    expect(body.cluster).toMatchObject({ name: 'prod-eu-1', cloud: 'aws', region: 'eu-west-1' });
    expect(body.agentToken).toMatch(/^zwa_/);
    expect(body.cluster.agentToken?.prefix).toBe(body.agentToken.slice(0, body.cluster.agentToken!.prefix.length));
    const fetched = await admin.get(`/v1/clusters/${body.cluster.id}`);
    expect(JSON.stringify(fetched.body)).not.toContain(body.agentToken);
    expect(ClusterSchema.parse(fetched.body).id).toBe(body.cluster.id);
    await pushSnapshot(stack.url, body.agentToken, capturedAt(fleet(3, 3), new Date(Date.now() - 60_000)));

    expectProblem(await admin.post('/v1/clusters', { name: 'prod-eu-1' }), 409, /already has a cluster named/);
  });

  it('lists clusters by name with cursor pagination', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    for (const name of ['page-a', 'page-b', 'page-c', 'page-d', 'page-e']) {
      expect((await admin.post('/v1/clusters', { name })).status).toBe(201);
    }
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const answer = await admin.get(`/v1/clusters?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status).toBe(200);
      const page = ClusterListSchema.parse(answer.body);
      expect(page.clusters.length).toBeLessThanOrEqual(2);
      names.push(...page.clusters.map((cluster) => cluster.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['page-a', 'page-b', 'page-c', 'page-d', 'page-e']));
  });

  it('updates name and pricing, rotates the agent token and deletes', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const { cluster, agentToken } = CreatedClusterSchema.parse(
      (await admin.post('/v1/clusters', { name: 'to-change', cloud: 'gcp' })).body,
    );
    const changed = await admin.patch(`/v1/clusters/${cluster.id}`, { name: 'changed', crossZonePricePerGb: 0.02 });
    expect(changed.status).toBe(200);
    expect(ClusterSchema.parse(changed.body)).toMatchObject({
      name: 'changed',
      pricing: { overridePerGb: 0.02, pricePerGb: 0.02, source: 'cluster-override' },
    });
    const cleared = ClusterSchema.parse(
      (await admin.patch(`/v1/clusters/${cluster.id}`, { crossZonePricePerGb: null })).body,
    );
    expect(cleared.pricing).toMatchObject({ overridePerGb: null, pricePerGb: 0.01, source: 'provider-default' });

    const rotated = await admin.post<{ agentToken: string }>(`/v1/clusters/${cluster.id}/agent-token`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.agentToken).not.toBe(agentToken);
    const list = capturedAt(fleet(2, 2), new Date(Date.now() - 120_000));
    await expect(pushSnapshot(stack.url, agentToken, list)).rejects.toThrow(/401/);
    await pushSnapshot(stack.url, rotated.body.agentToken, list);

    expect((await admin.delete(`/v1/clusters/${cluster.id}`)).status).toBe(204);
    expectProblem(await admin.get(`/v1/clusters/${cluster.id}`), 404, /no cluster/);
    expect(await stack.prisma.snapshot.count({ where: { clusterId: cluster.id } })).toBe(0);
  });

  it('keeps labels of its own per cluster, which the fleet summary carries; a bad label is a 400 naming it', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const created = await admin.post('/v1/clusters', {
      name: 'labelled',
      labels: { env: 'prod', 'example.com/team': 'payments' },
    });
    expect(created.status).toBe(201);
    expect(created.body.cluster.labels).toEqual({ env: 'prod', 'example.com/team': 'payments' });
    const id = created.body.cluster.id as string;
    const changed = await admin.patch(`/v1/clusters/${id}`, { labels: { env: 'staging' } });
    expect(changed.body.labels).toEqual({ env: 'staging' });
    const fleet = (await admin.get('/v1/fleet')).body.clusters as { id: string; labels: Record<string, string> }[];
    expect(fleet.find((cluster) => cluster.id === id)?.labels).toEqual({ env: 'staging' });
    expect(fleet.every((cluster) => typeof cluster.labels === 'object')).toBe(true);
    expectProblem(await admin.patch(`/v1/clusters/${id}`, { labels: { 'bad key!': 'x' } }), 400, /body field "labels/);
    expectProblem(
      await admin.patch(`/v1/clusters/${id}`, { labels: { env: 'x'.repeat(64) } }),
      400,
      /body field "labels/,
    );
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    expectProblem(await admin.patch(`/v1/clusters/${id}`, { labels: many }), 400, /at most 20 labels/);
    expect((await admin.patch(`/v1/clusters/${id}`, { labels: {} })).body.labels).toEqual({});
    expect((await admin.delete(`/v1/clusters/${id}`)).status).toBe(204);
  });

  it('names the invalid field in 400 problems', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const badName = expectProblem(await admin.post('/v1/clusters', { name: 'bad name!' }), 400, /body field "name"/);
    expect(badName.errors?.[0]).toMatchObject({ location: 'body', field: 'name' });
    expectProblem(await admin.post('/v1/clusters', { name: 'x', cloud: 'ibm' }), 400, /body field "cloud"/);
    expectProblem(await admin.post('/v1/clusters', { name: 'x', color: 'red' }), 400, /body field "color": unknown/);
    expectProblem(await admin.post('/v1/clusters', '{"name": '), 400, /not valid JSON/);
    expectProblem(await admin.get('/v1/clusters?limit=0'), 400, /query parameter "limit"/);
    expectProblem(await admin.get('/v1/clusters?limit=abc'), 400, /query parameter "limit"/);
    expectProblem(await admin.get('/v1/clusters?sort=name'), 400, /query parameter "sort": unknown/);
    expectProblem(await admin.get('/v1/clusters?cursor=garbage'), 400, /query parameter "cursor"/);
    expectProblem(await admin.get('/v1/clusters/not-a-uuid'), 400, /path parameter "id": must be a UUID/);
    expectProblem(await admin.patch(`/v1/clusters/00000000-0000-7000-8000-000000000000`, {}), 400, /nothing to change/);
    expectProblem(await admin.get('/v1/no-such-route'), 404, /Cannot GET/);
  });
});

describe('GET /v1/fleet', () => {
  it('summarises every cluster from its newest processed snapshot, as the core analyses it', async () => {
    const tenant = await createTenant(stack.prisma, 'fleet-org');
    const fresh = await createCluster(stack.prisma, tenant, 'fresh', { cloud: 'aws', region: 'us-east-1' });
    const old = await createCluster(stack.prisma, tenant, 'old');
    await createCluster(stack.prisma, tenant, 'silent');
    const recent = capturedAt(fleet(12, 4, 7), new Date(Date.now() - 30_000));
    const stale = capturedAt(fleet(5, 3, 8), new Date(Date.now() - 2 * 3600_000));
    await waitProcessed(stack.prisma, [
      await pushSnapshot(stack.url, fresh.token, recent),
      await pushSnapshot(stack.url, old.token, stale),
    ]);

    const answer = await apiClient(stack.url, tenant.readKey).get('/v1/fleet');
    expect(answer.status).toBe(200);
    const summary = FleetSchema.parse(answer.body);
    expect(summary.clusters.map((cluster) => cluster.name)).toEqual(['fresh', 'old', 'silent']);
    const [freshView, oldView, silentView] = summary.clusters;

    const expected = analyzeSnapshot(parseSnapshot(recent));
    expect(freshView.services).toEqual(expected.summary.services);
    expect(freshView.servicesWithDrift).toBe(expected.summary.servicesWithDrift);
    expect(freshView.nodeInfo).toEqual({ sufficient: expected.nodeInfo.sufficient, reason: expected.nodeInfo.reason });
    expect(freshView.crossZone?.withoutHints).toBeCloseTo(expected.summary.crossZone.withoutHints, 12);
    expect(freshView.crossZone?.withHints).toBeCloseTo(expected.summary.crossZone.withHints, 12);
    expect(freshView.lastSnapshot).toMatchObject({ status: 'processed', stale: false });
    expect(oldView.lastSnapshot).toMatchObject({ stale: true });
    expect(oldView.lastSnapshot!.ageSeconds).toBeGreaterThanOrEqual(2 * 3600 - 5);
    expect(silentView).toMatchObject({
      lastSnapshot: null,
      analysis: null,
      services: { populated: 0, removed: 0, none: 0 },
    });
    expect(summary.totals.clusters).toBe(3);
    expect(summary.totals.staleClusters).toBe(2);
    const all = parseSnapshot(stale);
    expect(summary.totals.services.populated).toBe(
      expected.summary.services.populated + analyzeSnapshot(all).summary.services.populated,
    );
  });
});
