import { createPrismaClient, type PrismaClient } from '@zw/db';
import { taggedKey } from '@zw/queue';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { historyOf } from '../../../test/support/history.js';
import { freePort } from '../../../test/support/private-services.js';
import { buildApps, type RunningProcess, startApp } from '../../../test/support/processes.js';
import { apiClient, createCluster, createTenant, type Tenant, waitProcessed } from '../../../test/support/query-api.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { timeline } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';

/**
 * The deployment issue 23 scales to: two API processes and three workers (all compiled child processes) on
 * one Postgres and one Redis. Limits hold over the fleet, not per process: an agent token's ingest bucket
 * and an organization's heavy-read budget; a cluster changed through one API changes both APIs' answers;
 * snapshots pushed through both are recorded once each, with one history whatever the arrival order.
 */

const BURST = 4;
let db: TestDatabase;
let prisma: PrismaClient;
let prefix: string;
const apis: { process: RunningProcess; url: string }[] = [];
const workers: RunningProcess[] = [];
let tenant: Tenant;
const start = new Date(Date.now() - 6 * 3600_000);
const sequence = timeline(BURST, 10, 2, start);

/** Pushes through one API; answers the status (202 accepted, 429 refused by the bucket). */
async function push(url: string, token: string, body: unknown) {
  const response = await fetch(`${url}/v1/ingest/snapshots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { snapshotId?: string };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), id: answer.snapshotId };
}

beforeAll(async () => {
  buildApps();
  db = await createTestDatabase('replicas');
  prefix = uniquePrefix('replicas');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    DB_POOL_MAX: '4',
    READ_POOL_MAX: '4',
    // Burst 4, then one push an hour: within the test, exactly BURST pushes per token fleet-wide.
    INGEST_RATE_LIMIT_BURST: String(BURST),
    INGEST_RATE_LIMIT_REQUESTS: '1',
    INGEST_RATE_LIMIT_WINDOW_MS: '3600000',
    // One heavy read per organization at a time over the fleet, no waiting in line.
    HEAVY_READS_PER_ORGANIZATION: '1',
    HEAVY_READ_QUEUE_WAIT_MS: '0',
    HEAVY_READ_DUTY_CYCLE: '1',
    HEAVY_READ_STATEMENT_TIMEOUT_MS: '120000',
    QUERY_CACHE_TTL_MS: '600000',
    JOB_BACKOFF_MS: '100',
    SWEEP_EVERY_MS: '1000',
    SWEEP_GRACE_MS: '2000',
    WORKER_CONCURRENCY: '2',
  };
  for (let index = 0; index < 2; index++) {
    const port = await freePort();
    apis.push({
      process: startApp('api', { ...env, PORT: String(port), HOST: '127.0.0.1' }),
      url: `http://127.0.0.1:${port}`,
    });
  }
  for (let index = 0; index < 3; index++) workers.push(startApp('worker', env));
  for (const api of apis) {
    await waitFor(
      `the API on ${api.url} to be ready`,
      async () => {
        if (api.process.child.exitCode !== null) throw new Error(`the API exited:\n${api.process.output()}`);
        return (await fetch(`${api.url}/readyz`).catch(() => null))?.status === 200;
      },
      90_000,
      250,
    );
  }
  tenant = await createTenant(prisma, 'replicas');
}, 180_000);

afterAll(async () => {
  await Promise.all([...apis.map((api) => api.process.stop()), ...workers.map((worker) => worker.stop())]);
  await prisma?.$disconnect();
  if (prefix) await deletePrefixKeys(prefix);
  await db?.drop();
});

