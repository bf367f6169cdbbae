import type { INestApplication } from '@nestjs/common';
import type { KubernetesList } from '@zw/core';
import { createPrismaClient, type PrismaClient, registerCluster } from '@zw/db';
import {
  ALERTS_QUEUE,
  createRedisClient,
  liveEventsStreamKey,
  queuePrefixOf,
  type RedisClient,
  SNAPSHOTS_QUEUE,
} from '@zw/queue';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { historyOf } from '../../../test/support/history.js';
import { describeLiveEvents } from '../../../test/support/live-events-suite.js';
import { buildApps, type RunningProcess, startApp } from '../../../test/support/processes.js';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { type RedisCluster, startRedisCluster } from '../../../test/support/redis-cluster.js';
import { timeline } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { createApiApp } from '../../api/src/http-app.js';

/**
 * The pipeline, its outages and the live events on a real Redis Cluster (three masters with a replica
 * each, created by this file): REDIS_URL is `redis+cluster://…`, the API runs in this process, the
 * workers are compiled child processes. Every accepted snapshot must be processed exactly once, with the
 * history of a run in captured-at order, whatever the cluster goes through.
 */

const SNAPSHOTS = 24;
const sequence = timeline(SNAPSHOTS, 12, 2, new Date(Date.now() - 6 * 3600_000));

let redisCluster: RedisCluster;
let redis: RedisClient;
let db: TestDatabase;
let prisma: PrismaClient;
let api: INestApplication;
let url: string;
const prefix = 'zwc';
const workers: RunningProcess[] = [];

function startWorker(): RunningProcess {
  const worker = startApp('worker', {
    DATABASE_URL: db.url,
    REDIS_URL: redisCluster.url,
    QUEUE_PREFIX: prefix,
    WORKER_CONCURRENCY: '2',
    JOB_BACKOFF_MS: '100',
    SWEEP_EVERY_MS: '500',
    SWEEP_GRACE_MS: '1000',
    WORKER_LOCK_DURATION_MS: '4000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    WORKER_OUTAGE_RETRY_MAX_MS: '2000',
    DB_POOL_MAX: '4',
  });
  workers.push(worker);
  return worker;
}

async function newCluster(name: string) {
  const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug: 'redis-cluster', name });
  return { id: cluster.id, token: agentToken };
}

/** Pushes every snapshot (each must be accepted: 202), in order; returns their ids. */
async function pushAll(lists: KubernetesList[], token: string): Promise<string[]> {
  const ids: string[] = [];
  for (const list of lists) ids.push(await pushSnapshot(url, token, list));
  return ids;
}

async function processedCount(ids: string[]): Promise<number> {
  return prisma.snapshot.count({ where: { id: { in: ids }, status: 'processed' } });
}

/** Each snapshot processed once, without error, and the history of the in-order reference. */
async function expectExactlyOnce(ids: string[], clusterId: string, referenceId: string): Promise<void> {
  const rows = await prisma.snapshot.findMany({ where: { id: { in: ids } } });
  expect(rows.filter((row) => row.status !== 'processed' || row.error !== null)).toEqual([]);
  expect(await prisma.snapshotSummary.count({ where: { clusterId } })).toBe(ids.length);
  expect(await historyOf(prisma, clusterId)).toEqual(await historyOf(prisma, referenceId));
}

let reference: { id: string };

beforeAll(async () => {
  buildApps();
  [redisCluster, db] = await Promise.all([startRedisCluster(), createTestDatabase('redis-cluster')]);
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  Object.assign(process.env, {
    DATABASE_URL: db.url,
    REDIS_URL: redisCluster.url,
    QUEUE_PREFIX: prefix,
    INGEST_RATE_LIMIT_REQUESTS: String(10 * SNAPSHOTS),
  });
  api = await createApiApp({ logger: ['error'] });
  await api.listen(0, '127.0.0.1');
  url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
  redis = createRedisClient(redisCluster.url).on('error', () => undefined);
}, 120_000);

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});

afterAll(async () => {
  redis?.disconnect();
  await api?.close();
  await prisma?.$disconnect();
  await db?.drop();
  await redisCluster?.dispose();
});

