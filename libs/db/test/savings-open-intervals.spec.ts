import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { expectSameAnswer } from '../../../test/support/same-answer.js';
import { referenceSavingsWithOpportunities } from '../../../test/support/savings-reference.js';
import {
  createPrismaClient,
  type PrismaClient,
  ReadDb,
  refreshSavingsDays,
  registerCluster,
  type SavingsDaySpan,
  type SavingsGroupBy,
  type SavingsRow,
  savingsRows,
  savingsWithOpportunities,
} from '../src/index.js';

/**
 * The savings statement joins each Service's open interval to the sums of its other pieces (edges and
 * roll-up rows) instead of grouping it with them. Every way a Service can hold pieces in a range is
 * here, in two clusters at two prices: an open interval alone (inside the range or from before it), a
 * closed one then an open one, closed ones only (a Service gone), and API, measured volumes and measured
 * shares (with and without a measured volume) over each, opportunities for all or part of the range; the answers equal the interval-by-interval reference (test/support/savings-reference.ts).
 */

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** A Thursday, 05:17 UTC: intervals start and end inside days and weeks. */
const T0 = Date.UTC(2026, 9, 1, 5, 17);
const NOW = new Date(T0 + 10 * DAY + 5 * HOUR);
const SERVICES = 40;

let db: TestDatabase;
let prisma: PrismaClient;
let readDb: ReadDb;
const clusters: { id: string; pricePerGb: number }[] = [];
/** Two clusters at one price whose Services tie in groups (see {@link insertHistory}). */
const tiedClusters: { id: string; pricePerGb: number }[] = [];
const TIE_KINDS = 10;

/** One interval's state columns for Service `index` in `variant` (0 or 1): opportunities and Services with hints. */
function stateOf(index: number, variant: number) {
  const none = (index + variant) % 2 === 0;
  return {
    routing: none ? 'None' : 'Auto',
    hintState: none ? 'none' : 'populated',
    withoutHints: ((index + variant) % 7) / 9,
    withHints: none ? ((index + variant) % 7) / 9 : ((index * 3 + variant) % 5) / 17,
    trafficGb: 40 + index * 2.5 + variant * 7,
    trafficSource: index % 3 === 0 ? 'annotation' : 'default-per-endpoint',
    previewState: none && index % 6 !== 5 ? 'populated' : null,
    previewCrossZone: none ? ((index + 2 * variant) % 5) / 13 : null,
    managedBy: index % 10 === 4 ? 'custom-controller' : 'endpointslice-controller',
  };
}

/** Service `index`'s intervals: [from, to) with to null while open, by the kind of history it has. */
function intervalsOf(index: number): { from: number; to: number | null; variant: number }[] {
  const at = (days: number, hours: number) => T0 + days * DAY + hours * HOUR;
  switch (index % 5) {
    case 0:
      return [{ from: at(index % 3, 5), to: null, variant: 0 }];
    case 1:
      return [
        { from: at(0, 1), to: at(4, 3), variant: 0 },
        { from: at(4, 3), to: null, variant: 1 },
      ];
    case 2:
      return [{ from: at(2, 0), to: at(7, 2), variant: 1 }];
    case 3:
      return [
        { from: at(-3, 0), to: at(8, 11), variant: 1 },
        { from: at(8, 11), to: null, variant: 0 },
      ];
    default:
      return [{ from: at(-2, 0), to: null, variant: 1 }];
  }
}

/**
 * Services whose volume and share crossing zones are measured, over every kind of history (also an
 * opportunity for part of the range: its other interval has hints), and Services with a measured share but
 * no measured volume (the share applies to the snapshots' volume).
 */
const measured = (index: number) => index % 4 === 0;
const measuredShareOnly = (index: number) => index % 4 === 2;

/**
 * Service `n` of the cluster gets the history of Service `kindOf(n)` (its own by default): with
 * `n % TIE_KINDS`, Services of one cluster tie on every figure, and so do those of two clusters at one price.
 */
async function insertHistory(clusterId: string, kindOf = (n: number) => n): Promise<void> {
  const spans: SavingsDaySpan[] = [];
  for (let n = 0; n < SERVICES; n++) {
    const index = kindOf(n);
    const [{ id }] = await prisma.$queryRaw<{ id: bigint }[]>`
      INSERT INTO cluster_services (cluster_id, namespace, name, monthly_traffic_gb, measured_traffic_gb, measured_cross_zone)
      VALUES (${clusterId}::uuid, ${`team-${index % 3}`}, ${`svc-${n}`},
              ${index % 7 === 0 ? 123.5 : null}::float8, ${measured(index) ? 45 : null}::float8,
              ${measured(index) || measuredShareOnly(index) ? 0.3 : null}::float8)
      RETURNING id`;
    for (const interval of intervalsOf(index)) {
      const s = stateOf(index, interval.variant);
      await prisma.$executeRaw`
        INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                       zones, cross_zone_without_hints, cross_zone_with_hints, ready_endpoints,
                                       traffic_gb, traffic_source, preview_state, preview_cross_zone, managed_by)
        VALUES (${clusterId}::uuid, ${id}, ${new Date(interval.from)}, ${interval.to === null ? null : new Date(interval.to)},
                ${index * 2 + interval.variant}, ${s.routing}::routing_mode, ${s.hintState}::hint_state, '{}',
                ${s.withoutHints}, ${s.withHints}, 3, ${s.trafficGb}, ${s.trafficSource},
                ${s.previewState}::hint_state, ${s.previewCrossZone}::float8, ${s.managedBy})`;
      if (interval.to !== null) spans.push({ serviceId: id, from: new Date(interval.from), to: new Date(interval.to) });
    }
  }
  await refreshSavingsDays(prisma, clusterId, spans);
}

