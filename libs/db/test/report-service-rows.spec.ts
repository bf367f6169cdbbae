import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { expectSameAnswer } from '../../../test/support/same-answer.js';
import {
  createPrismaClient,
  type PrismaClient,
  ReadDb,
  registerCluster,
  reportServiceRows,
  type ServicePeriodRow,
} from '../src/index.js';

/**
 * A report's Service rows (reportServiceRows) against an interval-by-interval reference computed here:
 * Services going through several kinds of missed saving (an opportunity, hints refused for two reasons,
 * a preview the controller would refuse, nothing missed), several intervals of one kind, API and measured
 * volumes and shares, in two clusters at two prices, inserted in an order that is neither the answer's
 * (cluster, namespace, name) nor their start: every row's figures, its Service's latest state in the
 * period, and the rows' order. The same history inserted in two orders answers the same bit for bit
 * (the sums run in a fixed order).
 */

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 9, 1, 5, 17);
const NOW = new Date(T0 + 10 * DAY + 5 * HOUR);
const SECONDS_PER_MONTH = 730 * 3600;
const SERVICES = 24;

interface Interval {
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

interface Service {
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

const SERVICES_OF_HISTORY = Array.from({ length: SERVICES }, (_, index) => serviceOf(index));

let db: TestDatabase;
let prisma: PrismaClient;
let readDb: ReadDb;
/** Two clusters at two prices, then a copy of the first inserted in the other order, at the first's price. */
const clusters: { id: string; price: number }[] = [];

/** Inserts the history into `clusterId`: Services in `order`, each Service's intervals latest first or not. */
async function insertHistory(clusterId: string, order: number[], latestFirst: boolean): Promise<void> {
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
function referenceRows(
  cluster: { id: string; price: number },
  range: { from: Date; to: Date },
): Omit<ServicePeriodRow, 'clusterId'>[] {
  const [from, to, now] = [range.from.getTime(), range.to.getTime(), NOW.getTime()];
  const rows: (Omit<ServicePeriodRow, 'clusterId'> & { order: string })[] = [];
  for (const service of SERVICES_OF_HISTORY) {
    const share =
      service.measuredCrossZone !== null && service.measuredCrossZone >= 0 && service.measuredCrossZone <= 1
        ? service.measuredCrossZone
        : null;
    const pieces = service.intervals
      .map((i) => ({ i, months: (Math.min(i.to ?? now, to) - Math.max(i.from, from)) / 1000 / SECONDS_PER_MONTH }))
      .filter((piece) => piece.i.from < Math.min(to, now) && (piece.i.to === null || piece.i.to > from))
      .filter((piece) => piece.months > 0);
    if (pieces.length === 0) continue;
    const latest = pieces.reduce((a, b) => (b.i.from > a.i.from ? b : a)).i;
    const sourceOf = (i: Interval) =>
      service.monthlyTrafficGb !== null ? 'api' : service.measuredTrafficGb !== null ? 'measured' : i.trafficSource;
    const groups = new Map<string, Omit<ServicePeriodRow, 'clusterId'>>();
    for (const { i, months } of pieces) {
      const opportunity =
        i.routing === 'None' &&
        i.previewState === 'populated' &&
        (i.managedBy ?? 'endpointslice-controller') === 'endpointslice-controller';
      const previewRefused = i.routing === 'None' && i.previewState === 'removed';
      const hintsRefused = i.routing !== 'None' && i.hintState === 'removed' && (i.honoursHints ?? true);
      const basis = opportunity ? 'preview' : previewRefused || hintsRefused ? 'blocked' : null;
      const reason = opportunity ? null : previewRefused ? i.previewReason : hintsRefused ? i.hintReason : null;
      const asRouted = share ?? i.withHints ?? 0;
      const missedFraction = !opportunity
        ? basis === 'blocked'
          ? asRouted
          : 0
        : i.previewCrossZone === null
          ? null
          : asRouted - i.previewCrossZone;
      const gbM = (service.monthlyTrafficGb ?? service.measuredTrafficGb ?? i.trafficGb) * months;
      const key = `${basis}/${reason}`;
      const row = groups.get(key) ?? {
        namespace: service.namespace,
        name: service.name,
        routing: latest.routing,
        hintState: latest.hintState,
        hintReason: latest.hintReason,
        trafficSource: sourceOf(latest) as ServicePeriodRow['trafficSource'],
        fullyMeasured: service.monthlyTrafficGb === null && service.measuredTrafficGb !== null && share !== null,
        measuredCrossZone: share,
        modelCrossZone: latest.withHints ?? 0,
        honoursHints: latest.honoursHints ?? true,
        estimated: null as unknown as boolean,
        missedBasis: basis,
        missedReason: reason,
        months: 0,
        trafficGb: 0,
        withoutHintsGb: 0,
        withoutHintsCost: 0,
        withHintsGb: 0,
        withHintsCost: 0,
        missedGb: null as unknown as number,
        missedCost: null as unknown as number,
      };
      const source = sourceOf(i);
      if (source !== null) row.estimated = row.estimated === true || source === 'default-per-endpoint';
      row.months += months;
      row.trafficGb += gbM;
      row.withoutHintsGb += gbM * i.withoutHints;
      row.withoutHintsCost += gbM * i.withoutHints * cluster.price;
      row.withHintsGb += gbM * asRouted;
      row.withHintsCost += gbM * asRouted * cluster.price;
      if (missedFraction !== null) {
        row.missedGb = (row.missedGb ?? 0) + gbM * missedFraction;
        row.missedCost = (row.missedCost ?? 0) + gbM * missedFraction * cluster.price;
      }
      groups.set(key, row);
    }
    // Nulls first, then by text (the bases and reasons here sort alike in every collation).
    const sortKey = (value: string | null) => (value === null ? '0' : `1${value}`);
    for (const row of groups.values()) {
      rows.push({
        ...row,
        order: `${row.namespace}/${row.name}/${sortKey(row.missedBasis)}/${sortKey(row.missedReason)}`,
      });
    }
  }
  return rows.sort((a, b) => (a.order < b.order ? -1 : 1)).map(({ order: _, ...row }) => row);
}

beforeAll(async () => {
  db = await createTestDatabase('reportrows');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  readDb = new ReadDb({ databaseUrl: db.url, poolMax: 2 });
  const indexes = SERVICES_OF_HISTORY.map((_, index) => index);
  const shuffled = indexes.map((index) => (index * 11) % SERVICES);
  for (const [n, price, order, latestFirst] of [
    [0, 0.02, indexes, true],
    [1, 0.0137, shuffled, true],
    [2, 0.02, [...shuffled].reverse(), false],
  ] as const) {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'report-rows', name: `c${n}` });
    clusters.push({ id: cluster.id, price });
    await insertHistory(cluster.id, [...order], latestFirst);
  }
  expect(new Set(shuffled).size).toBe(SERVICES);
});

afterAll(async () => {
  await readDb?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

function ranges(): { name: string; from: Date; to: Date }[] {
  const at = (days: number, hours: number) => new Date(T0 + days * DAY + hours * HOUR + 11 * 60_000);
  return [
    { name: '30 days up to now', from: new Date(NOW.getTime() - 30 * DAY), to: NOW },
    { name: 'from inside the history up to now', from: at(3, 7), to: NOW },
    { name: 'ending before now', from: at(1, 2), to: at(6, 9) },
    { name: 'within one day', from: at(4, 2), to: at(4, 20) },
  ];
}

function sameService(a: ServicePeriodRow, b: ServicePeriodRow): boolean {
  return a.clusterId === b.clusterId && a.namespace === b.namespace && a.name === b.name;
}

describe("a report's Service rows", () => {
  it('are the interval-by-interval figures, latest states and order, over every range', async () => {
    let compared = 0;
    let unknownMissed = 0;
    for (const range of ranges()) {
      const query = {
        clusters: { ids: clusters.map((c) => c.id), prices: clusters.map((c) => c.price) },
        ...range,
        now: NOW,
      };
      const rows = await reportServiceRows(readDb, query);
      const byCluster = [...clusters].sort((a, b) => (a.id < b.id ? -1 : 1));
      const expected = byCluster.flatMap((cluster) =>
        referenceRows(cluster, range).map((row) => ({ clusterId: cluster.id, ...row })),
      );
      expectSameAnswer(rows, expected, range.name);
      const bases = new Set(rows.map((row) => `${row.missedBasis}/${row.missedReason}`));
      expect(bases.size, range.name).toBeGreaterThanOrEqual(range.name === 'within one day' ? 3 : 5);
      // Services of several rows, whose latest state comes from another of their rows than most.
      const continued = rows.filter((row, n) => n > 0 && sameService(rows[n - 1], row));
      expect(continued.length, range.name).toBeGreaterThan(range.name === 'within one day' ? 3 : 10);
      unknownMissed += rows.filter((row) => row.missedBasis === 'preview' && row.missedGb === null).length;
      compared += rows.length;
    }
    expect(compared).toBeGreaterThan(200);
    // Opportunities whose every interval lacks the preview's crossings: nothing summed, as SQL's sum of nulls.
    expect(unknownMissed).toBeGreaterThan(0);
  });

  it('are the same bit for bit whatever order the history was written in', async () => {
    for (const range of ranges()) {
      const rowsOf = async (cluster: { id: string; price: number }) =>
        (await reportServiceRows(readDb, { clusters: { ids: [cluster.id], prices: [0.02] }, ...range, now: NOW })).map(
          ({ clusterId: _, ...row }) => row,
        );
      const [first, last] = [await rowsOf(clusters[0]), await rowsOf(clusters[2])];
      expect(first.length).toBeGreaterThan(0);
      expect(last, range.name).toEqual(first);
    }
  });
});
