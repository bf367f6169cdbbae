import { gzipSync } from 'node:zlib';
import { generateFleetSnapshot, type KubernetesList } from '@zw/core';
import { type PrismaClient, registerCluster } from '@zw/db';
import { Redis } from 'ioredis';
import { inParallel, REDIS_URL, stop, waitUntil, withBenchStack, withCapturedAt } from './local-stack.js';

/**
 * What one cluster costs in storage, for the deployment guide's sizing table (docs/deployment.md): a day
 * of a mid-size cluster (300 Services, 3,000 endpoints) as its agent sends it, a snapshot every 5 minutes
 * (the agent's heartbeat, --push-max-interval) with 7 Services' topology changed every other hour and
 * changed back the hour after, through the real API and worker. Measured:
 *  - throughput: the day's pushes through one API (from a few clients at once), and one worker
 *    recording the day's queue;
 *  - Redis: bytes a waiting snapshot job holds (the day queued with no worker running), and bytes a
 *    finished job holds while BullMQ keeps it (snapshotJobOptions: an hour, at most 10,000);
 *  - PostgreSQL: bytes the cluster's first snapshot adds (its current state), and bytes the rest of the
 *    day adds, per table, live rows after VACUUM FULL (what retention keeps: raw payloads
 *    PAYLOAD_RETENTION_DAYS, snapshot rows and history HISTORY_RETENTION_DAYS).
 */

const MID_SIZE = { nodes: 60, zones: 3, services: 300, endpointsPerService: 10 };
const SNAPSHOTS_PER_DAY = 288;
const CHANGE_EVERY = 12;
const CHANGED_SERVICES = 7;
const PUSHERS = 4;

interface TableSizes {
  [table: string]: number;
}

export async function runSizingBench(): Promise<string[]> {
  return withBenchStack('sizing', { poolMax: 2 }, async ({ prisma, prefix, startApi, startWorker }) => {
    const redis = new Redis(REDIS_URL);
    const apiUrl = await startApi({ INGEST_RATE_LIMIT_REQUESTS: '100000000', INGEST_RATE_LIMIT_BURST: '100000000' });
    try {
      const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug: 'sizing', name: 'mid-size' });
      const day = dayOfSnapshots();

      const empty = await tableSizes(prisma);
      await push(apiUrl, agentToken, day[0]!);
      const worker = startWorker();
      await waitUntil(async () => (await processed(prisma, cluster.id)) === 1, 120_000, 100);
      await stop(worker);
      const first = await tableSizes(prisma);
      const retainedBefore = await queueBytes(redis, prefix);

      const pushing = performance.now();
      await inParallel(day.slice(1), PUSHERS, (body) => push(apiUrl, agentToken, body));
      const pushesPerSecond = (day.length - 1) / ((performance.now() - pushing) / 1000);
      const queued = await queueBytes(redis, prefix);
      const waitingJobs = await redis.llen(`${prefix}:snapshots:wait`);
      const secondWorker = startWorker();
      await waitUntil(async () => (await processed(prisma, cluster.id)) === day.length, 300_000, 250);
      await stop(secondWorker);
      const [span] = await prisma.$queryRaw<{ first: Date; last: Date }[]>`
      SELECT min(processed_at) AS first, max(processed_at) AS last FROM snapshots
       WHERE cluster_id = ${cluster.id}::uuid AND captured_at > (SELECT min(captured_at) FROM snapshots)`;
      const workerPerSecond = (day.length - 2) / ((span!.last.getTime() - span!.first.getTime()) / 1000);
      const completedJobs = await redis.zcard(`${prefix}:snapshots:completed`);
      const retained = await queueBytes(redis, prefix);
      const after = await tableSizes(prisma);

      const [payload] = await prisma.$queryRaw<{ bytes: number; documents: number; fixes: number }[]>`
      SELECT (SELECT avg(pg_column_size(p.*)) FROM snapshot_payloads p)::float8 AS bytes,
             (SELECT count(*) FROM analysis_documents)::int AS documents,
             (SELECT count(*) FROM service_fix_contents)::int AS fixes`;
      const perJobWaiting = (queued.jobs - retainedBefore.jobs) / waitingJobs;
      const perJobRetained = retained.jobs / completedJobs;
      const fixed = total(first) - total(empty);
      const daily = total(after) - total(first);
      const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
      const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
      const breakdown = Object.keys(after)
        .map((table) => ({ table, bytes: after[table]! - first[table]! }))
        .filter((entry) => entry.bytes > 0)
        .sort((a, b) => b.bytes - a.bytes)
        .map((entry) => `${entry.table} ${kib(entry.bytes)}`)
        .join(', ');
      return [
        `sizing: one mid-size cluster (${MID_SIZE.services} Services, ${MID_SIZE.services * MID_SIZE.endpointsPerService} endpoints), a day of snapshots every 5 min (${day.length}), ${CHANGED_SERVICES} Services changed every other hour and back the hour after`,
        `sizing: throughput: one API took the day's gzip pushes at ${pushesPerSecond.toFixed(0)}/s from ${PUSHERS} clients; one worker (concurrency 2) recorded them at ${workerPerSecond.toFixed(1)} snapshots/s`,
        `sizing: Redis: ${perJobWaiting.toFixed(0)} B per waiting snapshot job (${waitingJobs} queued: ${kib(queued.jobs - retainedBefore.jobs)} of job keys; the queue's event stream ${kib(queued.events)}, capped by BullMQ); ${perJobRetained.toFixed(0)} B per finished job kept (${completedJobs} kept)`,
        `sizing: PostgreSQL: the cluster's first snapshot ${kib(fixed)} (its current state); each further day ${mib(daily)} (${(daily / (day.length - 1)).toFixed(0)} B per snapshot), live rows after VACUUM FULL: ${breakdown}`,
        `sizing: PostgreSQL: a raw payload (gzip) ${kib(payload!.bytes)} per snapshot, kept PAYLOAD_RETENTION_DAYS; the rest of the day's rows are kept HISTORY_RETENTION_DAYS; ${payload!.documents} analysis documents, ${payload!.fixes} distinct fix contents of a Service (${kib(after.service_fix_contents! - first.service_fix_contents!)} added over the day)`,
      ];
    } finally {
      redis.disconnect();
    }
  });
}

