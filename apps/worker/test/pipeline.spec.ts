import type { INestApplication } from '@nestjs/common';
import { type KubernetesList, seededRandom } from '@zw/core';
import { createPrismaClient, type PrismaClient, recordAudit, registerCluster } from '@zw/db';
import { enqueueSnapshot, MAINTENANCE_QUEUE, RETENTION_JOB, SNAPSHOTS_QUEUE, SWEEP_JOB } from '@zw/queue';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { fixesAt, historyOf } from '../../../test/support/history.js';
import { buildApps, type RunningProcess, startApp } from '../../../test/support/processes.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { capturedAt, fleet, timeline } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { createApiApp } from '../../api/src/http-app.js';
import { analyzeDocument } from '../src/snapshot-analysis.js';

/**
 * The pipeline end to end with real processes: the API (in this process) stores and queues, compiled
 * workers (`node dist/apps/worker/main.js` child processes) record history in the real Postgres, through
 * the real Redis. Each scenario uses its own cluster.
 */

let db: TestDatabase;
let prisma: PrismaClient;
let prefix: string;
let api: INestApplication;
let url: string;
let queue: Queue;
const workers: RunningProcess[] = [];

function workerEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    WORKER_CONCURRENCY: '2',
    WORKER_LOCK_DURATION_MS: '2000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    JOB_BACKOFF_MS: '200',
    SWEEP_EVERY_MS: '500',
    SWEEP_GRACE_MS: '1000',
    DB_POOL_MAX: '5',
    ...overrides,
  };
}

function startWorker(overrides: Record<string, string> = {}): RunningProcess {
  const worker = startApp('worker', workerEnv(overrides));
  workers.push(worker);
  return worker;
}

async function newCluster(name: string, organizationSlug = 'pipeline') {
  const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug, name });
  return { id: cluster.id, token: agentToken };
}

