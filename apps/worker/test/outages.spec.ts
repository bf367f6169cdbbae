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
import { killedItsWorkersReason } from '../src/sweeper.service.js';

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
/** The worker's WORKER_LOCK_DURATION_MS when it is not set (apps/worker/src/config.ts). */
const DEFAULT_LOCK_DURATION_MS = 10_000;
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
  await waitJobsCompleted(ids);
  const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
  const spent = jobs.filter((job) => job && job.attemptsMade !== 1).map((job) => [job!.id, job!.attemptsMade]);
  expect(spent).toEqual([]);
  expect(await prisma.snapshotSummary.count({ where: { clusterId } })).toBe(BACKLOG);
  expect(await historyOf(prisma, clusterId)).toEqual(await historyOf(prisma, referenceId));
}

/** Postgres says processed before BullMQ hears back: wait for the jobs' own completion. */
async function waitJobsCompleted(ids: string[]): Promise<void> {
  await waitFor(`${ids.length} jobs completed`, async () => {
    const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
    return states.every((state) => state === 'completed');
  });
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
  // One agent token pushes the whole backlog at once: lift its ingest rate limit, which is not under test.
  Object.assign(process.env, {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    INGEST_RATE_LIMIT_REQUESTS: String(10 * BACKLOG),
  });
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null }).on('error', () => undefined);
  queue = new Queue(SNAPSHOTS_QUEUE, { connection, prefix }).on('error', () => undefined);
}, 120_000);

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});

afterAll(async () => {
  await queue?.close();
  await prisma?.$disconnect();
  await Promise.all([postgres?.dispose(), redis?.dispose()]);
});

