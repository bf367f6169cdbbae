import type { INestApplication } from '@nestjs/common';
import type { KubernetesList } from '@zw/core';
import { createPrismaClient, type PrismaClient, registerCluster } from '@zw/db';
import { SNAPSHOTS_QUEUE } from '@zw/queue';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { historyOf } from '../../../test/support/history.js';
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from '../../../test/support/private-services.js';
import { buildApps, type RunningProcess, startApp } from '../../../test/support/processes.js';
import { capturedAt, fleet, timeline } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { createApiApp } from '../../api/src/http-app.js';

/**
 * Outages of Postgres and Redis under a running worker (a compiled child process), made on a Postgres and
 * a Redis of this file's own. A backlog of accepted snapshots must come out of an outage processed
 * exactly once, with no attempt counted against any of them and the history of a fault-free run.
 */

const BACKLOG = 200;
const OUTAGE_MS = 60_000;

let postgres: PrivatePostgres;
let redis: PrivateRedis;
let db: TestDatabase;
let prisma: PrismaClient;
let queue: Queue;
const workers: RunningProcess[] = [];
const prefix = 'outages';
const sequence = timeline(BACKLOG, 10, 2, new Date(Date.now() - 6 * 3600_000));

/**
 * Aggressive retries, sweeps and stall checks: each would turn an outage into failures if it counted. An
 * override of '' leaves the setting at its default.
 */
function startWorker(overrides: Record<string, string> = {}): RunningProcess {
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    WORKER_CONCURRENCY: '2',
    JOB_BACKOFF_MS: '100',
    SWEEP_EVERY_MS: '500',
    SWEEP_GRACE_MS: '1000',
    WORKER_LOCK_DURATION_MS: '2000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    WORKER_OUTAGE_RETRY_MAX_MS: '2000',
    DB_POOL_MAX: '4',
    ...overrides,
  };
  const worker = startApp('worker', Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  workers.push(worker);
  return worker;
}

