import { seededRandom } from '@zw/core';
import {
  createPrismaClient,
  fleetRows,
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
import { createDatabaseWithoutMigration, type MigratedDatabase } from '../../../../test/support/databases.js';
import { fixesAt, historyOf } from '../../../../test/support/history.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../../../test/support/redis.js';
import { loadWorkerConfig } from '../../src/config.js';
import { type ServiceState, withStateHash } from '../../src/history/service-state.js';
import { ReadModelPublisher } from '../../src/read-model-events.js';
import { RetentionService } from '../../src/retention.service.js';
import { recordAt } from './record.js';

/**
 * One history recorded by the worker's writer on a schema one partitioning migration back, what the API
 * reads of it, and the worker's retention over it: for the specs of the history tables' partitioning
 * (partitioned-history.spec.ts, partitioned-snapshots.spec.ts), which compare those answers before and
 * after the migration, once weeks hold the rows, and after retention dropped whole weeks.
 */

export const HOUR = 3600_000;
export const DAY = 24 * HOUR;
/** Monday 2026-06-01 05:17 UTC. */
export const T0 = Date.UTC(2026, 5, 1, 5, 17);
export const WEEKS = 5;
export const SERVICES = 12;
/** Retention runs at `NOW` keeping `KEPT_DAYS`: the first two weeks end before the cutoff, the third holds it. */
export const NOW = new Date(T0 + 40 * DAY);
export const KEPT_DAYS = 40 - 16.3;
/** Payloads are kept from day 25.5: the first three weeks end before that cutoff, the fourth holds it. */
export const KEPT_PAYLOAD_DAYS = 40 - 25.5;

export interface Copy {
  db: MigratedDatabase;
  prisma: PrismaClient;
  readDb: ReadDb;
  organizationId: string;
  clusterId: string;
}

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

/**
 * A database with every migration but `migration`, holding history() as the worker's writer records it,
 * every snapshot processed and with a payload (its bytes: its captured-at time).
 */
export async function recordedCopy(tag: string, migration: string): Promise<Copy> {
  const db = await createDatabaseWithoutMigration(tag, migration);
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
  // Before 20261128224500_history_tables_partitioned a payload has no captured_at of its own.
  const [{ keyed }] = await prisma.$queryRaw<{ keyed: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM information_schema.columns
                    WHERE table_name = 'snapshot_payloads' AND column_name = 'captured_at') AS keyed`;
  await prisma.$executeRawUnsafe(
    `INSERT INTO snapshot_payloads (snapshot_id, gzip${keyed ? ', captured_at' : ''})
     SELECT id, convert_to(captured_at::text, 'UTF8')${keyed ? ', captured_at' : ''} FROM snapshots`,
  );
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
export async function answers(copy: Copy) {
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
  const payloads = await copy.prisma.$queryRaw<unknown[]>`
    SELECT s.captured_at, encode(p.gzip, 'hex') AS gzip FROM snapshot_payloads p JOIN snapshots s ON s.id = p.snapshot_id
     ORDER BY s.captured_at`;
  return withoutIds({
    history: await historyOf(copy.prisma, copy.clusterId),
    lists,
    fixes,
    timelines,
    savings,
    rollup,
    fleet,
    payloads,
  });
}

/** The worker's retention run at `now`, keeping KEPT_DAYS of history and KEPT_PAYLOAD_DAYS of payloads. */
export async function retain(copy: Copy, now = NOW) {
  const prefix = uniquePrefix('partitionedhistory');
  const config = loadWorkerConfig({
    DATABASE_URL: copy.db.url,
    QUEUE_PREFIX: prefix,
    HISTORY_RETENTION_DAYS: String(KEPT_DAYS),
    PAYLOAD_RETENTION_DAYS: String(KEPT_PAYLOAD_DAYS),
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

export interface Copies {
  /** Given weekly partitions by the test. */
  weekly: Copy;
  /** Left with every row in the default partitions (retention prunes them row by row). */
  rowByRow: Copy;
  /** What weekly answered before the migration. */
  before: unknown;
}

/** Two copies of history() recorded without `migration`, the answers before it, then it applied to both. */
export async function migratedCopies(tag: string, migration: string): Promise<Copies> {
  const weekly = await recordedCopy(`${tag}_weekly`, migration);
  const rowByRow = await recordedCopy(`${tag}_rows`, migration);
  const before = await answers(weekly);
  await weekly.db.apply(migration);
  await rowByRow.db.apply(migration);
  return { weekly, rowByRow, before };
}

export async function dropCopies(copies: Partial<Copies> | undefined): Promise<void> {
  for (const copy of [copies?.weekly, copies?.rowByRow]) {
    await copy?.readDb.end();
    await copy?.prisma.$disconnect();
    await copy?.db.drop();
  }
}
