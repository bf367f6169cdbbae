import { rankingUnits, seededRandom } from '@zw/core';
import {
  createPrismaClient,
  type PrismaClient,
  PrismaService,
  ReadDb,
  registerCluster,
  type SavingsGroupBy,
  type SavingsQuery,
  savingsWithOpportunities,
  type SnapshotAggregates,
} from '@zw/db';
import { Redis } from 'ioredis';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { referenceSavingsWithOpportunities } from '../../../test/support/savings-reference.js';
import { expectSameAnswer } from '../../../test/support/same-answer.js';
import { loadWorkerConfig } from '../src/config.js';
import { type ServiceState, withStateHash } from '../src/history/service-state.js';
import { ReadModelPublisher } from '../src/read-model-events.js';
import { RetentionService } from '../src/retention.service.js';
import { recordAt } from './support/record.js';

/**
 * The savings roll-up (service_savings_days) against the query it replaced: on a recorded history with
 * snapshots at odd hours, some recorded out of order, Services that vanish and come back, open intervals,
 * API and measured traffic values and two prices, every answer of the roll-up-backed query equals the old
 * interval-by-interval one (test/support/savings-reference.ts), and the roll-up equals one rebuilt from
 * scratch by the migration's backfill after the worker's writes and after retention.
 */

let db: TestDatabase;
let prisma: PrismaClient;
let readDb: ReadDb;

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** 05:17 UTC: snapshots fall at odd minutes, so intervals start and end inside days. */
const T0 = Date.UTC(2026, 5, 1, 5, 17);
const SERVICES = 30;
/** Up to Thursday 2026-06-18: the last week's rows hold several days up to the last snapshot. */
const SNAPSHOTS = 33;

const AGGREGATES: SnapshotAggregates = {
  services: 0,
  servicesPopulated: 0,
  servicesRemoved: 0,
  servicesNone: 0,
  servicesWithDrift: 0,
  nodeInfoSufficient: true,
  nodeInfoReason: null,
  zones: [],
  crossZoneWithoutHints: 0.5,
  crossZoneWithHints: 0.1,
};

/** One of four states of Service `index`: opportunities, Services with hints, other writers of slices. */
function stateOf(index: number, variant: number): ServiceState {
  const routing = (['None', 'Auto', 'None', 'PreferClose'] as const)[variant];
  const annotated = (index + variant) % 3 === 0;
  const readyEndpoints = 2 + ((index * 7 + variant) % 9);
  return withStateHash({
    namespace: `team-${index % 4}`,
    name: `svc-${index}`,
    routing,
    hintState: routing === 'None' ? 'none' : variant === 1 && index % 2 ? 'removed' : 'populated',
    hintReason: null,
    zones: {},
    crossZoneWithoutHints: ((index + variant) % 7) / 9,
    crossZoneWithHints: routing === 'None' ? ((index + variant) % 7) / 9 : ((index * variant) % 5) / 17,
    verdict: {
      managedBy: index % 5 === 0 ? 'custom-controller' : 'endpointslice-controller',
      honoursHints: true,
      dataPathReason: null,
    },
    savings: {
      readyEndpoints,
      trafficAnnotation: annotated ? String(37 + index * 3.5) : null,
      trafficGb: annotated ? 37 + index * 3.5 : readyEndpoints * 50,
      trafficSource: annotated ? 'annotation' : 'default-per-endpoint',
      previewState: routing === 'None' ? (index % 4 === 3 ? 'removed' : 'populated') : null,
      previewReason: null,
      previewCrossZone: routing === 'None' && index % 6 !== 1 ? ((index + 2 * variant) % 5) / 13 : null,
    },
  });
}

/** The snapshots: captured every 3 to 21 hours at odd minutes; each Service keeps its state or changes it. */
function history(): { at: Date; services: ServiceState[] }[] {
  const random = seededRandom(15);
  const variants = Array.from({ length: SERVICES }, () => Math.floor(random() * 4));
  let t = T0;
  return Array.from({ length: SNAPSHOTS }, (_, n) => {
    if (n > 0) t += 3 * HOUR + Math.floor(random() * 18 * HOUR) + Math.floor(random() * 60) * 60_000 + 13_000;
    const services: ServiceState[] = [];
    for (let index = 0; index < SERVICES; index++) {
      if (random() < 0.3) variants[index] = Math.floor(random() * 4);
      const deletedAfter = index % 10 === 9 && n > SNAPSHOTS / 2; // gone for good
      const away = index % 7 === 3 && n % 5 === 2; // vanishes for one snapshot, comes back
      if (!deletedAfter && !away) services.push(stateOf(index, variants[index]));
    }
    return { at: new Date(t), services };
  });
}

