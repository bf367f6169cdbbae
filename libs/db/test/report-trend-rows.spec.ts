import { describe, expect, it } from 'vitest';
import { expectSameAnswer } from '../../../test/support/same-answer.js';
import {
  AS_ROUTED_FRACTION_SQL,
  AS_ROUTED_MISSED_FRACTION_SQL,
  EFFECTIVE_TRAFFIC_SQL,
  OPPORTUNITY_SQL,
  reportTrendRows,
} from '../src/index.js';
import type { TrendRow } from '@zw/reports';
import { useReportHistory, NOW, ranges, SECONDS_PER_MONTH, SERVICES_OF_HISTORY } from './report-history.js';

/**
 * A report's trend (reportTrendRows: the period's integrals per bucket) over the report history
 * (report-history.ts), against an interval-by-interval reference computed here and against the same
 * sums taken interval by interval in Postgres's numeric: grouping the intervals by span first must not
 * move a single bit.
 */

const history = useReportHistory('reporttrend');

/** `count` buckets of equal length over the range. */
function bucketsOf(range: { from: Date; to: Date }, count: number): { start: Date; end: Date }[] {
  const [from, to] = [range.from.getTime(), range.to.getTime()];
  const at = (k: number) => new Date(from + Math.round(((to - from) * k) / count));
  return Array.from({ length: count }, (_, k) => ({ start: at(k), end: at(k + 1) }));
}

/** The trend of the clusters, interval by interval, as the savings semantics define it. */
function referenceTrend(clusters: { price: number }[], buckets: { start: Date; end: Date }[]): TrendRow[] {
  const now = NOW.getTime();
  const rows: TrendRow[] = [];
  for (const [index, bucket] of buckets.entries()) {
    const row: TrendRow = {
      index,
      withoutHintsGb: 0,
      withoutHintsCost: 0,
      withHintsGb: 0,
      withHintsCost: 0,
      notEnabledGb: null as unknown as number,
      notEnabledCost: null as unknown as number,
    };
    let pieces = 0;
    for (const { price } of clusters) {
      for (const service of SERVICES_OF_HISTORY) {
        const share =
          service.measuredCrossZone !== null && service.measuredCrossZone >= 0 && service.measuredCrossZone <= 1
            ? service.measuredCrossZone
            : null;
        for (const i of service.intervals) {
          const end = Math.min(i.to ?? now, bucket.end.getTime(), now);
          const months = (end - Math.max(i.from, bucket.start.getTime())) / 1000 / SECONDS_PER_MONTH;
          if (!(i.from < bucket.end.getTime() && (i.to === null || i.to > bucket.start.getTime()) && months > 0))
            continue;
          pieces++;
          const gbM = (service.monthlyTrafficGb ?? service.measuredTrafficGb ?? i.trafficGb) * months;
          const asRouted = share ?? i.withHints ?? 0;
          const opportunity =
            i.routing === 'None' &&
            i.previewState === 'populated' &&
            (i.managedBy ?? 'endpointslice-controller') === 'endpointslice-controller';
          row.withoutHintsGb += gbM * i.withoutHints;
          row.withoutHintsCost += gbM * i.withoutHints * price;
          row.withHintsGb += gbM * asRouted;
          row.withHintsCost += gbM * asRouted * price;
          const missed = !opportunity ? 0 : i.previewCrossZone === null ? null : asRouted - i.previewCrossZone;
          if (missed !== null) {
            row.notEnabledGb = (row.notEnabledGb ?? 0) + gbM * missed;
            row.notEnabledCost = (row.notEnabledCost ?? 0) + gbM * missed * price;
          }
        }
      }
    }
    if (pieces > 0) rows.push(row);
  }
  return rows;
}