async function push(list: KubernetesList, token: string): Promise<string> {
  const response = await fetch(`${url}/v1/ingest/snapshots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(list),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { snapshotId: string }).snapshotId;
}

async function statusOf(snapshotId: string) {
  return prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } });
}

async function waitProcessed(snapshotIds: string[], timeoutMs = 30_000): Promise<void> {
  await waitFor(
    `${snapshotIds.length} snapshots processed`,
    async () =>
      (await prisma.snapshot.count({ where: { id: { in: snapshotIds }, status: 'processed' } })) === snapshotIds.length,
    timeoutMs,
  );
}

function withoutService(list: KubernetesList, name: string): KubernetesList {
  const owned = (item: KubernetesList['items'][number]) =>
    item.kind === 'Service'
      ? item.metadata.name === name
      : item.metadata.labels?.['kubernetes.io/service-name'] === name;
  return { ...list, items: list.items.filter((item) => !owned(item)) };
}

function shuffled<T>(items: T[], seed: number): T[] {
  const random = seededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

beforeAll(async () => {
  buildApps();
  db = await createTestDatabase('pipeline');
  prefix = uniquePrefix('pipeline');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 4 });
  Object.assign(process.env, {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    JOB_BACKOFF_MS: '200',
  });
  api = await createApiApp({ logger: ['error'] });
  await api.listen(0, '127.0.0.1');
  url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
  queue = new Queue(SNAPSHOTS_QUEUE, { connection: new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null }), prefix });
}, 120_000);

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});

afterAll(async () => {
  await queue?.close();
  await api?.close();
  await prisma?.$disconnect();
  await deletePrefixKeys(prefix);
  await db?.drop();
});

const hourAgo = () => new Date(Date.now() - 3600_000);

describe('snapshot pipeline', () => {
  it('gives the same history from a shuffled sequence on two workers as from one-by-one in captured-at order', async () => {
    const sequence = timeline(16, 40, 3, hourAgo());
    const reference = await newCluster('in-order');
    const shuffledCluster = await newCluster('shuffled');
    startWorker();
    startWorker();

    for (const list of sequence) await waitProcessed([await push(list, reference.token)]);

    // Newest first, then the rest in a scrambled order, all at once: both workers pick them up concurrently.
    const arrival = [sequence[sequence.length - 1], ...shuffled(sequence.slice(0, -1), 42)];
    const ids = await Promise.all(arrival.map((list) => push(list, shuffledCluster.token)));
    await waitProcessed(ids);

    const expected = await historyOf(prisma, reference.id);
    const actual = await historyOf(prisma, shuffledCluster.id);
    expect(expected.summaries).toHaveLength(16);
    expect(expected.intervals.length).toBeGreaterThan(40); // the sequence really changes over time
    expect(actual).toEqual(expected);
    // The fixes each worker thread reused from earlier snapshots, stored once per distinct content and
    // named by the intervals, are those computed fresh for each snapshot.
    for (const [index, list] of sequence.entries()) {
      const fresh = new Map(
        analyzeDocument(structuredClone(list)).services.flatMap((state) =>
          state.fixes ? [[`${state.namespace}/${state.name}`, JSON.parse(state.fixes.json) as unknown]] : [],
        ),
      );
      expect(fresh.size).toBeGreaterThan(0);
      expect(await fixesAt(prisma, shuffledCluster.id, actual.summaries[index].capturedAt)).toEqual(fresh);
    }

    // And it really was out of order: some snapshot got recorded after a later-captured one.
    const recorded = await prisma.snapshot.findMany({
      where: { clusterId: shuffledCluster.id },
      orderBy: { processedAt: 'asc' },
      select: { capturedAt: true },
    });
    const inversions = recorded.filter((row, i) => i > 0 && row.capturedAt < recorded[i - 1].capturedAt);
    expect(inversions.length).toBeGreaterThan(0);
  }, 90_000);

  it('gives the same history when every other snapshot repeats its predecessor, shuffled and late, as in order', async () => {
    // A worker reuses the analysis of the input it analysed last for a cluster (RecentAnalyses): snapshots
    // whose predecessor was not recorded yet when they were claimed take it, in any order.
    const start = hourAgo().getTime();
    const sequence = timeline(8, 30, 3, new Date(start)).flatMap((list, i) => [
      capturedAt(list, new Date(start + i * 120_000)),
      capturedAt(list, new Date(start + i * 120_000 + 60_000)),
    ]);
    const reference = await newCluster('repeats-in-order');
    const scrambled = await newCluster('repeats-shuffled');
    startWorker();
    startWorker();
    for (const list of sequence) await waitProcessed([await push(list, reference.token)]);

    // Half of them shuffled at once on both workers, then the other half, late (as a re-drive brings them).
    const arrival = shuffled(sequence, 7);
    const early = await Promise.all(arrival.slice(0, 8).map((list) => push(list, scrambled.token)));
    await waitProcessed(early);
    const late = await Promise.all(arrival.slice(8).map((list) => push(list, scrambled.token)));
    await waitProcessed(late);

    const expected = await historyOf(prisma, reference.id);
    expect(expected.summaries).toHaveLength(16);
    expect(await historyOf(prisma, scrambled.id)).toEqual(expected);
  }, 90_000);

  it('records a snapshot exactly once when its worker is SIGKILLed mid-transaction', async () => {
    const cluster = await newCluster('killed-mid-tx');
    const list = capturedAt(fleet(30, 3), hourAgo());
    const doomed = startWorker({ WORKER_FAULT: 'hold-before-commit:60000' });
    const snapshotId = await push(list, cluster.token);

    await waitFor('the worker to hold its write transaction open', async () => {
      const [row] = await prisma.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND a.datname = ${db.name}`;
      return row.n > 0n;
    });
    await doomed.kill('SIGKILL');
    expect(doomed.child.signalCode).toBe('SIGKILL');
    expect((await statusOf(snapshotId)).status).toBe('processing');
    expect(await prisma.serviceInterval.count({ where: { clusterId: cluster.id } })).toBe(0);

    startWorker();
    await waitProcessed([snapshotId]);
    const services = list.items.filter((item) => item.kind === 'Service').length;
    expect(await prisma.serviceInterval.count({ where: { clusterId: cluster.id } })).toBe(services);
    expect(await prisma.snapshotSummary.count({ where: { clusterId: cluster.id } })).toBe(1);
    expect((await statusOf(snapshotId)).attempts).toBe(2);
  });

  it('writes nothing twice when its worker is SIGKILLed after commit, before the job completes', async () => {
    const cluster = await newCluster('killed-after-commit');
    const list = capturedAt(fleet(30, 3), hourAgo());
    const doomed = startWorker({ WORKER_FAULT: 'kill-after-commit' });
    // Booted first: on a loaded machine a process still starting up may miss renewing the short (2 s)
    // test lock, and a job taken back from a live worker is claimed twice.
    await waitFor('the worker to start', async () => doomed.output().includes('worker started'), 60_000);
    const snapshotId = await push(list, cluster.token);
    await doomed.exited();
    expect(doomed.child.signalCode).toBe('SIGKILL');
    expect((await statusOf(snapshotId)).status).toBe('processed');
    const before = await historyOf(prisma, cluster.id);
    expect(await queue.getJobState(snapshotId)).toBe('active'); // BullMQ never heard back

    startWorker(); // takes the stalled job back and runs it again
    await waitFor('the stalled job to be re-run to completion', async () => {
      const state = await queue.getJobState(snapshotId);
      return state === 'completed' || state === 'unknown';
    });
    expect(await historyOf(prisma, cluster.id)).toEqual(before);
    expect((await statusOf(snapshotId)).attempts).toBe(1);
  });

  it('re-enqueues every waiting snapshot when Redis lost its data before a worker started', async () => {
    const cluster = await newCluster('redis-flushed');
    const sequence = timeline(5, 10, 2, hourAgo());
    const ids: string[] = [];
    for (const list of sequence) ids.push(await push(list, cluster.token));
    expect(await queue.getJobState(ids[0])).toBe('waiting');

    expect(await deletePrefixKeys(prefix)).toBeGreaterThan(0); // a Redis restart without persistence
    expect(await queue.getJobState(ids[0])).toBe('unknown');

    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the sweeper's grace period
    startWorker();
    await waitProcessed(ids);
    expect(await prisma.snapshotSummary.count({ where: { clusterId: cluster.id } })).toBe(5);
  });

  it('re-creates its schedules and sweeps when Redis loses its data under a running worker', async () => {
    const cluster = await newCluster('redis-flushed-live');
    startWorker();
    await waitProcessed([await push(capturedAt(fleet(3, 2), hourAgo()), cluster.token)]);
    const maintenance = new Queue(MAINTENANCE_QUEUE, { connection: queue.opts.connection, prefix });
    try {
      const schedulers = async () =>
        Promise.all([SWEEP_JOB, RETENTION_JOB].map(async (name) => Boolean(await maintenance.getJobScheduler(name))));
      await waitFor('the schedules', async () => (await schedulers()).every(Boolean));
      await deletePrefixKeys(prefix); // Redis restarted empty under the running worker
      expect(await schedulers()).toEqual([false, false]);

      // A snapshot stored while its job was lost (e.g. accepted by an API whose Redis was down).
      const lost = await prisma.snapshot.create({
        data: {
          clusterId: cluster.id,
          capturedAt: new Date(Date.now() - 1800_000),
          receivedAt: new Date(Date.now() - 60_000),
          statusChangedAt: new Date(Date.now() - 60_000),
          contentHash: new Uint8Array(createHash('sha256').update('lost').digest()),
          sizeBytes: 1,
          payload: { create: { gzip: new Uint8Array(gzipSync(JSON.stringify(capturedAt(fleet(4, 2), hourAgo())))) } },
        },
      });
      await waitProcessed([lost.id], 15_000);
      // A sweep job already running when the keys vanished may find the lost snapshot before the
      // watchdog's next check (and bring its own schedule back as it completes): every schedule returns.
      await waitFor('every schedule re-created', async () => (await schedulers()).every(Boolean));

      // One schedule lost, the sweep's still there: it returns too.
      await maintenance.removeJobScheduler(RETENTION_JOB);
      expect(await schedulers()).toEqual([true, false]);
      await waitFor('the retention schedule re-created', async () => (await schedulers()).every(Boolean));
    } finally {
      await maintenance.close();
    }
  });

  it('marks a snapshot that can never be processed failed, with its reason, without blocking later ones', async () => {
    const cluster = await newCluster('poison');
    startWorker();
    const base = hourAgo().getTime();
    const before = await push(capturedAt(fleet(6, 2), new Date(base)), cluster.token);
    const poison = await prisma.snapshot.create({
      data: {
        clusterId: cluster.id,
        capturedAt: new Date(base + 60_000),
        contentHash: new Uint8Array(createHash('sha256').update('poison').digest()),
        sizeBytes: 10,
        payload: { create: { gzip: new Uint8Array(Buffer.from('definitely not gzip')) } },
      },
    });
    await enqueueSnapshot(queue, { snapshotId: poison.id, clusterId: cluster.id }, { attempts: 5, backoffMs: 200 });
    const after = await push(capturedAt(fleet(7, 2), new Date(base + 120_000)), cluster.token);

    await waitProcessed([before, after]);
    const failed = await waitFor('poison marked failed', async () => {
      const row = await statusOf(poison.id);
      return row.status === 'failed' ? row : null;
    });
    expect(failed.error).toMatch(/not valid gzip/);
    expect(failed.attempts).toBe(1); // a permanent error is not retried
    const summaries = await prisma.snapshotSummary.findMany({ where: { clusterId: cluster.id } });
    expect(summaries.map((s) => s.snapshotId).sort()).toEqual([before, after].sort());
  });

  describe('a snapshot that repeats the input of the one before it', () => {
    // Its payload is deleted before any worker runs: only a snapshot recorded without analysis can pass.
    async function pushWithoutPayload(list: KubernetesList, token: string): Promise<string> {
      const snapshotId = await push(list, token);
      await prisma.snapshotPayload.deleteMany({ where: { snapshotId } });
      return snapshotId;
    }

    it('is recorded without analysis: no interval changes, the same summary as its predecessor', async () => {
      const cluster = await newCluster('repeat');
      const list = fleet(8, 3);
      const base = hourAgo().getTime();
      const first = await push(capturedAt(list, new Date(base)), cluster.token);
      const worker = startWorker();
      await waitProcessed([first]);
      await worker.stop();
      const intervalsBefore = await prisma.serviceInterval.findMany({ where: { clusterId: cluster.id } });

      const repeat = await pushWithoutPayload(capturedAt(list, new Date(base + 60_000)), cluster.token);
      startWorker();
      await waitProcessed([repeat]);
      expect(await prisma.serviceInterval.findMany({ where: { clusterId: cluster.id } })).toEqual(intervalsBefore);
      const summaries = await prisma.snapshotSummary.findMany({
        where: { clusterId: cluster.id },
        orderBy: { capturedAt: 'asc' },
        omit: { snapshotId: true, capturedAt: true },
      });
      expect(summaries).toHaveLength(2);
      expect(summaries[1]).toEqual(summaries[0]);
      expect(summaries[0].analyzer).toMatch(/^sha256:/);
    });

    it('is analysed when a later snapshot is recorded already, or the states came from another analyzer', async () => {
      const cluster = await newCluster('repeat-analysed');
      const list = fleet(8, 3);
      const base = hourAgo().getTime();
      const first = await push(capturedAt(list, new Date(base)), cluster.token);
      const third = await push(capturedAt(list, new Date(base + 120_000)), cluster.token);
      const worker = startWorker();
      await waitProcessed([first, third]);
      await worker.stop();

      const late = await pushWithoutPayload(capturedAt(list, new Date(base + 60_000)), cluster.token);
      await prisma.snapshotSummary.updateMany({ where: { snapshotId: third }, data: { analyzer: 'an older build' } });
      const afterUpgrade = await pushWithoutPayload(capturedAt(list, new Date(base + 180_000)), cluster.token);
      startWorker();
      for (const snapshotId of [late, afterUpgrade]) {
        const failed = await waitFor('analysis attempted', async () => {
          const row = await statusOf(snapshotId);
          return row.status === 'failed' ? row : null;
        });
        expect(failed.error).toMatch(/raw payload is gone/);
      }
    });
  });

  it('retries with backoff when the cluster lock cannot be had, then records the snapshot', async () => {
    const cluster = await newCluster('retried');
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [cluster.id]);
    startWorker({ WORKER_LOCK_WAIT_MS: '300', JOB_BACKOFF_MS: '200' });
    const snapshotId = await push(capturedAt(fleet(5, 2), hourAgo()), cluster.token);
    try {
      await waitFor('two failed attempts', async () => (await statusOf(snapshotId)).attempts >= 2);
      expect((await statusOf(snapshotId)).status).toBe('processing');
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
    await waitProcessed([snapshotId]);
    const done = await statusOf(snapshotId);
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(done.error).toBeNull();
  });

  it('prunes raw payloads, old per-snapshot rows and old reports past their retention, with a repeatable job', async () => {
    const cluster = await newCluster('retention', 'keep-short');
    const keeper = await newCluster('retention-keeper', 'keep-long');
    await prisma.organization.update({ where: { slug: 'keep-long' }, data: { payloadRetentionDays: 30 } });
    const now = Date.now();
    const base = fleet(12, 2);
    // 100 minutes ago some Services changed and svc-00001 went away for good.
    const changed = withoutService(timeline(2, 12, 2, new Date(now))[1], 'svc-00001');
    const ids = {
      old: await push(capturedAt(base, new Date(now - 120 * 60_000)), cluster.token),
      older: await push(capturedAt(changed, new Date(now - 100 * 60_000)), cluster.token),
      recent: await push(capturedAt(changed, new Date(now - 10 * 60_000)), cluster.token),
      kept: await push(capturedAt(base, new Date(now - 5 * 60_000)), keeper.token),
    };
    startWorker();
    await waitProcessed(Object.values(ids));
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));

    // Time passes: these were received two days ago. A snapshot still waits, just as old.
    await prisma.snapshot.updateMany({
      where: { id: { in: [ids.old, ids.older, ids.kept] } },
      data: { receivedAt: new Date(now - 2 * 86_400_000) },
    });
    const waiting = await prisma.snapshot.create({
      data: {
        clusterId: cluster.id,
        capturedAt: new Date(now - 180 * 60_000),
        receivedAt: new Date(now - 2 * 86_400_000),
        contentHash: new Uint8Array(createHash('sha256').update('waiting').digest()),
        sizeBytes: 2,
        payload: { create: { gzip: new Uint8Array(gzipSync('{}')) } },
      },
    });
    const closedBeforeCutoff = () =>
      prisma.serviceInterval.count({ where: { clusterId: cluster.id, validTo: { lt: new Date(now - 72 * 60_000) } } });
    const intervalsBefore = await prisma.serviceInterval.count({ where: { clusterId: cluster.id } });
    const closedEarly = await closedBeforeCutoff();
    const servicesBefore = await prisma.clusterService.count({ where: { clusterId: cluster.id } });
    expect(closedEarly).toBeGreaterThan(0);

    // Audit entries: one past AUDIT_LOG_RETENTION_DAYS (10), one within it.
    const { organizationId } = await prisma.cluster.findUniqueOrThrow({ where: { id: cluster.id } });
    const actor = { type: 'admin_cli' as const, keyId: null, name: 'ops', clientAddress: null };
    await recordAudit(prisma, actor, { organizationId, action: 'cluster.create', targetType: 'cluster' });
    await recordAudit(prisma, actor, { organizationId, action: 'cluster.update', targetType: 'cluster' });
    await prisma.auditLogEntry.updateMany({
      where: { organizationId, action: 'cluster.create' },
      data: { at: new Date(now - 11 * 86_400_000) },
    });

    // Reports of a schedule: one whose period ended past REPORT_RETENTION_DAYS (10), and the schedule's
    // newest scheduled report, as old: it stays, since the scheduler counts the periods due from it.
    const { id: scheduleId } = await prisma.reportSchedule.create({
      data: {
        organizationId,
        name: 'retained',
        cadence: 'daily',
        cronExpression: '0 0 * * *',
        timeZone: 'UTC',
        formats: ['json'],
        enabled: false,
        anchorAt: new Date(now - 30 * 86_400_000),
      },
    });
    const reportOf = (daysAgo: number, trigger: 'manual' | 'schedule') =>
      prisma.report.create({
        data: {
          organizationId,
          scheduleId,
          periodStart: new Date(now - (daysAgo + 1) * 86_400_000),
          periodEnd: new Date(now - daysAgo * 86_400_000),
          trigger,
          status: 'ready',
          formats: ['json'],
          documentJson: '{}',
        },
      });
    const oldReport = await reportOf(12, 'manual');
    const newestScheduled = await reportOf(11, 'schedule');

    // 1 day of payloads, 0.05 days (72 min) of history; the sweeper must leave the waiting one alone here.
    startWorker({
      AUDIT_LOG_RETENTION_DAYS: '10',
      REPORT_RETENTION_DAYS: '10',
      PAYLOAD_RETENTION_DAYS: '1',
      HISTORY_RETENTION_DAYS: '0.05',
      RETENTION_EVERY_MS: '1000',
      SWEEP_GRACE_MS: '3600000',
    });
    await waitFor(
      'retention to run',
      async () => (await prisma.snapshot.count({ where: { id: ids.old } })) === 0 && (await closedBeforeCutoff()) === 0,
    );

    const payloads = new Set(
      (await prisma.snapshotPayload.findMany({ select: { snapshotId: true } })).map((p) => p.snapshotId),
    );
    await waitFor(
      'the old audit entry to go',
      async () => (await prisma.auditLogEntry.count({ where: { organizationId } })) === 1,
    );
    expect((await prisma.auditLogEntry.findFirstOrThrow({ where: { organizationId } })).action).toBe('cluster.update');
    await waitFor(
      'the old report to go',
      async () => (await prisma.report.count({ where: { id: oldReport.id } })) === 0,
    );
    expect(await prisma.report.count({ where: { id: newestScheduled.id } })).toBe(1);
    expect(payloads.has(ids.recent)).toBe(true); // received just now
    expect(payloads.has(ids.kept)).toBe(true); // its organization keeps payloads 30 days
    expect(payloads.has(waiting.id)).toBe(true); // never prune what still waits
    const remaining = new Set((await prisma.snapshot.findMany({ select: { id: true } })).map((s) => s.id));
    expect(remaining.has(ids.older)).toBe(false); // captured 100 min ago: past 72 min of history
    expect(remaining.has(ids.recent)).toBe(true);
    expect(remaining.has(waiting.id)).toBe(true);
    expect(await prisma.snapshotSummary.count({ where: { clusterId: cluster.id } })).toBe(1);
    expect(await prisma.serviceInterval.count({ where: { clusterId: cluster.id } })).toBe(
      intervalsBefore - closedEarly,
    );
    // svc-00001's only interval ended 100 minutes ago: nothing of it is left.
    expect(await prisma.clusterService.count({ where: { clusterId: cluster.id } })).toBe(servicesBefore - 1);
    expect(await prisma.clusterService.count({ where: { clusterId: cluster.id, name: 'svc-00001' } })).toBe(0);
  });
});
