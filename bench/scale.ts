import { Agent, get } from 'node:http';
import { gzipSync } from 'node:zlib';
import { generateFleetSnapshot, type KubernetesList } from '@zw/core';
import {
  createApiKey,
  createOrganization,
  ensurePartitions,
  intervalPartitions,
  PARTITIONED_TABLES,
  type PrismaClient,
  registerCluster,
  tableBytes,
} from '@zw/db';
import { inParallel, waitUntil, withBenchStack, withCapturedAt } from './local-stack.js';

/**
 * `BENCH_ONLY=scale npm run bench`: a fleet pushing a snapshot per cluster every five minutes over a
 * simulated stretch of time, through the real ingest path (compiled API and workers, the local PostgreSQL
 * and Redis), each push changing a few of its cluster's Services. It reports:
 *  - whether ingest keeps up: the snapshots the workers process per second against what the full fleet
 *    (1,000 clusters every 5 minutes) needs;
 *  - the p99 of the fleet summary, a Services list, savings by Service over the whole stretch and a
 *    Service's timeline, at each quarter of the stretch (history growing);
 *  - bytes per Service per snapshot across the history tables (payloads aside) and what a year of the
 *    full fleet takes at that rate, payloads apart.
 *
 * The full size (1,000 clusters × 1,000 Services over a simulated week: two million pushes) does not fit
 * a 2-core machine's bench run; by default a scaled-down fleet runs (BENCH_SCALE_CLUSTERS,
 * BENCH_SCALE_SERVICES, BENCH_SCALE_HOURS, BENCH_SCALE_WORKERS set each; BENCH_SCALE=full sets the full
 * size), and the lines say which size was measured.
 */

const PUSH_EVERY_MINUTES = 5;
const FULL = { clusters: 1000, services: 1000, hours: 168 };
/** Share of a cluster's Services whose state changes from one push to the next. */
const CHURN = 0.02;
const READS_PER_CHECKPOINT = 40;
const CHECKPOINTS = 4;
const PUSHERS = 8;
const SNAPSHOTS_PER_YEAR = (365 * 24 * 60) / PUSH_EVERY_MINUTES;
const FULL_FLEET_PER_SECOND = FULL.clusters / (PUSH_EVERY_MINUTES * 60);

interface Size {
  clusters: number;
  services: number;
  hours: number;
  workers: number;
}

function scaleSize(): Size {
  const full = process.env.BENCH_SCALE === 'full';
  const number = (name: string, fallback: number) => {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
    return value;
  };
  return {
    clusters: number('BENCH_SCALE_CLUSTERS', full ? FULL.clusters : 6),
    services: number('BENCH_SCALE_SERVICES', full ? FULL.services : 200),
    hours: number('BENCH_SCALE_HOURS', full ? FULL.hours : 4),
    workers: number('BENCH_SCALE_WORKERS', 1),
  };
}

interface Fleet {
  organizationId: string;
  apiKey: string;
  clusters: { id: string; token: string; base: KubernetesList }[];
}

export async function runScaleBench(): Promise<string[]> {
  const size = scaleSize();
  return withBenchStack('scale', {}, async ({ prisma, startApi, startWorker }) => {
    const apiUrl = await startApi({
      RATE_LIMIT_REQUESTS: '100000000',
      INGEST_RATE_LIMIT_REQUESTS: '100000000',
      INGEST_RATE_LIMIT_BURST: '100000000',
      QUERY_CACHE_TTL_MS: '0',
    });
    const fleet = await registerFleet(prisma, size);
    for (let i = 0; i < size.workers; i++) startWorker();
    return simulate(prisma, apiUrl, fleet, size);
  });
}

async function registerFleet(prisma: PrismaClient, size: Size): Promise<Fleet> {
  const organization = await createOrganization(prisma, { slug: 'scale' });
  const { key } = await createApiKey(prisma, { organizationId: organization.id, name: 'bench', role: 'viewer' });
  const clusters: Fleet['clusters'] = [];
  for (let i = 0; i < size.clusters; i++) {
    const { cluster, agentToken } = await registerCluster(prisma, {
      organizationSlug: 'scale',
      name: `cluster-${String(i).padStart(4, '0')}`,
      cloud: 'aws',
    });
    const base = generateFleetSnapshot({
      nodes: 30,
      zones: 3,
      services: size.services,
      endpointsPerService: 4,
      autoShare: 0.5,
      seed: i + 1,
    });
    clusters.push({ id: cluster.id, token: agentToken, base });
  }
  return { organizationId: organization.id, apiKey: key, clusters };
}