describe('two API processes and three workers on one Postgres and Redis', () => {
  it("holds an agent token's ingest bucket over both APIs, and records what they accepted once, in one history", async () => {
    const clusters = await Promise.all(['a', 'b', 'c'].map((name) => createCluster(prisma, tenant, `fleet-${name}`)));
    // Each cluster's token pushes its sequence (in its own order), then twice as many more, alternating APIs.
    const orders = [
      [0, 1, 2, 3],
      [3, 1, 0, 2],
      [2, 3, 1, 0],
    ];
    const answers = await Promise.all(
      clusters.map(async (cluster, c) => {
        const results = [];
        for (let i = 0; i < 3 * BURST; i++) {
          const list = sequence[orders[c][i % BURST]];
          results.push(await push(apis[i % 2].url, cluster.token, list));
        }
        return results;
      }),
    );
    for (const results of answers) {
      // Exactly the bucket's burst over both APIs (a bucket per process would have let 2 × BURST in).
      expect(results.filter((r) => r.status === 202)).toHaveLength(BURST);
      expect(results.slice(0, BURST).map((r) => r.status)).toEqual(Array(BURST).fill(202));
      const refused = results.filter((r) => r.status !== 202);
      expect(new Set(refused.map((r) => r.status))).toEqual(new Set([429]));
      expect(refused.every((r) => Number(r.retryAfter) >= 1)).toBe(true);
    }
    const ids = answers.flat().flatMap((r) => (r.id ? [r.id] : []));
    await waitProcessed(prisma, ids, 120_000);
    const rows = await prisma.snapshot.findMany({ where: { id: { in: ids } } });
    expect(rows.filter((row) => row.status !== 'processed' || row.error !== null)).toEqual([]);
    const [first, ...rest] = await Promise.all(clusters.map((cluster) => historyOf(prisma, cluster.id)));
    expect(first.summaries).toHaveLength(BURST);
    for (const history of rest) expect(history).toEqual(first);
  }, 180_000);

  it("holds an organization's heavy-read budget over both APIs: one API's read in progress refuses the other's", async () => {
    const cluster = await createCluster(prisma, tenant, 'heavy');
    const accepted = await push(apis[0].url, cluster.token, sequence[0]);
    await waitProcessed(prisma, [accepted.id!], 60_000);
    const savings = (url: string, hoursBack: number) =>
      apiClient(url, tenant.readKey).get(
        `/v1/savings?clusterId=${cluster.id}&from=${new Date(Date.now() - hoursBack * 3600_000).toISOString()}`,
      );
    // Locks the savings statement waits for (the tables it reads): API 0's heavy read holds the organization's slot meanwhile.
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    const redis = new Redis(TEST_REDIS_URL);
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        'LOCK TABLE service_intervals, service_savings_days, cluster_services IN ACCESS EXCLUSIVE MODE',
      );
      const held = savings(apis[0].url, 7);
      // Its lease in the organization's holders, in Redis, which both APIs read.
      const holders = taggedKey(prefix, `heavy:${tenant.organizationId}`, 'holders');
      await waitFor('API 0’s savings read to hold the organization’s slot', async () => {
        return (await redis.zcount(holders, Date.now(), '+inf')) > 0;
      });
      const refused = await savings(apis[1].url, 8);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await blocker.query('ROLLBACK');
      expect((await held).status).toBe(200);
    } finally {
      redis.disconnect();
      await blocker.end();
    }
    // The slot is free again: the other API's read runs.
    expect((await savings(apis[1].url, 8)).status).toBe(200);
  }, 120_000);

  it("drops a cluster's cached answers in both APIs when it is changed through one", async () => {
    const cluster = await createCluster(prisma, tenant, 'cached', { cloud: 'aws', region: 'us-east-1' });
    const accepted = await push(apis[1].url, cluster.token, sequence[0]);
    await waitProcessed(prisma, [accepted.id!], 60_000);
    const path = `/v1/clusters/${cluster.id}/services?limit=5`;
    const priceOn = async (url: string) => {
      const body = (await apiClient(url, tenant.readKey).get(path)).body as {
        services: { monthly: { inputs: { pricePerGb: number } } }[];
      };
      return body.services[0].monthly.inputs.pricePerGb;
    };
    // Both APIs answer, and cache, the price as it is.
    const before = await priceOn(apis[0].url);
    expect(await priceOn(apis[1].url)).toBe(before);
    const changed = await apiClient(apis[0].url, tenant.adminKey).patch(`/v1/clusters/${cluster.id}`, {
      crossZonePricePerGb: before * 2 + 0.01,
    });
    expect(changed.status).toBe(200);
    const after = before * 2 + 0.01;
    for (const api of apis) {
      await waitFor(`${api.url} to answer the new price`, async () => (await priceOn(api.url)) === after, 30_000, 50);
    }
  }, 120_000);
});
