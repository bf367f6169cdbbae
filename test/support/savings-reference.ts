import {
  AS_ROUTED_FRACTION_SQL,
  AS_ROUTED_MISSED_FRACTION_SQL,
  EFFECTIVE_TRAFFIC_SQL,
  FULLY_MEASURED_SQL,
  HOURS_PER_MONTH,
  MEASURED_SHARE_SQL,
  OPPORTUNITY_SQL,
  type OpportunityRow,
  type ReadDb,
  type SavingsGroupBy,
  type SavingsQuery,
  type SavingsRow,
  TRAFFIC_SOURCE_SQL,
} from '@zw/db';

/**
 * The savings query as it was before the per-day roll-up (service_savings_days): every interval
 * overlapping the range integrated at query time. Kept only as the reference the roll-up's answers must
 * equal (see apps/worker/test/savings-days.spec.ts); never used by the product.
 */

/**
 * Every interval overlapping the range, summed per Service: its months in the range, its traffic and
 * cross-zone GB over them, what enabling topology routing would have saved, and where its traffic came
 * from. The range's intervals are read once and reduced to one row per Service before anything is
 * grouped or ranked.
 *
 * Decision: the per-Service sums run in float8 (a Service has a handful of intervals in a range, summed
 * in the index's order), the sums across Services in numeric (exact whatever the order of the Services),
 * so figures do not wobble between identical queries. Reading the intervals once and summing per Service
 * first made `groupBy=service` over 30 days of a 1,000-Service cluster several times faster than summing
 * every interval in numeric with distinct counts (see `npm run bench`).
 */
function perServiceSql(namespaceFilter: string): string {
  return `
    WITH prices(cluster_id, price) AS (SELECT * FROM unnest($1::uuid[], $2::float8[])),
    spans AS (
      SELECT i.cluster_id, i.service_id, p.price,
             ${EFFECTIVE_TRAFFIC_SQL} AS gb,
             ${TRAFFIC_SOURCE_SQL} AS source,
             COALESCE(i.cross_zone_without_hints, 0) AS without_fraction,
             ${AS_ROUTED_FRACTION_SQL} AS with_fraction,
             CASE WHEN ${OPPORTUNITY_SQL} THEN ${AS_ROUTED_MISSED_FRACTION_SQL} END AS missed_fraction,
             ${FULLY_MEASURED_SQL} AS fully_measured,
             (${MEASURED_SHARE_SQL}) IS NOT NULL AS measured_share,
             date_part('epoch', LEAST(COALESCE(i.valid_to, $5), $4) - GREATEST(i.valid_from, $3))
               / ${HOURS_PER_MONTH * 3600} AS months
        FROM service_intervals i
        JOIN cluster_services s ON s.id = i.service_id
        JOIN prices p ON p.cluster_id = i.cluster_id
       WHERE i.cluster_id = ANY($1::uuid[]) AND i.valid_from < LEAST($4, $5)
         AND (i.valid_to IS NULL OR i.valid_to > $3)${namespaceFilter}
    ), per_service AS (
      SELECT cluster_id, service_id, min(price) AS price,
             sum(months) AS months,
             sum(gb * months) AS gb_m,
             COALESCE(sum(gb * months) FILTER (WHERE source = 'measured'), 0) AS measured_gb_m,
             sum(gb * months * without_fraction) AS without_gb,
             sum(gb * months * with_fraction) AS with_gb,
             COALESCE(sum(gb * months * missed_fraction), 0) AS missed_gb,
             COALESCE(sum(gb * months) FILTER (WHERE missed_fraction IS NOT NULL), 0) AS opportunity_gb_m,
             COALESCE(sum(months) FILTER (WHERE missed_fraction IS NOT NULL), 0) AS opportunity_months,
             bool_or(source = 'api') AS source_api,
             bool_or(source = 'measured') AS source_measured,
             bool_or(source = 'annotation') AS source_annotation,
             bool_or(source = 'default-per-endpoint') AS source_default,
             bool_or(missed_fraction IS NOT NULL) AS opportunity,
             COALESCE(bool_or(source = 'default-per-endpoint') FILTER (WHERE missed_fraction IS NOT NULL), false)
               AS opportunity_estimated,
             bool_or(fully_measured) AS fully_measured,
             bool_or(measured_share) AS measured_share
        FROM spans WHERE months > 0
       GROUP BY cluster_id, service_id
    ), weighted AS (
      SELECT w.*, s.namespace, s.name FROM per_service w JOIN cluster_services s ON s.id = w.service_id
    )`;
}

/** Sums across Services in numeric: exact whatever the row order, so figures do not wobble between identical queries. */
const SUMS = `
      sum(months::numeric)::float8 AS months_total,
      COALESCE(sum(gb_m::numeric), 0)::float8 AS traffic_gb,
      COALESCE(sum(measured_gb_m::numeric), 0)::float8 AS measured_gb,
      COALESCE(sum(without_gb::numeric), 0)::float8 AS without_gb,
      COALESCE(sum(without_gb::numeric * price::numeric), 0)::float8 AS without_cost,
      COALESCE(sum(with_gb::numeric), 0)::float8 AS with_gb,
      COALESCE(sum(with_gb::numeric * price::numeric), 0)::float8 AS with_cost,
      COALESCE(sum(missed_gb::numeric), 0)::float8 AS missed_gb,
      COALESCE(sum(missed_gb::numeric * price::numeric), 0)::float8 AS missed_cost,
      COALESCE(sum(with_gb::numeric) FILTER (WHERE fully_measured), 0)::float8 AS measured_with_gb,
      COALESCE(sum(with_gb::numeric * price::numeric) FILTER (WHERE fully_measured), 0)::float8 AS measured_with_cost,
      COALESCE(sum(without_gb::numeric * price::numeric) FILTER (WHERE fully_measured), 0)::float8
        AS measured_without_cost,
      COALESCE(sum(missed_gb::numeric * price::numeric) FILTER (WHERE fully_measured), 0)::float8
        AS measured_missed_cost`;

