import type { INestApplication } from '@nestjs/common';
import { get } from 'node:http';
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
import { capturedAt, evolve, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { FleetSchema } from '../src/fleet/fleet.schemas.js';
import { createApiApp } from '../src/http-app.js';
import { ServiceListSchema } from '../src/services/services.schemas.js';

/**
 * The read-model cache serves repeated reads from memory, yet never outlives a change: the worker's
 * "cluster changed" event (Redis) and the API's own changes drop it at once, in every API process. The
 * TTL is long here (10 minutes), so only the events can explain a fresh answer. Also: the job metrics the
 * worker keeps in Redis reach the API's /metrics.
 */

let stack: QueryStack;
let tenant: Tenant;
let cluster: { id: string; token: string };
let other: INestApplication;
let otherUrl: string;
const T0 = Date.now() - 3600_000;
const at = (minute: number) => new Date(T0 + minute * 60_000);

beforeAll(async () => {
  stack = await startQueryStack('qcache', { QUERY_CACHE_TTL_MS: '600000', FLEET_CACHE_TTL_MS: '600000' });
  tenant = await createTenant(stack.prisma, 'cache-org');
  cluster = await createCluster(stack.prisma, tenant, 'cached', { cloud: 'aws', region: 'us-east-1' });
  await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, capturedAt(fleet(10, 3, 3), at(0)))]);
  // A second API process on the same database and Redis, as a second replica would be.
  other = await createApiApp({ logger: ['error'] });
  await other.listen(0, '127.0.0.1');
  otherUrl = (await other.getUrl()).replace('[::1]', '127.0.0.1');
}, 60_000);

afterAll(async () => {
  await other?.close();
  await stack?.stop();
});

async function metric(url: string, pattern: RegExp): Promise<number> {
  const text = (await apiClient(url, null).get<string>('/metrics')).body;
  const match = pattern.exec(text);
  return match ? Number(match[1]) : 0;
}

describe('read-model cache', () => {
  it('answers repeated reads from memory, and a newly recorded snapshot at once', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const path = `/v1/clusters/${cluster.id}/services?limit=100`;
    const first = ServiceListSchema.parse((await client.get(path)).body);
    expect(first.asOf).toBe(at(0).toISOString());
    const hits = await metric(stack.metricsUrl, /zonewise_read_cache_lookups_total\{result="hit"\} (\d+)/);
    for (let i = 0; i < 5; i++) expect(ServiceListSchema.parse((await client.get(path)).body)).toEqual(first);
    expect(await metric(stack.metricsUrl, /zonewise_read_cache_lookups_total\{result="hit"\} (\d+)/)).toBe(hits + 5);

    const next = capturedAt(evolve(fleet(10, 3, 3), 77), at(1));
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, next)]);
    await waitFor(
      'the cached page to follow the new snapshot',
      async () => {
        const page = ServiceListSchema.parse((await client.get(path)).body);
        return page.asOf === at(1).toISOString();
      },
      5000,
      20,
    );
  });

  it('answers with an ETag, 304 when the client has the answer, and gzip when the client accepts it', async () => {
    const path = `${stack.url}/v1/clusters/${cluster.id}/zones`;
    const headers = { authorization: `Bearer ${tenant.readKey}` };
    const first = await fetch(path, { headers });
    const etag = first.headers.get('etag');
    expect(first.status).toBe(200);
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(path, { headers: { ...headers, 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    const raw = await new Promise<{ encoding: string | undefined; bytes: number }>((resolve, reject) => {
      const url = new URL(`${stack.url}/v1/clusters/${cluster.id}/services?limit=100`);
      get(url, { headers: { ...headers, 'accept-encoding': 'gzip' } }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ encoding: response.headers['content-encoding'], bytes }));
      }).on('error', reject);
    });
    expect(raw.encoding).toBe('gzip');
    const plain = await (await fetch(`${stack.url}/v1/clusters/${cluster.id}/services?limit=100`, { headers })).text();
    expect(raw.bytes).toBeLessThan(plain.length / 3);
  });

  it("drops a cluster's answers in every API process when it is changed through the API", async () => {
    const path = `/v1/clusters/${cluster.id}/services?limit=5`;
    const here = apiClient(stack.url, tenant.readKey);
    const there = apiClient(otherUrl, tenant.adminKey);
    const priceOf = (body: unknown) => ServiceListSchema.parse(body).services[0].monthly.inputs.pricePerGb;
    expect(priceOf((await here.get(path)).body)).toBe(0.02);
    expect(priceOf((await apiClient(otherUrl, tenant.readKey).get(path)).body)).toBe(0.02);
    expect((await there.patch(`/v1/clusters/${cluster.id}`, { crossZonePricePerGb: 0.05 })).status).toBe(200);
    expect(priceOf((await apiClient(otherUrl, tenant.readKey).get(path)).body)).toBe(0.05);
    await waitFor(
      'the other process to drop its answer',
      async () => priceOf((await here.get(path)).body) === 0.05,
      5000,
      20,
    );
  });

  it('keeps the fleet summary for its TTL but shows a cluster created through the API at once', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const first = FleetSchema.parse((await client.get('/v1/fleet')).body);
    const again = FleetSchema.parse((await client.get('/v1/fleet')).body);
    expect(again.generatedAt).toBe(first.generatedAt);
    expect((await apiClient(stack.url, tenant.adminKey).post('/v1/clusters', { name: 'brand-new' })).status).toBe(201);
    const fresh = FleetSchema.parse((await client.get('/v1/fleet')).body);
    expect(fresh.clusters.map((c) => c.name)).toContain('brand-new');
  });

  it('never serves one tenant an answer cached for another', async () => {
    const intruder = await createTenant(stack.prisma, 'intruder');
    const path = `/v1/clusters/${cluster.id}/services?limit=100`;
    expect((await apiClient(stack.url, tenant.readKey).get(path)).status).toBe(200);
    expect((await apiClient(stack.url, intruder.readKey).get(path)).status).toBe(404);
    expect((await apiClient(stack.url, intruder.readKey).get(`/v1/clusters/${cluster.id}/zones`)).status).toBe(404);
  });
});

describe('job metrics', () => {
  it("exposes the worker's job durations and counts (kept in Redis) at the API's /metrics", async () => {
    const processed = await stack.prisma.snapshot.count({ where: { status: 'processed' } });
    await waitFor(
      'job metrics',
      async () =>
        (await metric(stack.metricsUrl, /zonewise_jobs_completed_total\{queue="snapshots"\} (\d+)/)) >= processed,
      5000,
      50,
    );
    const count = await metric(stack.metricsUrl, /zonewise_job_duration_seconds_count\{queue="snapshots"\} (\d+)/);
    expect(count).toBeGreaterThanOrEqual(processed);
    expect(
      await metric(stack.metricsUrl, /zonewise_job_duration_seconds_sum\{queue="snapshots"\} ([\d.e-]+)/),
    ).toBeGreaterThan(0);
  });
});