/**
 * The migrations' backfills (the roll-up's, its heads', its week tails', its opportunities' crossings), into a scratch table: the roll-up as it must
 * be for the intervals stored now.
 */
async function rebuiltFromScratch(clusterIds: string[]): Promise<unknown[]> {
  await prisma.$executeRawUnsafe('DROP TABLE IF EXISTS savings_days_rebuilt');
  await prisma.$executeRawUnsafe(
    'CREATE TABLE savings_days_rebuilt (LIKE service_savings_days INCLUDING DEFAULTS INCLUDING CONSTRAINTS)',
  );
  for (const migration of ['_savings_days', '_savings_day_heads', '_savings_week_tails', '_savings_measured_share']) {
    for (const statement of backfillOf(migration).split(';')) {
      if (/INSERT|UPDATE/.test(statement)) await prisma.$executeRawUnsafe(statement);
    }
  }
  return rollupRows('savings_days_rebuilt', clusterIds);
}

function backfillOf(migrationName: string): string {
  const migrations = join(__dirname, '..', '..', '..', 'prisma', 'migrations');
  const folder = readdirSync(migrations).find((name) => name.endsWith(migrationName))!;
  const migration = readFileSync(join(migrations, folder, 'migration.sql'), 'utf8');
  return migration.slice(migration.indexOf('-- Backfill')).replaceAll('"service_savings_days"', 'savings_days_rebuilt');
}

/** Rows as JSON values (dates as their ISO text), in key order. */
async function rollupRows(table: string, clusterIds: string[]): Promise<unknown[]> {
  const rows = await readDb.query<Record<string, unknown>>(
    `SELECT * FROM ${table} WHERE cluster_id = ANY($1::uuid[]) ORDER BY cluster_id, span_days, day, service_id`,
    [clusterIds],
  );
  return rows.map((row) => JSON.parse(JSON.stringify(row)) as unknown);
}

/**
 * The roll-up the worker wrote against the one rebuilt from scratch: the same rows, keys, flags and heads
 * exactly, figures to 1e-9 of their size (the worker adds a closed interval's pieces to a row, so it sums
 * in another order than the rebuild).
 */
async function expectRollupRebuiltFromScratch(clusterIds: string[]): Promise<unknown[]> {
  const written = await rollupRows('service_savings_days', clusterIds);
  const rebuilt = await rebuiltFromScratch(clusterIds);
  expect(written.length).toBe(rebuilt.length);
  expectSameAnswer(written, rebuilt, 'roll-up');
  return written;
}

let clusters: { id: string; pricePerGb: number }[];
let lastSnapshot: Date;

/** Seven minutes after the last snapshot: intervals it closed end on the same UTC day (checked below). */
function minutesAfterLastSnapshot(): Date {
  return new Date(lastSnapshot.getTime() + 7 * 60_000);
}

beforeAll(async () => {
  db = await createTestDatabase('savingsdays');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  readDb = new ReadDb({ databaseUrl: db.url, poolMax: 2 });
  const snapshots = history();
  lastSnapshot = snapshots.at(-1)!.at;
  clusters = [];
  for (const [n, pricePerGb] of [0.02, 0.0137].entries()) {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'savings-days', name: `c${n}` });
    clusters.push({ id: cluster.id, pricePerGb });
    // The second cluster's snapshots arrive out of order: every third one late, after the rest.
    const order =
      n === 0 ? snapshots : [...snapshots.filter((_, i) => i % 3 !== 1), ...snapshots.filter((_, i) => i % 3 === 1)];
    // It also has one snapshot an hour after the others' last (half its Services gone): with `now` before
    // it, its intervals end after now and it is read raw, beside the first read from the roll-up.
    const later = {
      at: new Date(lastSnapshot.getTime() + HOUR),
      services: snapshots.at(-1)!.services.filter((_, i) => i % 2 === 0),
    };
    for (const snapshot of n === 0 ? order : [...order, later]) {
      await recordAt(prisma, cluster.id, snapshot.at, {
        services: snapshot.services,
        aggregates: { ...AGGREGATES, services: snapshot.services.length },
      });
    }
  }
  // Traffic values set through the API and measured by a traffic source override the snapshots' for the whole range.
  await prisma.$executeRaw`UPDATE cluster_services SET monthly_traffic_gb = 321.5 WHERE name IN ('svc-2', 'svc-11')`;
  await prisma.$executeRaw`UPDATE cluster_services SET measured_traffic_gb = 77.25 WHERE name IN ('svc-4', 'svc-11', 'svc-13')`;
  // A measured share crossing zones replaces the model's withHints interval by interval, with a measured
  // volume or without one; these Services' states change, so they are opportunities for part of the range.
  await prisma.$executeRaw`UPDATE cluster_services SET measured_cross_zone = 0.37 WHERE name IN ('svc-4', 'svc-5', 'svc-8')`;
});

