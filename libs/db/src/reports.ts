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
  FULLY_MEASURED_SQL,
  MEASURED_SHARE_SQL,
  OPPORTUNITY_SQL,
  REFUSED_HINTS_SQL,
  TRAFFIC_SOURCE_SQL,
} from './read-model/rollup.js';
import { HOURS_PER_MONTH } from './read-model/savings.js';

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

// ─── History over a period ──────────────────────────────────────────────────────────────────────

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

export interface PricedClusters {
  ids: readonly string[];
  /** USD per cross-zone GB, in the order of `ids`. */
  prices: readonly number[];
}

export interface PeriodQuery {
  clusters: PricedClusters;
  from: Date;
  to: Date;
  /** Open intervals (states still holding) count up to this instant. */
  now: Date;
}

const SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;

function periodValues(query: PeriodQuery): unknown[] {
  return [query.clusters.ids, query.clusters.prices, query.from, query.to, query.now];
}

/**
 * The order of the answer's rows, which also keeps each row's intervals together: by Service (its
 * position: cluster, namespace, name), then missed basis and reason, nulls first. Plain ascending keys
 * (the nulls first as a rank and a flag, columns of `weighted`), as GROUP BY and windows sort by them.
 */
const GROUP_ORDER = 'position, basis_rank, has_reason, missed_reason';

/**
 * Every interval of the clusters overlapping [from, to) with positive months in the range, as float8
 * figures ready to sum (see {@link reportServiceRows}): the Service's `position` in the answer's order,
 * its state, and its months, traffic GB and each figure's GB and cost over them.
 */
const SERVICE_SPANS_SQL = `
  prices(cluster_id, price) AS (SELECT * FROM unnest($1::uuid[], $2::float8[])),
  services AS (
    SELECT s.id, s.cluster_id, s.namespace, s.name, s.monthly_traffic_gb, s.measured_traffic_gb, s.measured_cross_zone,
           row_number() OVER (ORDER BY s.cluster_id, s.namespace, s.name) AS position
      FROM cluster_services s WHERE s.cluster_id = ANY($1::uuid[])
  ),
  spans AS (
    SELECT s.position, s.cluster_id, s.namespace, s.name, p.price, i.valid_from, i.routing, i.hint_state, i.hint_reason,
           ${EFFECTIVE_TRAFFIC_SQL} AS gb,
           ${TRAFFIC_SOURCE_SQL} AS source,
           COALESCE(i.cross_zone_without_hints, 0) AS without_fraction,
           ${AS_ROUTED_FRACTION_SQL} AS with_fraction,
           COALESCE(i.cross_zone_with_hints, 0)::float8 AS model_with_fraction,
           (${MEASURED_SHARE_SQL})::float8 AS measured_share,
           ${FULLY_MEASURED_SQL} AS fully_measured,
           COALESCE(i.honours_hints, true) AS honours_hints,
           CASE WHEN ${OPPORTUNITY_SQL} THEN 'preview'
                WHEN i.routing = 'None' AND i.preview_state = 'removed' THEN 'blocked'
                WHEN ${REFUSED_HINTS_SQL} THEN 'blocked' END AS missed_basis,
           CASE WHEN ${OPPORTUNITY_SQL} THEN NULL
                WHEN i.routing = 'None' AND i.preview_state = 'removed' THEN i.preview_reason
                WHEN ${REFUSED_HINTS_SQL} THEN i.hint_reason END AS missed_reason,
           CASE WHEN ${OPPORTUNITY_SQL} THEN ${AS_ROUTED_MISSED_FRACTION_SQL}
                WHEN (i.routing = 'None' AND i.preview_state = 'removed')
                  OR (${REFUSED_HINTS_SQL}) THEN ${AS_ROUTED_FRACTION_SQL}
                ELSE 0 END AS missed_fraction,
           date_part('epoch', LEAST(COALESCE(i.valid_to, $5), $4) - GREATEST(i.valid_from, $3))
             / ${SECONDS_PER_MONTH} AS months
      FROM service_intervals i
      JOIN services s ON s.id = i.service_id
      JOIN prices p ON p.cluster_id = i.cluster_id
     WHERE i.cluster_id = ANY($1::uuid[]) AND i.valid_from < LEAST($4, $5)
       AND (i.valid_to IS NULL OR i.valid_to > $3)
    OFFSET 0
  ),
  weighted AS (
    SELECT position, cluster_id, namespace, name, valid_from, routing, hint_state, hint_reason, source,
           model_with_fraction, measured_share, fully_measured, honours_hints, missed_basis, missed_reason, months,
           gb_m, gb_m * without_fraction AS without_gb, gb_m * without_fraction * price AS without_cost,
           gb_m * with_fraction AS with_gb, gb_m * with_fraction * price AS with_cost,
           gb_m * missed_fraction AS missed_gb, gb_m * missed_fraction * price AS missed_cost,
           CASE missed_basis WHEN 'blocked' THEN 1 WHEN 'preview' THEN 2 ELSE 0 END AS basis_rank,
           missed_reason IS NOT NULL AS has_reason
      FROM (SELECT *, gb * months AS gb_m FROM spans WHERE months > 0 OFFSET 0) w
     ORDER BY ${GROUP_ORDER}, valid_from
  )`;