async function simulate(prisma: PrismaClient, apiUrl: string, fleet: Fleet, size: Size): Promise<string[]> {
  const steps = (size.hours * 60) / PUSH_EVERY_MINUTES;
  const full = size.clusters === FULL.clusters && size.services === FULL.services && size.hours >= FULL.hours;
  const start = Date.now() - size.hours * 3600_000 - 60_000;
  const window = Math.max(1, Math.round((size.services * CHURN) / 2));
  const label = `${size.clusters} clusters × ${size.services} Services, a push every ${PUSH_EVERY_MINUTES} min over ${size.hours} simulated hours (${steps * size.clusters} pushes), ${size.workers} worker(s)${full ? ' (full size)' : ' (scaled down; BENCH_SCALE=full runs 1,000 × 1,000 over a week)'}`;
  const lines = [`scale: ${label}; each push changes ${2 * window} of a cluster's Services`];
  let pushSeconds = 0;
  let processSeconds = 0;
  let payloadBytes = 0;
  let pushed = 0;
  /** History's bytes and snapshots after the first checkpoint: every Service's first interval is in them. */
  let firstQuarter = { bytes: 0, pushed: 0, tables: new Map<string, number>() };
  // The weeks of the partitioned history tables a deployment running for a while has created ahead (its
  // retention job keeps two weeks ahead of the clock): the simulated stretch's history lands in them.
  for (const table of PARTITIONED_TABLES)
    await ensurePartitions(prisma, table, new Date(start), Math.ceil(size.hours / (7 * 24)) + 1);
  const empty = await historyTableBytes(prisma);
  const emptyRelations = await relationBytes(prisma);
  for (let checkpoint = 1; checkpoint <= CHECKPOINTS; checkpoint++) {
    const first = Math.floor(((checkpoint - 1) * steps) / CHECKPOINTS);
    const last = Math.floor((checkpoint * steps) / CHECKPOINTS);
    const pushes: { token: string; body: Buffer }[] = [];
    for (let step = first; step < last; step++) {
      for (const cluster of fleet.clusters) {
        const list = churned(cluster.base, step, window);
        const at = new Date(start + step * PUSH_EVERY_MINUTES * 60_000);
        pushes.push({ token: cluster.token, body: gzipSync(JSON.stringify(withCapturedAt(list, at)), { level: 1 }) });
      }
    }
    const began = performance.now();
    await inParallel(pushes, PUSHERS, (push) => pushGzip(apiUrl, push.token, push.body));
    const pushedAt = performance.now();
    await waitUntil(async () => (await pending(prisma)) === 0, 3_600_000, 250);
    pushSeconds += (pushedAt - began) / 1000;
    processSeconds += (performance.now() - began) / 1000;
    payloadBytes += pushes.reduce((sum, push) => sum + push.body.length, 0);
    pushed += pushes.length;
    const reads = await readLatencies(apiUrl, fleet, new Date(start), new Date());
    const tables = addedBytes(await historyTableBytes(prisma), empty);
    const bytes = total(tables);
    if (checkpoint === 1) firstQuarter = { bytes, pushed, tables };
    const perService = bytes / (pushed * size.services);
    lines.push(
      `scale: after ${((last * PUSH_EVERY_MINUTES) / 60).toFixed(1)} h (${pushed} snapshots): p99 fleet ${reads.fleet.toFixed(0)} ms, Services list ${reads.services.toFixed(0)} ms, savings by Service over the whole stretch ${reads.savings.toFixed(0)} ms, timeline ${reads.timeline.toFixed(0)} ms; ${perService.toFixed(1)} B per Service per snapshot (history tables, payloads aside, the empty tables' pages not counted)`,
    );
  }
  const processed = pushed / processSeconds;
  const keepsUpWith = Math.floor(processed * PUSH_EVERY_MINUTES * 60);
  lines.push(
    `scale: ingest ${(pushed / pushSeconds).toFixed(1)} pushes/s through the API; ${size.workers} worker(s) processed ${processed.toFixed(1)} snapshots/s (push to recorded, ${size.services}-Service snapshots): they keep up with ${keepsUpWith} clusters pushing every ${PUSH_EVERY_MINUTES} min; the full fleet needs ${FULL_FLEET_PER_SECOND.toFixed(2)}/s (${Math.ceil(FULL_FLEET_PER_SECOND / (processed / size.workers))} such workers at ${size.services} Services a snapshot)`,
  );
  const added = addedBytes(await historyTableBytes(prisma), empty);
  const perService = total(added) / (pushed * size.services);
  const byTable = [...added]
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${(bytes / (pushed * size.services)).toFixed(1)}`)
    .join(', ');
  const steadyByTable = [...addedBytes(added, firstQuarter.tables)]
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${(bytes / ((pushed - firstQuarter.pushed) * size.services)).toFixed(1)}`)
    .join(', ');
  // A year is nearly all steady state: the first snapshot's intervals of every Service are one-off.
  const steady = (total(added) - firstQuarter.bytes) / ((pushed - firstQuarter.pushed) * size.services);
  const yearBytes = steady * FULL.clusters * FULL.services * SNAPSHOTS_PER_YEAR;
  const payloadPerService = payloadBytes / (pushed * size.services);
  const payloadWeekBytes = payloadPerService * FULL.clusters * FULL.services * (SNAPSHOTS_PER_YEAR / 52);
  lines.push(
    `scale: ${perService.toFixed(1)} B per Service per snapshot over the whole stretch, ${steady.toFixed(1)} B after its first quarter (every Service's first interval written): ${full ? '' : 'extrapolated from this scaled-down run, '}a year of ${FULL.clusters} clusters × ${FULL.services} Services every ${PUSH_EVERY_MINUTES} min is ${(yearBytes / 2 ** 40).toFixed(2)} TiB of history at this churn and the latter rate (HISTORY_RETENTION_DAYS=365); raw payloads (${payloadPerService.toFixed(0)} B per Service gzip) add ${(payloadWeekBytes / 2 ** 40).toFixed(2)} TiB per week of PAYLOAD_RETENTION_DAYS`,
    `scale: bytes per Service per snapshot by table (what history added to the empty tables): ${byTable}; after the first quarter: ${steadyByTable}`,
    `scale: the same by relation (a table's rows with their TOAST, and each index over every partition): ${byRelation(
      addedBytes(await relationBytes(prisma), emptyRelations),
      pushed * size.services,
    )}`,
    await partitionLine(prisma),
  );
  return lines;
}