/** The same sums taken interval by interval in numeric, each interval cut by each bucket it overlaps. */
const INTERVAL_BY_INTERVAL_SQL = `
  WITH prices(cluster_id, price) AS (SELECT * FROM unnest($1::uuid[], $2::float8[])),
  buckets(idx, b_start, b_end) AS (SELECT * FROM unnest($6::int[], $7::timestamptz[], $8::timestamptz[])),
  pieces AS (
    SELECT b.idx, p.price::numeric AS price, (${EFFECTIVE_TRAFFIC_SQL})::numeric AS gb,
           COALESCE(i.cross_zone_without_hints, 0)::numeric AS without_fraction,
           (${AS_ROUTED_FRACTION_SQL})::numeric AS with_fraction,
           (CASE WHEN ${OPPORTUNITY_SQL} THEN ${AS_ROUTED_MISSED_FRACTION_SQL} ELSE 0 END)::numeric AS missed_fraction,
           EXTRACT(EPOCH FROM LEAST(COALESCE(i.valid_to, $5::timestamptz), b.b_end, $5::timestamptz)
                              - GREATEST(i.valid_from, b.b_start))::numeric / ${SECONDS_PER_MONTH} AS months
      FROM service_intervals i
      JOIN cluster_services s ON s.id = i.service_id
      JOIN prices p ON p.cluster_id = i.cluster_id
      JOIN buckets b ON i.valid_from < b.b_end AND (i.valid_to IS NULL OR i.valid_to > b.b_start)
     WHERE i.cluster_id = ANY($1::uuid[]) AND i.valid_from < LEAST($4::timestamptz, $5::timestamptz)
       AND (i.valid_to IS NULL OR i.valid_to > $3::timestamptz)
  )
  SELECT idx AS index,
         sum(gb * months * without_fraction)::float8 AS "withoutHintsGb",
         sum(gb * months * without_fraction * price)::float8 AS "withoutHintsCost",
         sum(gb * months * with_fraction)::float8 AS "withHintsGb",
         sum(gb * months * with_fraction * price)::float8 AS "withHintsCost",
         sum(gb * months * missed_fraction)::float8 AS "notEnabledGb",
         sum(gb * months * missed_fraction * price)::float8 AS "notEnabledCost"
    FROM pieces WHERE months > 0
   GROUP BY idx ORDER BY idx`;

describe("a report's trend", () => {
  it('is the integrals of the intervals per bucket, over every range', async () => {
    let notEnabled = 0;
    for (const range of ranges()) {
      const buckets = bucketsOf(range, 7);
      const query = {
        clusters: { ids: history().clusters.map((c) => c.id), prices: history().clusters.map((c) => c.price) },
        ...range,
        now: NOW,
      };
      const rows = await reportTrendRows(history().readDb, query, buckets);
      expect(rows.length, range.name).toBeGreaterThan(0);
      expectSameAnswer(rows, referenceTrend(history().clusters, buckets), range.name);
      notEnabled += rows.filter((row) => row.notEnabledGb > 0).length;
    }
    expect(notEnabled).toBeGreaterThan(0);
  });

  it('is what summing interval by interval in numeric gives, bit for bit', async () => {
    for (const range of ranges()) {
      for (const count of [1, 7, 24]) {
        const buckets = bucketsOf(range, count);
        const query = {
          clusters: { ids: history().clusters.map((c) => c.id), prices: history().clusters.map((c) => c.price) },
          ...range,
          now: NOW,
        };
        const values = [
          query.clusters.ids,
          query.clusters.prices,
          query.from,
          query.to,
          query.now,
          buckets.map((_, index) => index),
          buckets.map((bucket) => bucket.start),
          buckets.map((bucket) => bucket.end),
        ];
        const expected = await history().readDb.query<TrendRow>(INTERVAL_BY_INTERVAL_SQL, values);
        expect(expected.length, range.name).toBeGreaterThan(0);
        expect(await reportTrendRows(history().readDb, query, buckets), `${range.name}, ${count} buckets`).toEqual(
          expected,
        );
      }
    }
  });
});