/** The API in this process, up only while snapshots are pushed (it has no part in the outages). */
async function pushAll(lists: KubernetesList[], token: string): Promise<string[]> {
  const api: INestApplication = await createApiApp({ logger: ['error'] });
  try {
    await api.listen(0, '127.0.0.1');
    const url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
    const ids: string[] = [];
    for (const list of lists) {
      const response = await fetch(`${url}/v1/ingest/snapshots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(list),
      });
      expect(response.status).toBe(202);
      ids.push(((await response.json()) as { snapshotId: string }).snapshotId);
    }
    return ids;
  } finally {
    await api.close();
  }
}

async function processedCount(ids: string[]): Promise<number> {
  return prisma.snapshot.count({ where: { id: { in: ids }, status: 'processed' } });
}

async function waitProcessed(ids: string[], timeoutMs: number): Promise<void> {
  await waitFor(
    `${ids.length} snapshots processed`,
    async () => (await processedCount(ids)) === ids.length,
    timeoutMs,
    250,
  );
}

/**
 * Every snapshot processed once, no error, no failed attempt (BullMQ counts the one that completed), and
 * the history of the reference.
 */
async function expectProcessedExactlyOnce(ids: string[], clusterId: string, referenceId: string): Promise<void> {
  const rows = await prisma.snapshot.findMany({ where: { id: { in: ids } } });
  expect(rows.filter((row) => row.status !== 'processed' || row.error !== null)).toEqual([]);
  const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
  const spent = jobs.filter((job) => job && job.attemptsMade !== 1).map((job) => [job!.id, job!.attemptsMade]);
  expect(spent).toEqual([]);
  expect(await prisma.snapshotSummary.count({ where: { clusterId } })).toBe(BACKLOG);
  expect(await historyOf(prisma, clusterId)).toEqual(await historyOf(prisma, referenceId));
}

async function newCluster(name: string) {
  const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug: 'outages', name });
  return { id: cluster.id, token: agentToken };
}

let reference: { id: string };

beforeAll(async () => {
  buildApps();
  [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  db = await createTestDatabase('outages', postgres.serverUrl);
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  Object.assign(process.env, { DATABASE_URL: db.url, REDIS_URL: redis.url, QUEUE_PREFIX: prefix });
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null }).on('error', () => undefined);
  queue = new Queue(SNAPSHOTS_QUEUE, { connection, prefix }).on('error', () => undefined);

  // The fault-free run every outage is compared with.
  const cluster = await newCluster('reference');
  const ids = await pushAll(sequence, cluster.token);
  const worker = startWorker();
  await waitProcessed(ids, 120_000);
  await worker.stop();
  workers.splice(0);
  expect((await historyOf(prisma, cluster.id)).summaries).toHaveLength(BACKLOG);
  reference = cluster;
}, 240_000);

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});

afterAll(async () => {
  await queue?.close();
  await prisma?.$disconnect();
  await Promise.all([postgres?.dispose(), redis?.dispose()]);
});

describe('outages under a backlog', () => {
  it(`processes a backlog of ${BACKLOG} exactly once through a ${OUTAGE_MS / 1000} s Postgres outage`, async () => {
    const cluster = await newCluster('postgres-outage');
    const ids = await pushAll(sequence, cluster.token);
    const worker = startWorker();
    await waitFor('the backlog to be under way', async () => (await processedCount(ids)) >= 10, 60_000, 50);

    await postgres.stop();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await postgres.start();
    const restartedAt = Date.now();

    await waitProcessed(ids, 90_000);
    console.log(`backlog done ${Date.now() - restartedAt} ms after Postgres came back`);
    await expectProcessedExactlyOnce(ids, cluster.id, reference.id);
    expect(worker.output()).toMatch(/Postgres unreachable/);
  }, 240_000);

  it(`processes a backlog of ${BACKLOG} exactly once through a ${OUTAGE_MS / 1000} s Redis outage`, async () => {
    const cluster = await newCluster('redis-outage');
    const ids = await pushAll(sequence, cluster.token);
    startWorker();
    await waitFor('the backlog to be under way', async () => (await processedCount(ids)) >= 10, 60_000, 50);

    await redis.stop();
    const during = await processedCount(ids);
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    expect(await processedCount(ids)).toBeLessThan(BACKLOG); // the outage really held the backlog up
    expect(during).toBeLessThan(BACKLOG);
    await redis.start();
    const restartedAt = Date.now();

    await waitProcessed(ids, 90_000);
    console.log(`backlog done ${Date.now() - restartedAt} ms after Redis came back`);
    await expectProcessedExactlyOnce(ids, cluster.id, reference.id);
  }, 240_000);
});

describe('a worker killed mid-job', () => {
  it('leaves its snapshot to another worker within 30 s with the default lock settings', async () => {
    const cluster = await newCluster('killed');
    const list = capturedAt(fleet(20, 2), new Date(Date.now() - 3600_000));
    const lockDefaults = { WORKER_LOCK_DURATION_MS: '', WORKER_STALLED_INTERVAL_MS: '' };
    const doomed = startWorker({ ...lockDefaults, WORKER_FAULT: 'hold-before-commit:60000' });
    const [snapshotId] = await pushAll([list], cluster.token);
    await waitFor('the worker to hold its write transaction open', async () => {
      const [row] = await prisma.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND a.datname = ${db.name}`;
      return row.n > 0n;
    });

    await doomed.kill('SIGKILL');
    const killedAt = Date.now();
    startWorker(lockDefaults);
    await waitProcessed([snapshotId], 30_000);
    const resumedAfterMs = Date.now() - killedAt;
    console.log(`a killed worker's snapshot was processed ${resumedAfterMs} ms after the kill`);
    expect(resumedAfterMs).toBeLessThan(30_000);
    expect(await prisma.snapshotSummary.count({ where: { clusterId: cluster.id } })).toBe(1);
  }, 60_000);
});
