import type { Db } from './db-client.js';
import type { Report, ReportFormat, ReportTrigger } from './generated/prisma/client.js';
import type { ReadDb } from './read-db.js';
import type {
  ClusterDocumentsRow,
  CoverageRow,
  ServicePeriodRow,
  StateCountRow,
  TransitionRow,
  TrendRow,
} from '@zw/reports';
import {
  AS_ROUTED_FRACTION_SQL,
  AS_ROUTED_MISSED_FRACTION_SQL,
  EFFECTIVE_TRAFFIC_SQL,
  OPPORTUNITY_SQL,
} from './read-model/rollup.js';
import { SECONDS_PER_MONTH } from './read-model/savings-days.js';
import { type PeriodQuery, periodValues } from './report-service-rows.js';

// The row shapes are the pure report builder's input types: this module fills them from SQL.
export type { ClusterDocumentsRow, CoverageRow, ServicePeriodRow, StateCountRow, TransitionRow, TrendRow };

/**
 * Storage side of scheduled reports: claiming a schedule's period (the row whose unique key makes a
 * report exist once), and the history read over a report's period. The row shapes are the ones
 * `@zw/reports` builds a report from.
 */

export interface ClaimReportInput {
  organizationId: string;
  scheduleId: string;
  periodStart: Date;
  periodEnd: Date;
  trigger: ReportTrigger;
  partial: boolean;
  formats: ReportFormat[];
}

/**
 * Claims the report of a schedule's period: inserts its row unless one exists (ON CONFLICT DO NOTHING on
 * (schedule_id, period_start, period_end)), then returns the row either way. `created` is true for the
 * one caller whose insert made it, whoever races: a retried job, a second worker, a catch-up.
 */
export async function claimReportPeriod(
  db: Db,
  input: ClaimReportInput,
): Promise<{ report: Report; created: boolean }> {
  const { count } = await db.report.createMany({ data: [input], skipDuplicates: true });
  const report = await db.report.findUniqueOrThrow({
    where: {
      scheduleId_periodStart_periodEnd: {
        scheduleId: input.scheduleId,
        periodStart: input.periodStart,
        periodEnd: input.periodEnd,
      },
    },
  });
  return { report, created: count === 1 };
}

/** End of the newest period the schedule itself claimed (made, being made, or failed), or null. */
export async function lastScheduledPeriodEnd(db: Db, scheduleId: string): Promise<Date | null> {
  const { _max } = await db.report.aggregate({
    where: { scheduleId, trigger: 'schedule' },
    _max: { periodEnd: true },
  });
  return _max.periodEnd;
}

export interface ReportClusterRow {
  id: string;
  name: string;
  cloud: 'aws' | 'gcp' | 'azure' | 'other';
  region: string | null;
  price_override: number | null;
  org_price_override: number | null;
}

/** The organization's clusters, all of them or those of `clusterIds` it still owns, by name. */
export async function reportClusters(
  db: ReadDb,
  organizationId: string,
  clusterIds: readonly string[] | null,
): Promise<ReportClusterRow[]> {
  return db.query<ReportClusterRow>(
    `SELECT id::text, name, cloud::text, region, cross_zone_price_per_gb::float8 AS price_override,
              (SELECT o.cross_zone_price_per_gb FROM organizations o WHERE o.id = clusters.organization_id)::float8 AS org_price_override
       FROM clusters
      WHERE organization_id = $1 AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))
      ORDER BY name, id`,
    [organizationId, clusterIds],
  );
}

/**
 * How many Services the clusters hold, every one ever seen that history still names: at least as many as
 * any report of theirs covers.
 */
export async function reportServiceCount(db: ReadDb, clusterIds: readonly string[]): Promise<number> {
  const [row] = await db.query<{ services: number }>(
    'SELECT count(*)::int AS services FROM cluster_services WHERE cluster_id = ANY($1::uuid[])',
    [clusterIds],
  );
  return row.services;
}

/**
 * How many Services a schedule's scope holds now: those of the organization's clusters named, or of all
 * of them (`clusterIds` null), counted as {@link reportServiceCount} counts them.
 */
export async function scopeServiceCount(
  db: Db,
  organizationId: string,
  clusterIds: readonly string[] | null,
): Promise<number> {
  return db.clusterService.count({
    where: { cluster: { organizationId }, ...(clusterIds === null ? {} : { clusterId: { in: [...clusterIds] } }) },
  });
}

