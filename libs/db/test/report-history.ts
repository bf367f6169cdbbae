import { afterAll, beforeAll, expect } from 'vitest';
import { createTestDatabase } from '../../../test/support/databases.js';
import { createPrismaClient, type PrismaClient, ReadDb, registerCluster } from '../src/index.js';

/**
 * A history for the report's reads: Services going through several kinds of missed saving (an
 * opportunity, hints refused for two reasons, a preview the controller would refuse, nothing missed),
 * several intervals of one kind, API and measured volumes and shares, in two clusters at two prices, and
 * a copy of the first cluster inserted in another order, each inserted in an order that is neither the
 * answer's (cluster, namespace, name) nor their start.
 */

export const HOUR = 3600_000;
export const DAY = 24 * HOUR;
export const T0 = Date.UTC(2026, 9, 1, 5, 17);
export const NOW = new Date(T0 + 10 * DAY + 5 * HOUR);
export const SECONDS_PER_MONTH = 730 * 3600;
export const SERVICES = 24;

export interface Interval {
  from: number;
  to: number | null;
  routing: 'None' | 'Auto';
  hintState: 'none' | 'populated' | 'removed';
  hintReason: string | null;
  withoutHints: number;
  withHints: number | null;
  trafficGb: number;
  trafficSource: string | null;
  previewState: 'populated' | 'removed' | null;
  previewCrossZone: number | null;
  previewReason: string | null;
  managedBy: string | null;
  honoursHints: boolean | null;
}

export interface Service {
  namespace: string;
  name: string;
  monthlyTrafficGb: number | null;
  measuredTrafficGb: number | null;
  measuredCrossZone: number | null;
  intervals: Interval[];
}

/** Interval `k` of Service `index`: its kind of missed saving cycles through the five (and repeats). */
function intervalOf(index: number, k: number, from: number, to: number | null): Interval {
  const kind = (index + Math.floor(k / 2)) % 5;
  const base = {
    from,
    to,
    withoutHints: ((index + k) % 7) / 9,
    withHints: k % 4 === 3 ? null : ((index * 3 + k) % 5) / 17,
    trafficGb: 40 + index * 2.5 + k * 7,
    trafficSource: index % 3 === 0 ? 'annotation' : index % 11 === 5 ? null : 'default-per-endpoint',
    managedBy: index % 10 === 4 && kind === 0 ? 'custom-controller' : null,
    honoursHints: index % 9 === 8 ? false : index % 2 === 0 ? null : true,
    previewReason: null,
    previewCrossZone: null,
    previewState: null,
    hintReason: null,
  };
  switch (kind) {
    case 0: // an opportunity (unless managed by another controller)
      // Some without a preview's crossings: what it would save is unknown, and summed as nothing.
      return {
        ...base,
        routing: 'None',
        hintState: 'none',
        previewState: 'populated',
        previewCrossZone: index % 6 === 5 ? null : (k % 5) / 13,
      };
    case 1: // hints refused
      return { ...base, routing: 'Auto', hintState: 'removed', hintReason: 'too-few-endpoints' };
    case 2: // hints refused for another reason
      return { ...base, routing: 'Auto', hintState: 'removed', hintReason: 'overload-threshold' };
    case 3: // the preview would be refused
      return { ...base, routing: 'None', hintState: 'none', previewState: 'removed', previewReason: 'node-info' };
    default: // hints populated: nothing missed
      return { ...base, routing: 'Auto', hintState: 'populated' };
  }
}

/** Service `index`: 1 to 5 intervals back to back from before the history's start, the last open or not. */
function serviceOf(index: number): Service {
  const count = 1 + (index % 5);
  const intervals: Interval[] = [];
  let from = T0 - (index % 3) * DAY + index * 7 * 60_000;
  for (let k = 0; k < count; k++) {
    const last = k === count - 1;
    const to = last && index % 4 !== 1 ? null : from + (1 + ((index + k) % 4)) * DAY + k * HOUR;
    intervals.push(intervalOf(index, k, from, to));
    if (to !== null) from = to;
  }
  return {
    // Names whose order is neither the insertion's nor the index's, the same in every collation.
    namespace: `team${(index * 5) % 3}`,
    name: `svc${String((index * 7) % SERVICES).padStart(2, '0')}`,
    monthlyTrafficGb: index % 7 === 0 ? 123.5 : null,
    measuredTrafficGb: index % 4 === 0 ? 45 : null,
    measuredCrossZone: index % 4 === 0 || index % 4 === 2 ? 0.3 : index % 13 === 6 ? 1.7 : null,
    intervals,
  };
}