const GROUP_COLUMNS: Record<SavingsGroupBy, string[]> = {
  cluster: ['cluster_id'],
  namespace: ['cluster_id', 'namespace'],
  service: ['cluster_id', 'namespace', 'name'],
};

/** The old `savingsWithOpportunities`, statement for statement. */
export async function referenceSavingsWithOpportunities(
  db: ReadDb,
  query: SavingsQuery,
  opportunityLimit: number,
): Promise<{ rows: SavingsRow[]; opportunities: OpportunityRow[] }> {
  const { values, namespaceFilter } = parametersOf(query);
  const columns = GROUP_COLUMNS[query.groupBy];
  const limit = `$${values.push(query.limit)}`;
  const opportunitiesLimit = `$${values.push(opportunityLimit)}`;
  const rows = await db.query<SavingsRow & { kind: 'group' | 'opportunity'; estimated: boolean | null }>(
    `${perServiceSql(namespaceFilter)}, ${groupedSql(columns)}, ${opportunitiesSql(opportunitiesLimit)}
    SELECT * FROM (
      SELECT 'group' AS kind, ${groupColumnsSql(columns)}, NULL::boolean AS estimated, rank AS position
        FROM ranked WHERE is_total OR rank <= ${limit}
      UNION ALL
      SELECT 'opportunity', cluster_id, namespace, name, false, months, traffic_gb, NULL, NULL, NULL, NULL, NULL,
             missed_gb, missed_cost, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             estimated, position
        FROM opportunity_rows
    ) answer
     ORDER BY kind, is_total DESC, position`,
    values,
  );
  return {
    rows: rows.filter((row) => row.kind === 'group'),
    opportunities: rows
      .filter((row) => row.kind === 'opportunity')
      .map((row) => ({
        cluster_id: row.cluster_id!,
        namespace: row.namespace!,
        name: row.name!,
        traffic_gb: row.traffic_gb,
        missed_gb: row.missed_gb,
        missed_cost: row.missed_cost,
        estimated: row.estimated === true,
        months: row.months,
      })),
  };
}

function parametersOf(query: SavingsQuery): { values: unknown[]; namespaceFilter: string } {
  const values: unknown[] = [
    query.clusters.map((c) => c.id),
    query.clusters.map((c) => c.pricePerGb),
    query.from,
    query.to,
    query.now,
  ];
  const namespaceFilter = query.namespace === undefined ? '' : ` AND s.namespace = $${values.push(query.namespace)}`;
  return { values, namespaceFilter };
}

/** `grouped` (the groups and the totals, GROUPING SETS) and `ranked` (largest cost first) over `weighted`. */
function groupedSql(columns: string[]): string {
  return `grouped AS (
      SELECT ${columns.join(', ')}, GROUPING(${columns[0]}) = 1 AS is_total, ${SUMS},
             count(*)::int AS services,
             count(*) FILTER (WHERE source_api)::int AS services_api,
             count(*) FILTER (WHERE source_measured)::int AS services_measured,
             count(*) FILTER (WHERE source_annotation)::int AS services_annotation,
             count(*) FILTER (WHERE source_default)::int AS services_default,
             count(*) FILTER (WHERE opportunity)::int AS opportunities,
             count(*) FILTER (WHERE measured_share)::int AS services_measured_share,
             count(*) FILTER (WHERE fully_measured)::int AS services_fully_measured
        FROM weighted
       GROUP BY GROUPING SETS ((${columns.join(', ')}), ())
    ), ranked AS (
      SELECT *, row_number() OVER (PARTITION BY is_total
                                   ORDER BY round(with_cost * 1000000) DESC, round(with_gb * 1000000) DESC,
                                            ${columns.join(', ')}) AS rank
        FROM grouped
    )`;
}

/** The columns of a SavingsRow, from `ranked`. */
function groupColumnsSql(columns: string[]): string {
  const keys = ['cluster_id', 'namespace', 'name']
    .map((column) => (columns.includes(column) ? column : `NULL AS ${column}`))
    .join(', ')
    .replace('cluster_id', 'cluster_id::text');
  return `${keys}, is_total, months_total AS months, traffic_gb, measured_gb, without_gb, without_cost, with_gb,
           with_cost, missed_gb, missed_cost, services, services_api, services_measured, services_annotation,
           services_default, opportunities, measured_with_gb, measured_with_cost, measured_without_cost,
           measured_missed_cost, services_measured_share, services_fully_measured`;
}

/** `opportunity_rows`: the ranked opportunities (at most `limit`), with their `position`. */
function opportunitiesSql(limit: string): string {
  return `opportunity_rows AS (
      SELECT cluster_id::text, namespace, name,
             sum(opportunity_gb_m::numeric)::float8 AS traffic_gb,
             sum(missed_gb::numeric)::float8 AS missed_gb,
             sum(missed_gb::numeric * price::numeric)::float8 AS missed_cost,
             bool_or(opportunity_estimated) AS estimated,
             sum(opportunity_months::numeric)::float8 AS months,
             row_number() OVER (ORDER BY round(sum(missed_gb::numeric * price::numeric)::float8 * 1000000) DESC,
                                         round(sum(missed_gb::numeric)::float8 * 1000000) DESC,
                                namespace COLLATE "C", name COLLATE "C", cluster_id) AS position
        FROM weighted WHERE opportunity
       GROUP BY cluster_id, namespace, name
       ORDER BY position
       LIMIT ${limit}
    )`;
}