describe('the pipeline on a Redis Cluster', () => {
  it('records snapshots pushed one by one, queued under the queue’s own hash tag', async () => {
    const cluster = await newCluster('in-order');
    const worker = startWorker();
    for (const list of sequence) await waitProcessed(prisma, [await pushSnapshot(url, cluster.token, list)], 60_000);
    // Each recorded snapshot asked for an alert evaluation of its cluster, de-duplicated per cluster
    // under the alerts queue's own tag: evaluations ran on the cluster, and none is left asked for.
    const alerts = `${queuePrefixOf(prefix, ALERTS_QUEUE, true)}:${ALERTS_QUEUE}`;
    await waitFor(
      'alert evaluations run',
      async () => {
        const [waiting, completed] = await Promise.all([
          redis.llen(`${alerts}:wait`),
          redis.zcard(`${alerts}:completed`),
        ]);
        return waiting === 0 && completed > 0;
      },
      60_000,
    );
    await worker.stop();
    expect((await historyOf(prisma, cluster.id)).summaries).toHaveLength(SNAPSHOTS);
    reference = cluster;
    // The queue's keys carry its hash tag (one slot per queue), and the live events went through the
    // tagged stream: both on the cluster, not refused as CROSSSLOT.
    const queuePrefix = queuePrefixOf(prefix, SNAPSHOTS_QUEUE, true);
    expect(queuePrefix).toBe(`${prefix}:{${SNAPSHOTS_QUEUE}}`);
    expect(await redis.exists(`${queuePrefix}:${SNAPSHOTS_QUEUE}:meta`)).toBe(1);
    expect(await redis.xlen(liveEventsStreamKey(prefix))).toBeGreaterThanOrEqual(SNAPSHOTS);
  }, 180_000);

  it('gives the same history from a burst on two workers', async () => {
    const cluster = await newCluster('burst');
    startWorker();
    startWorker();
    const ids = await Promise.all(sequence.map((list) => pushSnapshot(url, cluster.token, list)));
    await waitProcessed(prisma, ids, 120_000);
    await expectExactlyOnce(ids, cluster.id, reference.id);
  }, 180_000);
});

describe('the limits on a Redis Cluster', () => {
  it("runs an organization's heavy reads through its budget (two scripts' keys in one slot) and key limits", async () => {
    const tenant = await createTenant(prisma, 'rc-limits');
    const cluster = await createCluster(prisma, tenant, 'limits');
    startWorker();
    await waitProcessed(prisma, [await pushSnapshot(url, cluster.token, sequence[0])], 60_000);
    const client = apiClient(url, tenant.readKey);
    // One heavy read at a time for the organization (the default): the second waits in line, then runs.
    const answers = await Promise.all(
      [7, 8].map((hours) =>
        client.get(`/v1/savings?clusterId=${cluster.id}&from=${new Date(Date.now() - hours * 3600_000).toISOString()}`),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const services = await client.get(`/v1/clusters/${cluster.id}/services?limit=5`);
    expect(services.status).toBe(200);
    expect(Number(services.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
  }, 120_000);
});

describe('outages of the Redis Cluster', () => {
  it('loses nothing accepted when the master of the snapshot queue is killed and its replica takes over', async () => {
    const cluster = await newCluster('failover');
    startWorker();
    startWorker();
    const ids = await pushAll(sequence.slice(0, SNAPSHOTS / 2), cluster.token);
    await waitFor('the backlog to be under way', async () => (await processedCount(ids)) >= 2, 60_000, 50);

    const master = await redisCluster.masterOf(`${queuePrefixOf(prefix, SNAPSHOTS_QUEUE, true)}:${SNAPSHOTS_QUEUE}:id`);
    await master.stop();
    // Pushed while the queue's slot has no master, then while its replica takes over: all accepted.
    ids.push(...(await pushAll(sequence.slice(SNAPSHOTS / 2), cluster.token)));
    await redisCluster.waitHealthy();
    const replacement = await redisCluster.masterOf(`${queuePrefixOf(prefix, SNAPSHOTS_QUEUE, true)}:x`);
    expect(replacement.port).not.toBe(master.port);
    await master.start(); // back as the new master's replica

    await waitProcessed(prisma, ids, 120_000);
    await expectExactlyOnce(ids, cluster.id, reference.id);
  }, 240_000);

  it('loses nothing accepted while the whole cluster is down, and resumes when it is back', async () => {
    const cluster = await newCluster('down');
    startWorker();
    const ids = await pushAll(sequence.slice(0, SNAPSHOTS / 2), cluster.token);
    await waitFor('the backlog to be under way', async () => (await processedCount(ids)) >= 2, 60_000, 50);

    // The API (in this process) logs the outage through its logger, not a stack per failed slot refresh.
    const printed = vi.spyOn(console, 'error');
    await Promise.all(redisCluster.nodes.map((node) => node.stop()));
    // Ingest keeps accepting: the snapshots wait in Postgres for the sweeper to queue them.
    ids.push(...(await pushAll(sequence.slice(SNAPSHOTS / 2), cluster.token)));
    expect(await processedCount(ids)).toBeLessThan(SNAPSHOTS);
    await Promise.all(redisCluster.nodes.map((node) => node.start()));
    await redisCluster.waitHealthy();
    const stacks = printed.mock.calls.filter((args) => args.some((arg) => arg instanceof Error));
    printed.mockRestore();
    expect(stacks.map((args) => String(args[0]))).toEqual([]);

    await waitProcessed(prisma, ids, 120_000);
    await expectExactlyOnce(ids, cluster.id, reference.id);
  }, 240_000);
});

// The live-event suite of apps/api/test/events.spec.ts, on this cluster.
describeLiveEvents('GET /v1/events on a Redis Cluster', () => ({ REDIS_URL: redisCluster.url }));