/**
 * Hint-state changes inside (from, to), counted as the Service timeline counts them: two back-to-back
 * intervals of a Service whose hint states differ.
 *
 * Decision: each interval opened inside the range meets the one closed at its start (a Service's
 * intervals never overlap, so that is the one before it) through the (cluster, valid_to) index: both
 * sides are the range's changes only. Ordering every interval overlapping the range by Service to compare
 * neighbours took 1.2-2.5 s for an organization of 200,000 Services (bench/RESULTS.md, report24d).
 */
export async function reportTransitionRows(
  db: ReadDb,
  clusterIds: readonly string[],
  from: Date,
  to: Date,
): Promise<TransitionRow[]> {
  if (clusterIds.length === 0) return [];
  return db.query<TransitionRow>(
    `SELECT i.cluster_id::text AS "clusterId", s.namespace, s.name, p.hint_state::text AS "from",
            i.hint_state::text AS "to", count(*)::int AS count
       FROM service_intervals i
       JOIN service_intervals p ON p.service_id = i.service_id AND p.valid_to = i.valid_from
       JOIN cluster_services s ON s.id = i.service_id
      WHERE i.cluster_id = ANY($1::uuid[]) AND i.valid_from > $2::timestamptz AND i.valid_from < $3::timestamptz
        AND p.cluster_id = ANY($1::uuid[]) AND p.valid_to > $2::timestamptz AND p.valid_to < $3::timestamptz
        AND p.hint_state <> i.hint_state
      GROUP BY i.cluster_id, s.namespace, s.name, p.hint_state::text, i.hint_state::text
      ORDER BY i.cluster_id, s.namespace, s.name, p.hint_state::text, i.hint_state::text`,
    [clusterIds, from, to],
  );
}

/**
 * The period's integrals per bucket (buckets given in order), over every cluster of the query.
 *
 * Decision: the intervals are first summed into rates per span (start, end) and price, then each span is
 * cut by the buckets: a cluster's changed Services open and close their intervals at the same snapshot,
 * so an organization has far fewer spans than intervals (200,000 Services of one snapshot each: 200
 * spans), where joining every interval to every bucket it overlaps made 6 million rows of numeric
 * arithmetic (5.6 s for a 30-day report; bench/RESULTS.md, report24d). The sums stay in numeric, where
 * multiplication and addition are exact: a bucket's months are the same for every interval of a span, so
 * (the sum of traffic × fraction) × months equals the sum of traffic × months × fraction to the last
 * digit, and the answer is the same float8 as summing interval by interval.
 */
export async function reportTrendRows(
  db: ReadDb,
  query: PeriodQuery,
  buckets: readonly { start: Date; end: Date }[],
): Promise<TrendRow[]> {
  if (query.clusters.ids.length === 0 || buckets.length === 0) return [];
  return db.query<TrendRow>(
    `WITH prices(cluster_id, price) AS (SELECT * FROM unnest($1::uuid[], $2::float8[])),
     buckets(idx, b_start, b_end) AS (SELECT * FROM unnest($6::int[], $7::timestamptz[], $8::timestamptz[])),
     spans AS (
       SELECT valid_from, valid_to, price::numeric AS price, sum(gb * without_fraction) AS without_rate,
              sum(gb * with_fraction) AS with_rate, sum(gb * missed_fraction) AS missed_rate
         FROM (SELECT i.valid_from, i.valid_to, p.price, (${EFFECTIVE_TRAFFIC_SQL})::numeric AS gb,
                      COALESCE(i.cross_zone_without_hints, 0)::numeric AS without_fraction,
                      (${AS_ROUTED_FRACTION_SQL})::numeric AS with_fraction,
                      (CASE WHEN ${OPPORTUNITY_SQL} THEN ${AS_ROUTED_MISSED_FRACTION_SQL} ELSE 0 END)::numeric AS missed_fraction
                 FROM service_intervals i
                 JOIN cluster_services s ON s.id = i.service_id
                 JOIN prices p ON p.cluster_id = i.cluster_id
                WHERE i.cluster_id = ANY($1::uuid[]) AND i.valid_from < LEAST($4::timestamptz, $5::timestamptz)
                  AND (i.valid_to IS NULL OR i.valid_to > $3::timestamptz)
               OFFSET 0) interval_rates
        GROUP BY valid_from, valid_to, price
     ),
     pieces AS (
       SELECT b.idx, r.price, r.without_rate, r.with_rate, r.missed_rate,
              EXTRACT(EPOCH FROM LEAST(COALESCE(r.valid_to, $5), b.b_end, $5) - GREATEST(r.valid_from, b.b_start))::numeric
                / ${SECONDS_PER_MONTH} AS months
         FROM spans r
         JOIN buckets b ON r.valid_from < b.b_end AND (r.valid_to IS NULL OR r.valid_to > b.b_start)
     )
     SELECT idx AS index,
            sum(without_rate * months)::float8 AS "withoutHintsGb",
            sum(without_rate * months * price)::float8 AS "withoutHintsCost",
            sum(with_rate * months)::float8 AS "withHintsGb",
            sum(with_rate * months * price)::float8 AS "withHintsCost",
            sum(missed_rate * months)::float8 AS "notEnabledGb",
            sum(missed_rate * months * price)::float8 AS "notEnabledCost"
       FROM pieces WHERE months > 0
      GROUP BY idx ORDER BY idx`,
    [
      ...periodValues(query),
      buckets.map((_, index) => index),
      buckets.map((bucket) => bucket.start),
      buckets.map((bucket) => bucket.end),
    ],
  );
}