beforeAll(async () => {
  db = await createTestDatabase('savingsopen');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  readDb = new ReadDb({ databaseUrl: db.url, poolMax: 2 });
  for (const [n, pricePerGb] of [0.02, 0.0137].entries()) {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'savings-open', name: `c${n}` });
    clusters.push({ id: cluster.id, pricePerGb });
    await insertHistory(cluster.id);
  }
  for (const n of [0, 1]) {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'savings-ties', name: `t${n}` });
    tiedClusters.push({ id: cluster.id, pricePerGb: 0.02 });
    await insertHistory(cluster.id, (index) => index % TIE_KINDS);
  }
});

afterAll(async () => {
  await readDb?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

/** Ranges up to now (from before the history, from inside it), ending before now, and within one day. */
function ranges(): { name: string; from: Date; to: Date }[] {
  const at = (days: number, hours: number) => new Date(T0 + days * DAY + hours * HOUR + 11 * 60_000);
  return [
    { name: '30 days up to now', from: new Date(NOW.getTime() - 30 * DAY), to: NOW },
    { name: 'from inside the history up to now', from: at(3, 7), to: NOW },
    { name: 'ending before now', from: at(1, 2), to: at(6, 9) },
    { name: 'within one day', from: at(8, 2), to: at(8, 20) },
  ];
}

describe('savings with open intervals joined to the other pieces', () => {
  it('answers what the interval-by-interval query answers, for every groupBy, range, filter and limit', async () => {
    let compared = 0;
    for (const range of ranges()) {
      for (const groupBy of ['cluster', 'namespace', 'service'] as SavingsGroupBy[]) {
        for (const [namespace, limit] of [
          [undefined, 1000],
          ['team-1', 1000],
          [undefined, 3],
        ] as const) {
          const query = { clusters, ...range, now: NOW, groupBy, namespace, limit };
          const expected = await referenceSavingsWithOpportunities(readDb, query, Math.min(limit, 5));
          expectSameAnswer(
            await savingsWithOpportunities(readDb, query, Math.min(limit, 5)),
            expected,
            `${range.name}, ${groupBy}, ${namespace ?? 'all'}, ${limit}`,
          );
          compared += expected.rows.length + expected.opportunities.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(300);
  });

  it('ranks Services tying on their figures, within a cluster and across clusters, as the reference does', async () => {
    // 2 clusters × 40 Services in 10 kinds: each figure is shared by 4 Services of a cluster and 8 in all, so
    // every limit below cuts through a group of ties (the first `limit` are then picked by cluster and name).
    for (const range of ranges()) {
      for (const limit of [1, 3, 4, 6, 9, 17, 1000]) {
        const query = { clusters: tiedClusters, ...range, now: NOW, groupBy: 'service' as const, limit };
        const expected = await referenceSavingsWithOpportunities(readDb, query, limit);
        expect(expected.rows.length).toBeGreaterThan(1);
        expectSameAnswer(
          await savingsWithOpportunities(readDb, query, limit),
          expected,
          `ties, ${range.name}, ${limit}`,
        );
        // The groups alone (GraphQL's read) rank the same Services: the reference's rows in savingsRows' columns.
        const alone = await savingsRows(readDb, query);
        const columns = Object.keys(alone[0]);
        expectSameAnswer(
          alone,
          expected.rows.map((row) =>
            Object.fromEntries(columns.map((column) => [column, row[column as keyof SavingsRow]])),
          ),
          `ties, groups alone, ${range.name}, ${limit}`,
        );
      }
    }
  });

  it('counts every kind of Service once in the totals: open alone, closed then open, gone, own traffic', async () => {
    const query = { clusters, ...ranges()[0], now: NOW, groupBy: 'cluster' as const, limit: 10 };
    const { rows } = await savingsWithOpportunities(readDb, query, 5);
    const totals = rows.find((row) => row.is_total)!;
    expect(totals.services).toBe(2 * SERVICES);
    expect(totals.services_api).toBe(2 * Math.ceil(SERVICES / 7));
    expect(totals.services_measured_share).toBeGreaterThan(0);
    expect(totals.opportunities).toBeGreaterThan(0);
  });
});