afterAll(async () => {
  await readDb?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

/**
 * Ranges with edges inside days, whole ISO weeks (2026-06-01 is a Monday), no whole day, beyond the
 * history, and `now` inside the history.
 */
function ranges(): { name: string; from: Date; to: Date; now: Date }[] {
  const after = new Date(lastSnapshot.getTime() + 5 * HOUR + 7 * 60_000);
  const minutesAfterLast = minutesAfterLastSnapshot();
  const at = (days: number, hours: number) => new Date(T0 + days * DAY + hours * HOUR + 11 * 60_000);
  // The Monday 00:00 UTC of `after`'s week (T0's day, 2026-06-01, is a Monday).
  const thisWeek = Math.floor((after.getTime() - Date.UTC(2026, 5, 1)) / (7 * DAY)) * 7 * DAY + Date.UTC(2026, 5, 1);
  return [
    { name: 'all of it, up to now', from: new Date(T0 - DAY), to: after, now: after },
    { name: 'edges inside days', from: at(2, 3), to: at(9, 14), now: after },
    { name: 'whole weeks and days, edges inside days', from: at(0, 19), to: at(15, 6), now: after },
    // The days before the first whole week from that week's tail: from a Thursday, from a Saturday.
    { name: "a week's tail from a Thursday, then a whole week", from: at(1, 20), to: at(15, 6), now: after },
    { name: "a week's tail from a Saturday, then whole weeks up to now", from: at(3, 20), to: after, now: after },
    { name: 'within one day', from: at(4, 1), to: at(4, 9), now: after },
    { name: 'across one midnight', from: at(5, 15), to: at(6, 4), now: after },
    { name: 'ending after now, now inside the history', from: at(1, 0), to: after, now: at(7, 8) },
    { name: 'starting after now', from: at(8, 0), to: after, now: at(6, 2) },
    { name: 'whole UTC days', from: new Date(Date.UTC(2026, 5, 3)), to: new Date(Date.UTC(2026, 5, 8)), now: after },
    { name: 'from the open intervals on', from: new Date(lastSnapshot.getTime() - HOUR), to: after, now: after },
    // The last day up to now from its day row (no interval ends after now), or past now.
    { name: 'the last days up to now', from: new Date(after.getTime() - 3 * DAY), to: after, now: after },
    {
      name: 'the last days, ending tomorrow',
      from: new Date(after.getTime() - 3 * DAY),
      to: new Date(after.getTime() + DAY),
      now: after,
    },
    // This week's days up to now from this week's row, when the range holds its Monday: from the days
    // before it (no whole week), and from inside it (its day rows).
    {
      name: 'this week up to now, from the days before it',
      from: new Date(thisWeek - 2 * DAY + 5 * HOUR),
      to: after,
      now: after,
    },
    { name: 'this week up to now, from inside it', from: new Date(thisWeek + 5 * HOUR), to: after, now: after },
    // `now` minutes after the last snapshot, or at it: its day's row holds intervals it closed.
    { name: 'up to minutes after the last snapshot', from: at(3, 2), to: minutesAfterLast, now: minutesAfterLast },
    { name: 'up to the last snapshot itself', from: at(3, 2), to: minutesAfterLast, now: lastSnapshot },
  ];
}

describe('savings from the per-day roll-up', () => {
  it('is the roll-up the migration would build from the intervals the worker wrote (in and out of order)', async () => {
    const ids = clusters.map((c) => c.id);
    const written = (await expectRollupRebuiltFromScratch(ids)) as { span_days: number; head_valid_from: unknown }[];
    expect(written.filter((row) => row.span_days === 1).length).toBeGreaterThan(SERVICES * 10);
    expect(written.filter((row) => row.span_days === 7).length).toBeGreaterThan(SERVICES);
    for (const tailSpan of [2, 3, 4, 5, 6]) {
      expect(written.filter((row) => row.span_days === tailSpan).length).toBeGreaterThan(SERVICES);
    }
    expect(written.filter((row) => row.head_valid_from !== null).length).toBeGreaterThan(SERVICES);
  });

  it('answers what the interval-by-interval query answers, for every groupBy, range, filter and limit', async () => {
    let compared = 0;
    for (const range of ranges()) {
      for (const groupBy of ['cluster', 'namespace', 'service'] as SavingsGroupBy[]) {
        for (const [namespace, limit] of [
          [undefined, 1000],
          ['team-1', 1000],
          [undefined, 3],
        ] as const) {
          const query: SavingsQuery = { clusters, ...range, groupBy, namespace, limit };
          const expected = await referenceSavingsWithOpportunities(readDb, query, Math.min(limit, 5));
          const actual = await savingsWithOpportunities(readDb, query, Math.min(limit, 5));
          expectSameAnswer(actual, expected, `${range.name}, ${groupBy}, ${namespace ?? 'all'}, ${limit}`);
          compared += expected.rows.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('ranks Services tying on their figures by name when the limit falls among them', async () => {
    let tied = 0;
    for (const range of ranges()) {
      const all: SavingsQuery = { clusters, ...range, groupBy: 'service', limit: 1000 };
      const { rows, opportunities } = await referenceSavingsWithOpportunities(readDb, all, 1000);
      const groups = rows.filter((row) => !row.is_total);
      const costly = groups.filter((row) => rankingUnits(row.with_cost) > 0).length;
      const missing = opportunities.filter((row) => rankingUnits(row.missed_cost) > 0).length;
      if (groups.length - costly < 2) continue;
      tied++;
      // The last places go to Services tying at zero: which ones is decided by their names alone.
      const query: SavingsQuery = { ...all, limit: costly + 1 };
      const opportunityLimit = Math.min(missing + 1, opportunities.length);
      expectSameAnswer(
        await savingsWithOpportunities(readDb, query, opportunityLimit),
        await referenceSavingsWithOpportunities(readDb, query, opportunityLimit),
        range.name,
      );
    }
    expect(tied).toBeGreaterThan(3);
  });

  it("reads the range's last day up to now from that day's row: the ranges above hold one with closed intervals", async () => {
    const lastDay = lastSnapshot.toISOString().slice(0, 10);
    expect(minutesAfterLastSnapshot().toISOString().slice(0, 10)).toBe(lastDay);
    const [{ rows }] = await prisma.$queryRaw<{ rows: number }[]>`
      SELECT count(*)::int AS rows FROM service_savings_days
       WHERE span_days = 1 AND day = ${lastDay}::date AND months > 0`;
    expect(rows).toBeGreaterThan(SERVICES / 2);
  });

  it('ranks on the millionths core ranks reports on (Postgres and TypeScript round alike)', async () => {
    const values = [0, 5e-7, 1.5e-6, 2.5e-6, -3.5e-6, 0.1 + 0.2, 123456.789012345, 1.0000025, 7.77];
    const [row] = await readDb.query<{ units: string[] }>(
      `SELECT array_agg(round(v * 1000000) ORDER BY n)::text[] AS units
         FROM unnest($1::float8[]) WITH ORDINALITY AS t(v, n)`,
      [values],
    );
    expect(row.units.map(Number)).toEqual(values.map(rankingUnits));
  });

  it('follows retention: pruned intervals leave the roll-up, held ones stay, answers stay equal', async () => {
    const cutoffDays = (Date.now() - (T0 + 6 * DAY + 7 * HOUR)) / DAY;
    const prefix = uniquePrefix('savingsdays');
    const config = loadWorkerConfig({
      DATABASE_URL: db.url,
      QUEUE_PREFIX: prefix,
      HISTORY_RETENTION_DAYS: String(cutoffDays),
    });
    const redis = new Redis(TEST_REDIS_URL);
    const service = new PrismaService({ databaseUrl: db.url, poolMax: 2 });
    try {
      const retention = new RetentionService(service, config, new ReadModelPublisher(redis, config));
      const pruned = await retention.prune();
      expect(pruned.intervalsDeleted).toBeGreaterThan(0);
    } finally {
      await service.$disconnect();
      redis.disconnect();
    }
    const ids = clusters.map((c) => c.id);
    await expectRollupRebuiltFromScratch(ids);
    for (const range of ranges()) {
      const query: SavingsQuery = { clusters, ...range, groupBy: 'service', limit: 1000 };
      const expected = await referenceSavingsWithOpportunities(readDb, query, 50);
      expectSameAnswer(await savingsWithOpportunities(readDb, query, 50), expected, range.name);
    }
  });
});