export const SERVICES_OF_HISTORY = Array.from({ length: SERVICES }, (_, index) => serviceOf(index));

export interface ReportHistory {
  readDb: ReadDb;
  /** Two clusters at two prices, then a copy of the first inserted in the other order, at the first's price. */
  clusters: { id: string; price: number }[];
  drop(): Promise<void>;
}

/** The history for the spec calling it: made before its tests, dropped after them. */
export function useReportHistory(tag: string): () => ReportHistory {
  let history: ReportHistory | undefined;
  beforeAll(async () => {
    history = await createReportHistory(tag);
  });
  afterAll(async () => {
    await history?.drop();
  });
  return () => history!;
}

/** A database holding the history in three clusters (see ReportHistory). */
async function createReportHistory(tag: string): Promise<ReportHistory> {
  const db = await createTestDatabase(tag);
  const prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  const readDb = new ReadDb({ databaseUrl: db.url, poolMax: 2 });
  const indexes = SERVICES_OF_HISTORY.map((_, index) => index);
  const shuffled = indexes.map((index) => (index * 11) % SERVICES);
  expect(new Set(shuffled).size).toBe(SERVICES);
  const clusters: { id: string; price: number }[] = [];
  for (const [n, price, order, latestFirst] of [
    [0, 0.02, indexes, true],
    [1, 0.0137, shuffled, true],
    [2, 0.02, [...shuffled].reverse(), false],
  ] as const) {
    const { cluster } = await registerCluster(prisma, { organizationSlug: tag, name: `c${n}` });
    clusters.push({ id: cluster.id, price });
    await insertHistory(prisma, cluster.id, [...order], latestFirst);
  }
  await prisma.$disconnect();
  return {
    readDb,
    clusters,
    drop: async () => {
      await readDb.end();
      await db.drop();
    },
  };
}

async function insertHistory(
  prisma: PrismaClient,
  clusterId: string,
  order: number[],
  latestFirst: boolean,
): Promise<void> {
  for (const index of order) {
    const service = SERVICES_OF_HISTORY[index];
    const [{ id }] = await prisma.$queryRaw<{ id: bigint }[]>`
      INSERT INTO cluster_services (cluster_id, namespace, name, monthly_traffic_gb, measured_traffic_gb, measured_cross_zone)
      VALUES (${clusterId}::uuid, ${service.namespace}, ${service.name}, ${service.monthlyTrafficGb}::float8,
              ${service.measuredTrafficGb}::float8, ${service.measuredCrossZone}::float8)
      RETURNING id`;
    const intervals = [...service.intervals.entries()];
    for (const [k, i] of latestFirst ? intervals.reverse() : intervals) {
      await prisma.$executeRaw`
        INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                       hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints,
                                       ready_endpoints, traffic_gb, traffic_source, preview_state, preview_cross_zone,
                                       preview_reason, managed_by, honours_hints)
        VALUES (${clusterId}::uuid, ${id}, ${new Date(i.from)}, ${i.to === null ? null : new Date(i.to)}, ${index * 10 + k},
                ${i.routing}::routing_mode, ${i.hintState}::hint_state, ${i.hintReason}, '{}', ${i.withoutHints},
                ${i.withHints}::float8, 3, ${i.trafficGb}, ${i.trafficSource}, ${i.previewState}::hint_state,
                ${i.previewCrossZone}::float8, ${i.previewReason}, ${i.managedBy}, ${i.honoursHints}::boolean)`;
    }
  }
}

/** The rows the report reads, interval by interval, as the savings semantics define them. */
export function ranges(): { name: string; from: Date; to: Date }[] {
  const at = (days: number, hours: number) => new Date(T0 + days * DAY + hours * HOUR + 11 * 60_000);
  return [
    { name: '30 days up to now', from: new Date(NOW.getTime() - 30 * DAY), to: NOW },
    { name: 'from inside the history up to now', from: at(3, 7), to: NOW },
    { name: 'ending before now', from: at(1, 2), to: at(6, 9) },
    { name: 'within one day', from: at(4, 2), to: at(4, 20) },
  ];
}