/**
 * The cluster's snapshot at a step: a window of `changed` Services, sliding by its width each step, has
 * its topology annotation toggled from the base, so each push changes twice that many Services (those
 * entering the window and those leaving it, back to their base state).
 */
function churned(base: KubernetesList, step: number, changed: number): KubernetesList {
  const services = base.items.filter((item) => item.kind === 'Service').length;
  const from = (step * changed) % services;
  let seen = 0;
  const items = base.items.map((item) => {
    if (item.kind !== 'Service') return item;
    const index = seen++;
    const offset = (index - from + services) % services;
    if (offset >= changed) return item;
    const annotations = { ...item.metadata.annotations };
    if (annotations['service.kubernetes.io/topology-mode']) delete annotations['service.kubernetes.io/topology-mode'];
    else annotations['service.kubernetes.io/topology-mode'] = 'Auto';
    return { ...item, metadata: { ...item.metadata, annotations } };
  });
  return { ...base, items };
}

async function pushGzip(apiUrl: string, token: string, body: Buffer): Promise<void> {
  const response = await fetch(`${apiUrl}/v1/ingest/snapshots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body,
  });
  const text = await response.text();
  if (response.status !== 202) throw new Error(`scale bench: push answered ${response.status}: ${text}`);
}

async function pending(prisma: PrismaClient): Promise<number> {
  const failed = await prisma.snapshot.findFirst({ where: { status: 'failed' }, select: { error: true } });
  if (failed) throw new Error(`scale bench: a snapshot failed: ${failed.error}`);
  return prisma.snapshot.count({ where: { status: { in: ['queued', 'processing'] } } });
}

/** p99 of each read, one client, sequential requests (the machine's two cores also run the database). */
async function readLatencies(apiUrl: string, fleet: Fleet, from: Date, to: Date) {
  const cluster = fleet.clusters[0].id;
  const service = fleet.clusters[0].base.items.find((item) => item.kind === 'Service')!.metadata;
  const range = `from=${from.toISOString()}&to=${to.toISOString()}`;
  const p99 = (path: string) => latencyP99(`${apiUrl}${path}`, fleet.apiKey, READS_PER_CHECKPOINT);
  return {
    fleet: await p99('/v1/fleet'),
    services: await p99(`/v1/clusters/${cluster}/services`),
    savings: await p99(`/v1/savings?groupBy=service&${range}`),
    timeline: await p99(`/v1/clusters/${cluster}/services/${service.namespace}/${service.name}`),
  };
}

async function latencyP99(url: string, apiKey: string, amount: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { authorization: `Bearer ${apiKey}`, 'accept-encoding': 'gzip' };
  const samples: number[] = [];
  try {
    for (let i = 0; i < amount + 2; i++) {
      const began = performance.now();
      await new Promise<void>((resolve, reject) => {
        get(url, { agent, headers }, (response) => {
          if (response.statusCode !== 200) reject(new Error(`scale bench: ${url} answered ${response.statusCode}`));
          response.on('data', () => undefined).on('end', () => resolve());
        }).on('error', reject);
      });
      if (i >= 2) samples.push(performance.now() - began); // the first two warm the statement cache
    }
  } finally {
    agent.destroy();
  }
  samples.sort((a, b) => a - b);
  return samples[Math.min(samples.length - 1, Math.floor(0.99 * samples.length))];
}

const HISTORY_TABLES = [
  'snapshots',
  'snapshot_summaries',
  'cluster_services',
  'service_intervals',
  'service_savings_days',
  'analysis_documents',
  'service_fix_contents',
  'service_zone_contents',
];

/**
 * Bytes on disk (tables, TOAST, indexes) of every table history keeps per snapshot and per Service,
 * payloads aside, after a VACUUM, by table.
 */
async function historyTableBytes(prisma: PrismaClient): Promise<Map<string, number>> {
  await prisma.$executeRawUnsafe('VACUUM ANALYZE');
  return tableBytes(prisma, HISTORY_TABLES);
}

/**
 * Bytes on disk of each history table's rows (`<table> rows`: heap, TOAST and their maps, over every
 * partition) and of each of its indexes (named by the partitioned table's index, summed over the
 * partitions' copies), after the VACUUM of {@link historyTableBytes}.
 */
async function relationBytes(prisma: PrismaClient): Promise<Map<string, number>> {
  const rows = await prisma.$queryRaw<{ name: string; bytes: bigint }[]>`
    WITH tables AS (
      SELECT t AS name, to_regclass(t) AS relid FROM unnest(${HISTORY_TABLES}::text[]) AS t WHERE to_regclass(t) IS NOT NULL
    ), leaf AS (
      -- A partitioned table's partitions; a plain table is its own (pg_partition_tree lists nothing of it).
      SELECT t.name, p.relid FROM tables t, pg_partition_tree(t.relid) p WHERE p.isleaf
      UNION ALL
      SELECT t.name, t.relid FROM tables t WHERE NOT EXISTS (SELECT 1 FROM pg_partitioned_table WHERE partrelid = t.relid)
    )
    SELECT name || ' rows' AS name, sum(pg_table_size(relid))::bigint AS bytes FROM leaf GROUP BY name
    UNION ALL
    SELECT COALESCE(pg_partition_root(i.indexrelid), i.indexrelid)::regclass::text, sum(pg_relation_size(i.indexrelid))::bigint
      FROM leaf JOIN pg_index i ON i.indrelid = leaf.relid
     GROUP BY 1`;
  return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
}

/** Relations over 0.05 B per Service per snapshot, largest first. */
function byRelation(added: Map<string, number>, serviceSnapshots: number): string {
  return [...added]
    .map(([name, bytes]) => [name, bytes / serviceSnapshots] as const)
    .filter(([, perService]) => perService >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, perService]) => `${name} ${perService.toFixed(1)}`)
    .join(', ');
}

/** What history added since `empty` (the tables' size before the first push: their empty pages). */
function addedBytes(now: Map<string, number>, empty: Map<string, number>): Map<string, number> {
  return new Map([...now].map(([name, bytes]) => [name, bytes - (empty.get(name) ?? 0)]));
}

/** How the intervals fell into service_intervals' partitions (weekly ones, and the default for the rest). */
async function partitionLine(prisma: PrismaClient): Promise<string> {
  const weeks = await intervalPartitions(prisma);
  const [row] = await prisma.$queryRaw<{ rows: bigint; fallback: bigint }[]>`
    SELECT (SELECT count(*) FROM service_intervals) AS rows, (SELECT count(*) FROM service_intervals_default) AS fallback`;
  return `scale: service_intervals in ${weeks.length} weekly partitions (${weeks.map((week) => week.name.slice(-8)).join(', ')}); ${row.fallback} of its ${row.rows} rows in the default partition`;
}

const total = (sizes: Map<string, number>) => [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0);

if (require.main === module) {
  runScaleBench().then(
    (lines) => {
      for (const line of lines) console.log(line);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
