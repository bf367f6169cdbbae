import { seededRandom } from '@zw/core';
import {
  createPrismaClient,
  ensureIntervalPartitions,
  fleetRows,
  intervalPartitions,
  listServiceStates,
  type PrismaClient,
  PrismaService,
  ReadDb,
  registerCluster,
  savingsWithOpportunities,
  serviceTimeline,
} from '@zw/db';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseWithoutMigration, type MigratedDatabase } from '../../../test/support/databases.js';
import { fixesAt, historyOf } from '../../../test/support/history.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { expectSameAnswer } from '../../../test/support/same-answer.js';
import { loadWorkerConfig } from '../src/config.js';
import { type ServiceState, withStateHash } from '../src/history/service-state.js';
import { ReadModelPublisher } from '../src/read-model-events.js';
import { RetentionService } from '../src/retention.service.js';
import { recordAt } from './support/record.js';

/**
 * service_intervals partitioned by week: the same history, recorded by the worker's writer on the schema
 * before the partitioning migration, answers the same after it (all of it in the default partition),
 * after its weeks were created (rows moved into them), and after retention dropped whole weeks of it as
 * a copy that kept every row in the default partition, which retention prunes row by row, answers.
 */

const MIGRATION = '_service_intervals_partitioned';
const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** Monday 2026-06-01 05:17 UTC. */
const T0 = Date.UTC(2026, 5, 1, 5, 17);
const WEEKS = 5;
const SERVICES = 12;
/** Retention runs at `NOW` keeping `KEPT_DAYS`: the first two weeks end before the cutoff, the third holds it. */
const NOW = new Date(T0 + 40 * DAY);
const KEPT_DAYS = 40 - 16.3;

interface Copy {
  db: MigratedDatabase;
  prisma: PrismaClient;
  readDb: ReadDb;
  organizationId: string;
  clusterId: string;
}

let weekly: Copy;
let rowByRow: Copy;

function fixesOf(index: number, variant: number): ServiceState['fixes'] {
  if (index % 2 === 1) return null;
  const json = JSON.stringify({ recommendations: [{ kind: variant % 2 ? 'add-replicas' : 'enable-topology-mode' }] });
  const hash = createHash('sha256').update(json).digest('hex').slice(0, 32);
  return { hash, json, fraction: 0.1 + variant / 10 };
}

function stateOf(index: number, variant: number): ServiceState {
  const routing = (['None', 'Auto', 'None', 'PreferClose'] as const)[variant];
  return withStateHash({
    namespace: `team-${index % 3}`,
    name: `svc-${index}`,
    routing,
    hintState: routing === 'None' ? 'none' : 'populated',
    hintReason: null,
    zones: {},
    crossZoneWithoutHints: ((index + variant) % 7) / 9,
    crossZoneWithHints: routing === 'None' ? ((index + variant) % 7) / 9 : ((index * variant) % 5) / 17,
    savings: {
      readyEndpoints: 2 + index,
      trafficAnnotation: null,
      trafficGb: (2 + index) * 50,
      trafficSource: 'default-per-endpoint',
      previewState: routing === 'None' ? 'populated' : null,
      previewReason: null,
      previewCrossZone: routing === 'None' ? ((index + 2 * variant) % 5) / 13 : null,
    },
    fixes: fixesOf(index, variant),
  });
}

/**
 * Snapshots every 7 to 13 hours over five weeks. svc-0 never changes (its interval, opened in the first
 * week, still holds: the Service's current state, naming fixes); svc-1 changes once, after the cutoff
 * (an interval of the first week still held then); svc-2 is deleted on day 10; the others change at random.
 */
function history(): { at: Date; services: ServiceState[] }[] {
  const random = seededRandom(24);
  const variants = Array.from({ length: SERVICES }, () => 0);
  const snapshots: { at: Date; services: ServiceState[] }[] = [];
  for (let t = T0; t < T0 + WEEKS * 7 * DAY; t += 7 * HOUR + Math.floor(random() * 6 * HOUR) + 13_000) {
    const services: ServiceState[] = [];
    for (let index = 0; index < SERVICES; index++) {
      if (index >= 3 && random() < 0.3) variants[index] = Math.floor(random() * 4);
      if (index === 1) variants[index] = t > T0 + 18 * DAY ? 2 : 0;
      if (index === 2 && t > T0 + 10 * DAY) continue;
      services.push(stateOf(index, variants[index]));
    }
    snapshots.push({ at: new Date(t), services });
  }
  return snapshots;
}