/**
 * A Service's latest state in the period (that of its interval starting last), picked from the interval
 * marked `latest` among a row's intervals: its SQL and its name in the answer.
 */
const LATEST_COLUMNS: [string, keyof ServicePeriodRow][] = [
  ['(max(routing) FILTER (WHERE latest))::text', 'routing'],
  ['(max(hint_state) FILTER (WHERE latest))::text', 'hintState'],
  ['max(hint_reason COLLATE "C") FILTER (WHERE latest)', 'hintReason'],
  ['max(source COLLATE "C") FILTER (WHERE latest)', 'trafficSource'],
  ['bool_or(fully_measured) FILTER (WHERE latest)', 'fullyMeasured'],
  ['max(measured_share) FILTER (WHERE latest)', 'measuredCrossZone'],
  ['max(model_with_fraction) FILTER (WHERE latest)', 'modelCrossZone'],
  ['bool_or(honours_hints) FILTER (WHERE latest)', 'honoursHints'],
];

/** The figures summed over a row's intervals. */
const SUMMED: [string, string][] = [
  ['months', 'months'],
  ['gb_m', 'trafficGb'],
  ['without_gb', 'withoutHintsGb'],
  ['without_cost', 'withoutHintsCost'],
  ['with_gb', 'withHintsGb'],
  ['with_cost', 'withHintsCost'],
  ['missed_gb', 'missedGb'],
  ['missed_cost', 'missedCost'],
];

/**
 * A report's work memory: the period's intervals of every Service in scope are sorted and hashed in
 * memory. At the pool's 4 MB an organization of 200,000 Services sorted 40 MB on disk and hashed its
 * Services in 4 batches; this bound holds them (50 MB sorted, 35 MB hashed) and applies to this statement alone.
 */
const REPORT_WORK_MEM = { work_mem: '64MB' };

/**
 * Each Service's integrals over the period, one row per kind of missed saving, with its latest state in
 * the period (that of its interval starting last), by cluster, namespace and name.
 *
 * Decision: float8 sums in a fixed order, as the savings read model's: each row's intervals are summed
 * in the order they started. Summing in numeric (each figure converted to numeric through its text
 * form), a DISTINCT ON sort for the latest state joined back by a hash, a sort for the groups and one for
 * the answer took 2.6-2.8 s of Postgres CPU for an organization of 200,000 Services (bench/RESULTS.md,
 * report24); float8 sums differ from the numeric ones far below a cent. Here one sort of the intervals
 * (GROUP_ORDER, then start) serves everything: a window over each Service's intervals in that order
 * marks its latest, and the rows are grouped on the same keys, so the groups come out in the answer's
 * order, each summed in start order. A Service's position comes from the (cluster, namespace, name)
 * index, read in its order, so the sort compares integers, not names. Every other column of a row is its
 * Service's (or its basis's), the same on each of its intervals, so it is aggregated (`max`, texts
 * bytewise) rather than grouped on: grouped on, Postgres sorted the rows again by those columns (an
 * unstable sort, losing the start order) or hashed them.
 *
 * The row holding a Service's latest interval takes its latest state from it; the Service's other rows
 * (adjacent: the answer is in Service order; their routing null, a state's routing never is) copy it
 * here. A second window spreading it over the Service's intervals cost Postgres about a fifth of the
 * statement (bench/RESULTS.md, report24b).
 */
export async function reportServiceRows(db: ReadDb, query: PeriodQuery): Promise<ServicePeriodRow[]> {
  if (query.clusters.ids.length === 0) return [];
  const groupKeys = GROUP_ORDER.replace(/^position, /, '');
  // A value the same on every interval of a row (its Service's): any row's, texts compared bytewise.
  const same = (column: string) => `max(${column} COLLATE "C")`;
  const rows = await db.query<ServicePeriodRow>(
    `WITH ${SERVICE_SPANS_SQL},
     with_latest AS (
       -- Ordered as the rows are, so that Postgres keeps their order.
       SELECT *, valid_from = max(valid_from) OVER (PARTITION BY position ORDER BY ${groupKeys}, valid_from
                                                    ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS latest
         FROM weighted
     )
     SELECT ${same('cluster_id::text')} AS "clusterId", ${same('namespace')} AS namespace, ${same('name')} AS name,
            ${LATEST_COLUMNS.map(([sql, name]) => `${sql} AS "${name}"`).join(', ')},
            bool_or(source = 'default-per-endpoint') AS estimated,
            ${same('missed_basis')} AS "missedBasis", missed_reason AS "missedReason",
            ${SUMMED.map(([column, name]) => `sum(${column}) AS "${name}"`).join(', ')}
       FROM with_latest
      GROUP BY ${GROUP_ORDER}
      ORDER BY ${GROUP_ORDER}`,
    periodValues(query),
    REPORT_WORK_MEM,
  );
  return withLatestStates(rows);
}