/** A day of one cluster's gzip snapshots, 5 minutes apart, some Services' topology toggled every hour. */
function dayOfSnapshots(): Buffer[] {
  const base = generateFleetSnapshot({ ...MID_SIZE, autoShare: 0.5, seed: 5 });
  const start = Date.now() - (SNAPSHOTS_PER_DAY + 1) * 300_000;
  return Array.from({ length: SNAPSHOTS_PER_DAY }, (_, i) => {
    const hour = Math.floor(i / CHANGE_EVERY);
    const list = toggleTopology(base, (hour * CHANGED_SERVICES) % MID_SIZE.services, hour % 2 ? CHANGED_SERVICES : 0);
    return gzipSync(JSON.stringify(withCapturedAt(list, new Date(start + i * 300_000))), { level: 6 });
  });
}

function toggleTopology(list: KubernetesList, from: number, count: number): KubernetesList {
  let seen = 0;
  const items = list.items.map((item) => {
    if (item.kind !== 'Service' || !item.metadata.name.startsWith('svc-')) return item;
    const index = seen++;
    if (index < from || index >= from + count) return item;
    const annotations = { ...item.metadata.annotations };
    if (annotations['service.kubernetes.io/topology-mode']) delete annotations['service.kubernetes.io/topology-mode'];
    else annotations['service.kubernetes.io/topology-mode'] = 'Auto';
    return { ...item, metadata: { ...item.metadata, annotations } };
  });
  return { ...list, items };
}

async function push(apiUrl: string, token: string, gzipBody: Buffer): Promise<void> {
  const response = await fetch(`${apiUrl}/v1/ingest/snapshots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipBody,
  });
  if (response.status !== 202) throw new Error(`sizing: push answered ${response.status}: ${await response.text()}`);
}

async function processed(prisma: PrismaClient, clusterId: string): Promise<number> {
  const failed = await prisma.snapshot.findFirst({ where: { clusterId, status: 'failed' }, select: { error: true } });
  if (failed) throw new Error(`sizing: a snapshot failed: ${failed.error}`);
  return prisma.snapshot.count({ where: { clusterId, status: 'processed' } });
}

/**
 * Live bytes (tables, TOAST, indexes) of every table, after VACUUM FULL rewrote them compactly; a
 * partitioned table's partitions count as the table.
 */
async function tableSizes(prisma: PrismaClient): Promise<TableSizes> {
  await prisma.$executeRawUnsafe('VACUUM FULL');
  const rows = await prisma.$queryRaw<{ table: string; bytes: bigint }[]>`
    SELECT coalesce(pg_partition_root(c.oid)::regclass::text, c.relname) AS table,
           sum(pg_total_relation_size(c.oid))::bigint AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
     GROUP BY 1`;
  return Object.fromEntries(rows.map((row) => [row.table, Number(row.bytes)]));
}

const total = (sizes: TableSizes) => Object.values(sizes).reduce((sum, bytes) => sum + bytes, 0);

/** Bytes (MEMORY USAGE) of the snapshot queue's keys: its jobs and lists, and apart its event stream. */
async function queueBytes(redis: Redis, prefix: string): Promise<{ jobs: number; events: number }> {
  let jobs = 0;
  let events = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:snapshots:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const bytes = Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
      if (key === `${prefix}:snapshots:events`) events += bytes;
      else jobs += bytes;
    }
  } while (cursor !== '0');
  return { jobs, events };
}

if (require.main === module) {
  runSizingBench().then(
    (lines) => lines.forEach((line) => console.log(line)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