async function recordedCopy(tag: string): Promise<Copy> {
  const db = await createDatabaseWithoutMigration(tag, MIGRATION);
  const prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  const { cluster } = await registerCluster(prisma, { organizationSlug: 'partitioned', name: 'c' });
  for (const snapshot of history()) {
    await recordAt(prisma, cluster.id, snapshot.at, {
      services: snapshot.services,
      aggregates: {
        services: snapshot.services.length,
        servicesPopulated: 0,
        servicesRemoved: 0,
        servicesNone: 0,
        servicesWithDrift: 0,
        nodeInfoSufficient: true,
        nodeInfoReason: null,
        zones: [],
        crossZoneWithoutHints: 0.5,
        crossZoneWithHints: 0.1,
      },
    });
  }
  await prisma.$executeRaw`UPDATE snapshots SET status = 'processed'`;
  const readDb = new ReadDb({ databaseUrl: db.url, poolMax: 2 });
  return { db, prisma, readDb, organizationId: cluster.organizationId, clusterId: cluster.id };
}

/** Ids and receipt times differ between copies and say nothing about the history: every answer without them. */
function withoutIds(value: unknown): unknown {
  if (typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== 'object' || value instanceof Date || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(
        ([key]) => !/^(id|cluster_?[iI]d|service_?[iI]d|snapshot_?[iI]d|summary_snapshot_id|\w*received_at)$/.test(key),
      )
      .map(([key, field]) => [key, withoutIds(field)]),
  );
}

/** What the API reads of the history: states, lists, timelines, fixes, savings (roll-up included), the fleet. */
async function answers(copy: Copy) {
  const instants = [0.5, 6.2, 12, 17.1, 23.9, 34.5].map((days) => new Date(T0 + days * DAY));
  const end = new Date(T0 + WEEKS * 7 * DAY);
  const lists = [];
  const fixes = [];
  for (const at of instants) {
    lists.push(
      await listServiceStates(copy.readDb, {
        clusterId: copy.clusterId,
        at,
        filters: {},
        sort: 'name',
        descending: false,
        after: null,
        limit: 100,
      }),
    );
    fixes.push(Object.fromEntries([...(await fixesAt(copy.prisma, copy.clusterId, at))].sort()));
  }
  const timelines = [];
  for (const name of ['svc-0', 'svc-1', 'svc-2', 'svc-5']) {
    const ref = { clusterId: copy.clusterId, namespace: `team-${Number(name.slice(4)) % 3}`, name };
    timelines.push(await serviceTimeline(copy.prisma, ref, new Date(T0 - DAY), end));
  }
  const savings = [];
  for (const [from, to] of [
    [T0 - DAY, end.getTime()],
    [T0 + 2.3 * DAY, T0 + 19.6 * DAY],
    [T0 + 15 * DAY, T0 + 30 * DAY],
  ]) {
    for (const groupBy of ['service', 'cluster'] as const) {
      const query = { clusters: [{ id: copy.clusterId, pricePerGb: 0.02 }], groupBy, limit: 100 };
      savings.push(
        await savingsWithOpportunities(copy.readDb, { ...query, from: new Date(from), to: new Date(to), now: end }, 50),
      );
    }
  }
  const rollup = await copy.prisma.$queryRaw<unknown[]>`
    SELECT s.namespace, s.name, d.span_days, d.day, d.months, d.traffic_months, d.without_traffic, d.with_traffic,
           d.missed_traffic, d.opportunity_traffic, d.head_valid_from, d.head_valid_to
      FROM service_savings_days d JOIN cluster_services s ON s.id = d.service_id
     ORDER BY s.namespace, s.name, d.span_days, d.day`;
  const fleet = await fleetRows(copy.readDb, copy.organizationId);
  return withoutIds({
    history: await historyOf(copy.prisma, copy.clusterId),
    lists,
    fixes,
    timelines,
    savings,
    rollup,
    fleet,
  });
}