/** Each Service's rows with the latest state of the one holding its latest interval. */
function withLatestStates(rows: ServicePeriodRow[]): ServicePeriodRow[] {
  for (let first = 0; first < rows.length;) {
    let end = first + 1;
    while (end < rows.length && sameService(rows[first], rows[end])) end++;
    if (end - first > 1) {
      const holder = rows.slice(first, end).find((row) => row.routing !== null)!;
      for (const row of rows.slice(first, end)) {
        if (row.routing === null) for (const [, name] of LATEST_COLUMNS) Object.assign(row, { [name]: holder[name] });
      }
    }
    first = end;
  }
  return rows;
}

function sameService(a: ServicePeriodRow, b: ServicePeriodRow): boolean {
  return a.name === b.name && a.namespace === b.namespace && a.clusterId === b.clusterId;
}

/**
 * Hint-state changes inside (from, to), counted as the Service timeline counts them: two back-to-back
 * intervals of a Service whose hint states differ.
 */
export async function reportTransitionRows(
  db: ReadDb,
  clusterIds: readonly string[],
  from: Date,
  to: Date,
): Promise<TransitionRow[]> {
  if (clusterIds.length === 0) return [];
  return db.query<TransitionRow>(
    `WITH ordered AS (
       SELECT i.cluster_id, s.namespace, s.name, i.valid_from, i.hint_state::text AS state,
              lag(i.hint_state::text) OVER w AS previous_state, lag(i.valid_to) OVER w AS previous_end
         FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id
        WHERE i.cluster_id = ANY($1::uuid[]) AND i.valid_from < $3 AND (i.valid_to IS NULL OR i.valid_to >= $2)
       WINDOW w AS (PARTITION BY i.service_id ORDER BY i.valid_from)
     )
     SELECT cluster_id::text AS "clusterId", namespace, name, previous_state AS "from", state AS "to",
            count(*)::int AS count
       FROM ordered
      WHERE valid_from > $2 AND previous_end = valid_from AND previous_state <> state
      GROUP BY cluster_id, namespace, name, previous_state, state
      ORDER BY cluster_id, namespace, name, previous_state, state`,
    [clusterIds, from, to],
  );
}

/** The period's integrals per bucket (buckets given in order), over every cluster of the query. */
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
       SELECT b.idx, p.price::numeric AS price, (${EFFECTIVE_TRAFFIC_SQL})::numeric AS gb,
              COALESCE(i.cross_zone_without_hints, 0)::numeric AS without_fraction,
              (${AS_ROUTED_FRACTION_SQL})::numeric AS with_fraction,
              (CASE WHEN ${OPPORTUNITY_SQL} THEN ${AS_ROUTED_MISSED_FRACTION_SQL} ELSE 0 END)::numeric AS missed_fraction,
              EXTRACT(EPOCH FROM LEAST(COALESCE(i.valid_to, $5), b.b_end, $5) - GREATEST(i.valid_from, b.b_start))::numeric
                / ${SECONDS_PER_MONTH} AS months
         FROM service_intervals i
         JOIN cluster_services s ON s.id = i.service_id
         JOIN prices p ON p.cluster_id = i.cluster_id
         JOIN buckets b ON i.valid_from < b.b_end AND (i.valid_to IS NULL OR i.valid_to > b.b_start)
        WHERE i.cluster_id = ANY($1::uuid[]) AND i.valid_from < LEAST($4, $5)
          AND (i.valid_to IS NULL OR i.valid_to > $3)
     )
     SELECT idx AS index,
            sum(gb * months * without_fraction)::float8 AS "withoutHintsGb",
            sum(gb * months * without_fraction * price)::float8 AS "withoutHintsCost",
            sum(gb * months * with_fraction)::float8 AS "withHintsGb",
            sum(gb * months * with_fraction * price)::float8 AS "withHintsCost",
            sum(gb * months * missed_fraction)::float8 AS "notEnabledGb",
            sum(gb * months * missed_fraction * price)::float8 AS "notEnabledCost"
       FROM spans WHERE months > 0
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
