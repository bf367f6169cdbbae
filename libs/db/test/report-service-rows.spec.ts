import { describe, expect, it } from 'vitest';
import { expectSameAnswer } from '../../../test/support/same-answer.js';
import { reportServiceCount, reportServiceRows, type ServicePeriodRow } from '../src/index.js';
import {
  useReportHistory,
  type Interval,
  NOW,
  ranges,
  SECONDS_PER_MONTH,
  SERVICES,
  SERVICES_OF_HISTORY,
} from './report-history.js';

/**
 * A report's Service rows (reportServiceRows) against an interval-by-interval reference computed here,
 * over the report history (report-history.ts): every row's figures, its Service's latest state in the
 * period, and the rows' order. The same history inserted in two orders answers the same bit for bit
 * (the sums run in a fixed order).
 */

const history = useReportHistory('reportrows');

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

function sameService(a: ServicePeriodRow, b: ServicePeriodRow): boolean {
  return a.clusterId === b.clusterId && a.namespace === b.namespace && a.name === b.name;
}

describe("a report's Service rows", () => {
  it('are the interval-by-interval figures, latest states and order, over every range', async () => {
    let compared = 0;
    let unknownMissed = 0;
    for (const range of ranges()) {
      const query = {
        clusters: { ids: history().clusters.map((c) => c.id), prices: history().clusters.map((c) => c.price) },
        ...range,
        now: NOW,
      };
      const rows = await reportServiceRows(history().readDb, query);
      const byCluster = [...history().clusters].sort((a, b) => (a.id < b.id ? -1 : 1));
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
        (
          await reportServiceRows(history().readDb, {
            clusters: { ids: [cluster.id], prices: [0.02] },
            ...range,
            now: NOW,
          })
        ).map(({ clusterId: _, ...row }) => row);
      const [first, last] = [await rowsOf(history().clusters[0]), await rowsOf(history().clusters[2])];
      expect(first.length).toBeGreaterThan(0);
      expect(last, range.name).toEqual(first);
    }
  });

  it("never number more Services than reportServiceCount counts in the report's scope", async () => {
    const ids = history().clusters.map((cluster) => cluster.id);
    expect(await reportServiceCount(history().readDb, ids)).toBe(ids.length * SERVICES);
    expect(await reportServiceCount(history().readDb, ids.slice(1))).toBe(2 * SERVICES);
    for (const range of ranges()) {
      const rows = await reportServiceRows(history().readDb, {
        clusters: { ids, prices: history().clusters.map((cluster) => cluster.price) },
        ...range,
        now: NOW,
      });
      const services = new Set(rows.map((row) => `${row.clusterId}/${row.namespace}/${row.name}`));
      expect(services.size, range.name).toBeLessThanOrEqual(ids.length * SERVICES);
    }
  });
});