async function retain(copy: Copy, now = NOW) {
  const prefix = uniquePrefix('partitionedhistory');
  const config = loadWorkerConfig({
    DATABASE_URL: copy.db.url,
    QUEUE_PREFIX: prefix,
    HISTORY_RETENTION_DAYS: String(KEPT_DAYS),
  });
  const redis = new Redis(TEST_REDIS_URL);
  const service = new PrismaService({ databaseUrl: copy.db.url, poolMax: 2 });
  try {
    return await new RetentionService(service, config, new ReadModelPublisher(redis, config)).prune(now);
  } finally {
    await service.$disconnect();
    redis.disconnect();
  }
}

let before: unknown;

beforeAll(async () => {
  weekly = await recordedCopy('partitioned_weekly');
  rowByRow = await recordedCopy('partitioned_rows');
  before = await answers(weekly);
  await weekly.db.apply(MIGRATION);
  await rowByRow.db.apply(MIGRATION);
}, 300_000);

afterAll(async () => {
  for (const copy of [weekly, rowByRow]) {
    await copy?.readDb.end();
    await copy?.prisma.$disconnect();
    await copy?.db.drop();
  }
});

describe('history in weekly partitions', () => {
  it('answers as before the migration, which kept every interval', async () => {
    expectSameAnswer(await answers(weekly), before, 'after the migration');
    expectSameAnswer(await answers(rowByRow), before, 'the other copy');
  });

  it('answers the same once its weeks are created and hold their intervals', async () => {
    const created = await ensureIntervalPartitions(weekly.prisma, new Date(T0), WEEKS);
    expect(created).toHaveLength(WEEKS + 1);
    const [{ left }] = await weekly.prisma.$queryRaw<{ left: bigint }[]>`
      SELECT count(*) AS left FROM service_intervals_default`;
    expect(left).toBe(0n);
    expectSameAnswer(await answers(weekly), before, 'in weekly partitions');
  });

  it('retention drops whole weeks and answers as retention deleting the same rows one by one', async () => {
    const dropped = await retain(weekly);
    const deleted = await retain(rowByRow);
    expect(dropped.partitionsDropped).toBe(2);
    expect(deleted.partitionsDropped).toBe(0);
    expect(dropped.intervalsDeleted).toBeGreaterThan(SERVICES);
    const pruned = ({ intervalsDeleted, servicesDeleted, snapshotsDeleted }: typeof dropped) => ({
      intervalsDeleted,
      servicesDeleted,
      snapshotsDeleted,
    });
    expect(pruned(dropped)).toEqual(pruned(deleted));
    const weeks = (await intervalPartitions(weekly.prisma)).map((week) => week.name);
    expect(weeks).not.toContain('service_intervals_w20260601');
    expect(weeks).not.toContain('service_intervals_w20260608');
    expect(weeks).toContain('service_intervals_w20260615');
    const after = await answers(weekly);
    expectSameAnswer(after, await answers(rowByRow), 'dropped against deleted');
    // What retention keeps: svc-0's state since the first snapshot, and svc-1's held past the cutoff.
    const history = (after as { history: { intervals: string[] } }).history.intervals.map((row) => JSON.parse(row));
    const first = new Date(T0).toISOString();
    expect(history.filter((row) => row[2] === first).map((row) => [row[1], row[3] === null])).toEqual([
      ['svc-0', true],
      ['svc-1', false],
    ]);
  });

  it('prunes row by row when a partition change cannot get its locks, and answers the same', async () => {
    // Three weeks later: the week of 2026-06-15 is past every cutoff and new weeks are due.
    const later = new Date(NOW.getTime() + 21 * DAY);
    const blocker = new pg.Client({ connectionString: weekly.db.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE service_intervals_default IN ROW EXCLUSIVE MODE');
      await blocker.query('LOCK TABLE service_intervals_w20260615 IN ACCESS SHARE MODE');
      const blocked = await retain(weekly, later);
      expect([blocked.partitionsCreated, blocked.partitionsDropped]).toEqual([0, 0]);
      const deleted = await retain(rowByRow, later);
      expect(blocked.intervalsDeleted).toBe(deleted.intervalsDeleted);
      expect(blocked.intervalsDeleted).toBeGreaterThan(0);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    expectSameAnswer(await answers(weekly), await answers(rowByRow), 'blocked against deleted');
  }, 120_000);
});