/** Services by hint state at each instant (the newest summary of each cluster before it), summed over clusters. */
export async function reportStateCounts(
  db: ReadDb,
  clusterIds: readonly string[],
  instants: readonly Date[],
): Promise<StateCountRow[]> {
  if (clusterIds.length === 0 || instants.length === 0) return [];
  return db.query<StateCountRow>(
    `SELECT b.idx AS index, COALESCE(sum(m.services_populated), 0)::int AS populated,
            COALESCE(sum(m.services_removed), 0)::int AS removed, COALESCE(sum(m.services_none), 0)::int AS none
       FROM unnest($2::int[], $3::timestamptz[]) AS b(idx, at)
      CROSS JOIN unnest($1::uuid[]) AS c(id)
       LEFT JOIN LATERAL (SELECT services_populated, services_removed, services_none FROM snapshot_summaries x
                           WHERE x.cluster_id = c.id AND x.captured_at < b.at
                           ORDER BY x.captured_at DESC LIMIT 1) m ON true
      GROUP BY b.idx ORDER BY b.idx`,
    [clusterIds, instants.map((_, index) => index), instants],
  );
}

/** Per cluster: the snapshots recorded in [from, to), and whether any was recorded before `from`. */
export async function reportCoverage(
  db: ReadDb,
  clusterIds: readonly string[],
  from: Date,
  to: Date,
): Promise<CoverageRow[]> {
  if (clusterIds.length === 0) return [];
  return db.query<CoverageRow>(
    `SELECT c.id::text AS "clusterId",
            (SELECT count(*)::int FROM snapshot_summaries m
              WHERE m.cluster_id = c.id AND m.captured_at >= $2 AND m.captured_at < $3) AS snapshots,
            (SELECT min(captured_at) FROM snapshot_summaries m
              WHERE m.cluster_id = c.id AND m.captured_at >= $2 AND m.captured_at < $3) AS "firstCapturedAt",
            (SELECT max(captured_at) FROM snapshot_summaries m
              WHERE m.cluster_id = c.id AND m.captured_at >= $2 AND m.captured_at < $3) AS "lastCapturedAt",
            EXISTS (SELECT 1 FROM snapshot_summaries m WHERE m.cluster_id = c.id AND m.captured_at < $2)
              AS "historyBeforePeriod"
       FROM unnest($1::uuid[]) AS c(id)`,
    [clusterIds, from, to],
  );
}

/** Each cluster's newest analysis captured before `before`: node info, per-zone statistics, Service CIDRs. */
export async function reportClusterDocuments(
  db: ReadDb,
  clusterIds: readonly string[],
  before: Date,
): Promise<ClusterDocumentsRow[]> {
  if (clusterIds.length === 0) return [];
  return db.query<ClusterDocumentsRow>(
    `SELECT c.id::text AS "clusterId", m.captured_at AS "capturedAt", m.node_info_sufficient AS "nodeInfoSufficient",
            m.node_info_reason AS "nodeInfoReason", z.body AS "zoneStats", d.body AS "serviceCidrs"
       FROM unnest($1::uuid[]) AS c(id)
       JOIN LATERAL (SELECT * FROM snapshot_summaries x WHERE x.cluster_id = c.id AND x.captured_at < $2
                      ORDER BY x.captured_at DESC LIMIT 1) m ON true
       LEFT JOIN analysis_documents z ON z.cluster_id = m.cluster_id AND z.hash = m.zone_stats_hash
       LEFT JOIN analysis_documents d ON d.cluster_id = m.cluster_id AND d.hash = m.service_cidrs_hash`,
    [clusterIds, before],
  );
}