describe('outages under a backlog', () => {
  beforeAll(async () => {
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

  it(`processes a backlog of ${BACKLOG} exactly once through a ${OUTAGE_MS / 1000} s Postgres outage`, async () => {
    const cluster = await newCluster('postgres-outage');
    const ids = await pushAll(sequence, cluster.token);
    const first = startWorker();
    await waitFor('the backlog to be under way', async () => (await processedCount(ids)) >= 10, 60_000, 50);

    await postgres.stop();
    const stoppedAt = Date.now();
    // A worker restarted mid-outage (a deploy) hands the jobs it waits with back, spending no attempt.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    await first.stop();
    const second = startWorker();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (Date.now() - stoppedAt)));
    await postgres.start();
    const restartedAt = Date.now();

    await waitProcessed(ids, 90_000);
    console.log(`backlog done ${Date.now() - restartedAt} ms after Postgres came back`);
    await expectProcessedExactlyOnce(ids, cluster.id, reference.id);
    expect(first.output()).toMatch(/Postgres unreachable/);
    expect(second.output()).toMatch(/Postgres unreachable/);
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

/** Waits until the worker(s) hold `count` write transactions open (the hold-before-commit fault). */
async function waitHeldTransactions(count: number): Promise<void> {
  await waitFor(`${count} write transaction(s) held open`, async () => {
    const [row] = await prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND a.datname = ${db.name}`;
    return row.n >= BigInt(count);
  });
}

/** Milliseconds left on a job's lock (-2: no lock any more), read straight from Redis. */
async function lockTimeLeft(jobId: string): Promise<number> {
  const client = new Redis(redis.url);
  try {
    return await client.pttl(`${prefix}:${SNAPSHOTS_QUEUE}:${jobId}:lock`);
  } finally {
    client.disconnect();
  }
}

describe('a worker killed mid-job', () => {
  it('leaves its snapshot to another worker once its default lock lapses, and it is processed once', async () => {
    const cluster = await newCluster('killed');
    const list = capturedAt(fleet(20, 2), new Date(Date.now() - 3600_000));
    const lockDefaults = { WORKER_LOCK_DURATION_MS: '', WORKER_STALLED_INTERVAL_MS: '' };
    const doomed = startWorker({ ...lockDefaults, WORKER_FAULT: 'hold-before-commit:60000' });
    const [snapshotId] = await pushAll([list], cluster.token);
    await waitHeldTransactions(1);

    await doomed.kill('SIGKILL');
    // Nobody renews the job's lock any more: it lapses by itself within the default lock duration (or
    // already has), and the next stalled check hands the job on. An outcome, not a timing: a loaded
    // machine only makes the hand-over later.
    const lockTtl = await lockTimeLeft(snapshotId);
    expect(lockTtl === -2 || (lockTtl > 0 && lockTtl <= DEFAULT_LOCK_DURATION_MS)).toBe(true);
    startWorker(lockDefaults);
    await waitProcessed([snapshotId], 120_000);
    expect(await prisma.snapshotSummary.count({ where: { clusterId: cluster.id } })).toBe(1);
  }, 180_000);

  it('is re-driven by the sweeper, not failed, when BullMQ gives up on it; one that keeps killing workers fails', async () => {
    const survivor = await newCluster('stalled-survivor');
    const killer = await newCluster('stalled-killer');
    const noStallRecovery = { WORKER_MAX_STALLED_COUNT: '0' }; // BullMQ fails a job on its first stall
    const doomed = startWorker({ ...noStallRecovery, WORKER_FAULT: 'hold-before-commit:60000' });
    const hourAgo = new Date(Date.now() - 3600_000);
    const [survivorId] = await pushAll([capturedAt(fleet(6, 2), hourAgo)], survivor.token);
    const [killerId] = await pushAll([capturedAt(fleet(7, 2), hourAgo)], killer.token);
    await waitHeldTransactions(2);
    await doomed.kill('SIGKILL');
    // As if this one had been taken up by every try and every stall recovery, and killed its worker each time.
    await prisma.snapshot.update({ where: { id: killerId }, data: { attempts: 99 } });

    const worker = startWorker(noStallRecovery);
    await waitProcessed([survivorId], 30_000);
    const failed = await waitFor('the worker killer to be failed', async () => {
      const row = await prisma.snapshot.findUniqueOrThrow({ where: { id: killerId } });
      return row.status === 'failed' ? row : null;
    });
    // Outcomes only: which of BullMQ's paths gave the job up (a stall check, a failure on a loaded
    // machine) depends on timing, and is only logged.
    expect(failed.error).toBe(killedItsWorkersReason(99));
    const survived = await prisma.snapshot.findUniqueOrThrow({ where: { id: survivorId } });
    // Taken up twice: by the killed worker, then once more after the sweeper re-drove it.
    expect([survived.status, survived.error, survived.attempts]).toEqual(['processed', null, 2]);
    expect(await prisma.snapshotSummary.count({ where: { clusterId: survivor.id } })).toBe(1);
    expect(worker.output()).toContain(`snapshot ${killerId}: BullMQ gave up on its job`);
  }, 60_000);
});

describe('a long job', () => {
  it('keeps its lock by heartbeat far past the lock duration, and is neither stalled nor run twice', async () => {
    const cluster = await newCluster('long-job');
    const worker = startWorker({
      WORKER_LOCK_DURATION_MS: '3000',
      WORKER_STALLED_INTERVAL_MS: '500',
      WORKER_FAULT: 'hold-before-commit:9000', // three lock durations
    });
    // Booted: a process busy starting up on a loaded machine may not renew a short lock in time.
    await waitFor('the worker to start', async () => worker.output().includes('worker started'), 60_000);
    const [snapshotId] = await pushAll([capturedAt(fleet(5, 2), new Date(Date.now() - 3600_000))], cluster.token);
    await waitProcessed([snapshotId], 30_000);
    await waitJobsCompleted([snapshotId]);
    const job = await queue.getJob(snapshotId);
    expect(job?.stalledCounter).toBe(0);
    expect(job?.attemptsMade).toBe(1);
    expect((await prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } })).attempts).toBe(1);
  }, 60_000);
});
