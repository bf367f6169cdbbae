import type { ReadDb } from '../read-db.js';
import { FULLY_MEASURED_SQL, MEASURED_SHARE_SQL } from './rollup.js';
import {
  FIGURE_COLUMNS,
  HEAD_AS_INTERVAL_SQL,
  OPEN_PLUS_SUMMED_SQL,
  SECONDS_PER_MONTH,
  SUMMED_FIGURES_SQL,
  weightedIntervalsSql,
} from './savings-days.js';
import { DAY_MS } from '@zw/core';

/**
 * Decision: a month is 730 hours (8,760 / 12), the convention of cloud price lists. A Service's monthly
 * figures count for the part of the range its state held: `months` = hours of overlap / 730.
 */
export const HOURS_PER_MONTH = 730;

export type SavingsGroupBy = 'cluster' | 'namespace' | 'service';

export interface SavingsQuery {
  /** Clusters to cover, with their price per cross-zone GB (computed by the caller from core's price table). */
  clusters: { id: string; pricePerGb: number }[];
  from: Date;
  to: Date;
  /** Open intervals (states still holding) count up to this instant. */
  now: Date;
  namespace?: string;
  groupBy: SavingsGroupBy;
  limit: number;
}

export interface SavingsRow {
  /** null in the totals row. */
  cluster_id: string | null;
  namespace: string | null;
  name: string | null;
  is_total: boolean;
  months: number;
  traffic_gb: number;
  without_gb: number;
  without_cost: number;
  with_gb: number;
  with_cost: number;
  missed_gb: number;
  missed_cost: number;
  services: number;
  services_api: number;
  services_measured: number;
  /** Part of traffic_gb that is measured by the clusters' traffic sources. */
  measured_gb: number;
  /**
   * The part of with/without/missed that comes from Services whose volume and share crossing zones are
   * both measured (FULLY_MEASURED_SQL), and how many such Services.
   */
  measured_with_gb: number;
  measured_with_cost: number;
  measured_without_cost: number;
  measured_missed_cost: number;
  services_fully_measured: number;
  services_measured_share: number;
  services_annotation: number;
  services_default: number;
  opportunities: number;
}

export interface OpportunityRow {
  cluster_id: string;
  namespace: string;
  name: string;
  traffic_gb: number;
  missed_gb: number;
  missed_cost: number;
  estimated: boolean;
  months: number;
}

/**
 * Every interval overlapping the range, summed per Service: its months in the range, its traffic and
 * cross-zone GB over them, what enabling topology routing would have saved, and where its traffic came
 * from. Whole ISO weeks and the whole UTC days around them of closed intervals come from the roll-up
 * (service_savings_days: a row per Service and week, $8 to $9; the days before the first whole week from
 * that week's tail, one row per Service from the first whole day to the week's end; the days after the
 * last whole week per Service and day); what it does not
 * hold are the partial days at the range's edges ($6 = the first whole day's start, $7 = the end of the
 * last; equal to `from` when the range holds no whole day) and the open intervals. Four disjoint sets
 * answer for those: the raw intervals still open, those ending after the right edge's start, those ending
 * in the left edge (each through an index), and the closed intervals crossing the left edge's end into
 * the whole days, which the first whole day's rows keep as their heads (one row per Service, read with
 * the other day rows instead of an interval lookup per Service; only their part in the left edge is
 * read there). The open intervals are a set of their own so that Postgres reads them with a plain index
 * scan, which marks the index entries of intervals closed since as dead; a bitmap scan for both sets
 * never does, and read every closed interval's old open version again until a vacuum came (3.5 ms
 * instead of 0.9 ms for 1,000 Services after a burst of writes). A Service has at most one open interval,
 * so its piece is joined to the sums of the Service's other pieces instead of being grouped with them:
 * grouping 200,000 open pieces (a hash aggregate spilling past `work_mem`) was a fifth of the statement.
 *
 * When the range runs up to now ($10: `to` ≥ `now`, with whole days), its right edge is today up to now,
 * and today's day row holds exactly the closed intervals' pieces in it, since none ends after now; so
 * today's row stands in for the raw intervals ending today, which on a cluster whose Services change all
 * day are thousands (30% of the statement after a few dozen 1,000-Service snapshots in a day). A cluster
 * with an interval ending after now (a snapshot from an agent whose clock runs ahead, within the skew
 * ingest allows, or `now` inside the history) is read raw as before: its day row holds time past now.
 * When the range also holds this week's days up to today ($11: this week's Monday), this week's row
 * stands in for them and today's: it is the sum of its day rows, and none lies after today.
 *
 * The snapshot's traffic and the plain months are summed apart, because an API or measured volume set
 * since overrides the snapshot's for the whole range: gb × Σ months, else Σ months × traffic_gb.
 * Likewise a measured share crossing zones (MEASURED_SHARE_SQL) replaces the model's withHints fraction
 * for the whole range: with_gb = traffic × share, and an opportunity's missed GB is what it crosses as
 * measured less what it would cross with topology-mode Auto, over the intervals it was an opportunity:
 * missed by the model, plus the measured crossings of those intervals, less the model's as-routed
 * crossings of the same intervals (the roll-up's opportunity_with_*), as the reference integrates it.
 *
 * A cluster's price is looked up in the parameter arrays: joined from their unnest, the Services were
 * estimated at a handful, and Postgres looked each one up in cluster_services instead of hashing them.
 *
 * Reading the roll-up rather than every interval made `groupBy=service` over 30 days of a 1,000-Service
 * cluster several times faster (see `npm run bench`).
 */
/**
 * The Services of the clusters asked for with a traffic value of their own (set through the API or
 * measured, or a measured share crossing zones: it applies without a measured volume too, as in the
 * reference and the summaries' roll-up), through their partial index (cluster_services_own_traffic).
 * Only they change a Service's figures, so only they are joined to every Service's sums; names are looked
 * up for the Services an answer shows (see {@link namedSql}), and the namespace for every Service only when
 * the query filters or groups by it.
 *
 * Decision: joining every Service of an organization of 200 clusters × 1,000 Services to cluster_services
 * (a sort of 200,000 sums by id, then a merge join) was a third of the savings statement; the price looked
 * up by array_position in the clusters' array cost one comparison per cluster for each Service (0.8 s of
 * 1.8 s at 200 clusters), now a hash join on the clusters' unnest. See bench/RESULTS.md (organization read).
 */
const OWN_TRAFFIC_SQL = `SELECT id, monthly_traffic_gb, measured_traffic_gb, measured_cross_zone FROM cluster_services
      WHERE cluster_id = ANY($1::uuid[])
        AND (monthly_traffic_gb IS NOT NULL OR measured_traffic_gb IS NOT NULL OR measured_cross_zone IS NOT NULL)`;

/**
 * A Service's figures from its sums `w` and its row `s` (null when it has no traffic value of its own):
 * an API or measured volume (`OWN_GB_SQL`) overrides the snapshots' for the whole range, gb × Σ months,
 * else Σ months × traffic_gb; a measured share crossing zones replaces the model's withHints fraction.
 *
 * Decision: plain expressions over the row, not lateral subqueries (`OFFSET 0`) computing each once:
 * their inputs are columns, so writing one in several places costs a multiplication, and a lateral
 * subquery for each of 200,000 Services was a third of the statement (see bench/RESULTS.md, orgroll24).
 */
const OWN_GB_SQL = 'COALESCE(s.monthly_traffic_gb, s.measured_traffic_gb)';
const SHARE_SQL = `(${MEASURED_SHARE_SQL})`;
const byOwnGb = (months: string, traffic: string) => `COALESCE(${OWN_GB_SQL} * w.${months}, w.${traffic})`;
const GB_M_SQL = byOwnGb('months', 'traffic_months');
const WITHOUT_GB_SQL = byOwnGb('without_months', 'without_traffic');
const MODEL_WITH_GB_SQL = byOwnGb('with_months', 'with_traffic');
const MODEL_MISSED_GB_SQL = byOwnGb('missed_months', 'missed_traffic');
const OPPORTUNITY_GB_M_SQL = byOwnGb('opportunity_months', 'opportunity_traffic');
const WITH_GB_SQL = `CASE WHEN ${SHARE_SQL} IS NULL THEN ${MODEL_WITH_GB_SQL} ELSE ${GB_M_SQL} * ${SHARE_SQL} END`;
const OPPORTUNITY_WITH_GB_SQL = byOwnGb('opportunity_with_months', 'opportunity_with_traffic');
const MISSED_GB_SQL = `CASE WHEN ${SHARE_SQL} IS NULL OR NOT w.opportunity THEN ${MODEL_MISSED_GB_SQL}
  ELSE ${MODEL_MISSED_GB_SQL} + ${OPPORTUNITY_GB_M_SQL} * ${SHARE_SQL} - ${OPPORTUNITY_WITH_GB_SQL} END`;

const RIGHT_EDGE_FROM_ROLLUP = '(SELECT from_rollup FROM right_edge)::uuid[]';
const RAW_RIGHT_EDGE = '(SELECT raw FROM right_edge)::uuid[]';

function perServiceSql(namespaceFilter: string, withNamespace: boolean): string {
  const leftEdgeMonths = `GREATEST(date_part('epoch', LEAST(i.valid_to, $4, $6::timestamptz) - GREATEST(i.valid_from, $3)), 0)`;
  const rawMonths = `CASE WHEN i.valid_to IS NULL
                 THEN date_part('epoch', LEAST($5::timestamptz, $4::timestamptz) - GREATEST(i.valid_from, $3::timestamptz))
                 ELSE ${leftEdgeMonths}
                    + GREATEST(date_part('epoch', LEAST(i.valid_to, $4) - GREATEST(i.valid_from, $3, $7::timestamptz)), 0)
               END / ${SECONDS_PER_MONTH}`;
  const rawIntervals = (where: string, clusters = '$1::uuid[]') =>
    weightedIntervalsSql('service_intervals i', `i.cluster_id = ANY(${clusters}) AND ${where}`, rawMonths);
  const rollupRows = (where: string, clusters = '$1::uuid[]') => `SELECT cluster_id, service_id, ${FIGURE_COLUMNS}
        FROM service_savings_days WHERE cluster_id = ANY(${clusters}) AND ${where}`;
  return `
    WITH right_edge AS (
      SELECT array_agg(c) FILTER (WHERE from_rollup) AS from_rollup, array_agg(c) FILTER (WHERE NOT from_rollup) AS raw
        FROM unnest($1::uuid[]) c
       CROSS JOIN LATERAL (SELECT $10::boolean AND NOT EXISTS (
               SELECT 1 FROM service_intervals WHERE cluster_id = c AND valid_to > $5::timestamptz)) t(from_rollup)
    ),
    open_pieces AS (
      ${rawIntervals(`i.valid_from < LEAST($4::timestamptz, $5::timestamptz) AND i.valid_to IS NULL`)}
    ),
    pieces AS (
      ${rawIntervals(`i.valid_from < LEAST($4::timestamptz, $5::timestamptz) AND i.valid_to > $7::timestamptz`, RAW_RIGHT_EDGE)}
      UNION ALL
      ${rawIntervals(`i.valid_to > $3::timestamptz AND i.valid_to <= $6::timestamptz`)}
      UNION ALL
      ${weightedIntervalsSql(
        `service_savings_days r CROSS JOIN LATERAL (${HEAD_AS_INTERVAL_SQL}) i`,
        `r.cluster_id = ANY($1::uuid[]) AND r.span_days = 1 AND r.day = ($6 AT TIME ZONE 'UTC')::date
         AND $6 < $7 AND r.head_valid_to > $6
         AND (r.head_valid_to <= $7 OR r.cluster_id = ANY(${RIGHT_EDGE_FROM_ROLLUP}))`,
        `${leftEdgeMonths} / ${SECONDS_PER_MONTH}`,
      )}
      UNION ALL
      ${rollupRows(`span_days = 7 AND day >= $8::date AND day < $9::date`)}
      UNION ALL
      ${rollupRows(`span_days = $8::date - ($6 AT TIME ZONE 'UTC')::date AND day = ($6 AT TIME ZONE 'UTC')::date
                    AND day < $8::date`)}
      UNION ALL
      ${rollupRows(`span_days = 1 AND day >= $9::date AND day < ($7 AT TIME ZONE 'UTC')::date`, RAW_RIGHT_EDGE)}
      UNION ALL
      ${rollupRows(`span_days = 1 AND day >= $9::date AND day < COALESCE($11::date, ($7 AT TIME ZONE 'UTC')::date + 1)`, RIGHT_EDGE_FROM_ROLLUP)}
      UNION ALL
      ${rollupRows(`span_days = 7 AND day = $11::date`, RIGHT_EDGE_FROM_ROLLUP)}
    ), summed AS (
      SELECT COALESCE(o.cluster_id, g.cluster_id) AS cluster_id, COALESCE(o.service_id, g.service_id) AS service_id,
             ${OPEN_PLUS_SUMMED_SQL}
        FROM (SELECT * FROM open_pieces WHERE months > 0) o
        FULL JOIN (SELECT cluster_id, service_id, ${SUMMED_FIGURES_SQL} FROM pieces WHERE months > 0
                    GROUP BY cluster_id, service_id) g ON g.service_id = o.service_id
    ), weighted AS (
      SELECT w.cluster_id, w.service_id,${withNamespace ? ' s.namespace,' : ''} p.price, w.months, ${GB_M_SQL} AS gb_m,
             CASE WHEN s.monthly_traffic_gb IS NULL THEN COALESCE(s.measured_traffic_gb * w.months, 0) ELSE 0 END
               AS measured_gb_m,
             ${WITHOUT_GB_SQL} AS without_gb, ${WITH_GB_SQL} AS with_gb, ${MISSED_GB_SQL} AS missed_gb,
             ${OPPORTUNITY_GB_M_SQL} AS opportunity_gb_m, w.opportunity_months,
             ${FULLY_MEASURED_SQL} AS fully_measured, (${MEASURED_SHARE_SQL}) IS NOT NULL AS measured_share,
             s.monthly_traffic_gb IS NOT NULL AS source_api,
             s.monthly_traffic_gb IS NULL AND s.measured_traffic_gb IS NOT NULL AS source_measured,
             ${OWN_GB_SQL} IS NULL AND w.annotation AS source_annotation,
             ${OWN_GB_SQL} IS NULL AND w.default_source AS source_default,
             w.opportunity,
             ${OWN_GB_SQL} IS NULL AND w.opportunity_default AS opportunity_estimated
        FROM summed w
        ${withNamespace ? 'JOIN cluster_services s' : `LEFT JOIN (${OWN_TRAFFIC_SQL}) s`} ON s.id = w.service_id
        JOIN (SELECT * FROM unnest($1::uuid[], $2::float8[]) AS p(cluster_id, price) OFFSET 0) p
          ON p.cluster_id = w.cluster_id
       WHERE true${namespaceFilter}
    )`;
}

/**
 * Each figure of a group: its name, as one Service's (a column of its `weighted` row, a cost as
 * {@link costOf} gives it) and as the sum over Services.
 *
 * Decision: float8 throughout, summed in a fixed order (Services sorted by cluster and id, see
 * {@link inServiceOrder}), so identical queries give identical figures bit for bit. Summing in numeric
 * did that whatever the order, but converting each figure to numeric and back (through its text form)
 * was a third of the statement's time; the difference between the two is far below a cent.
 */
const FIGURES: { name: string; oneService: string; summed: string }[] = [
  { name: 'months_total', oneService: 'months', summed: 'sum(months)' },
  { name: 'traffic_gb', oneService: 'gb_m', summed: 'COALESCE(sum(gb_m), 0)' },
  { name: 'measured_gb', oneService: 'measured_gb_m', summed: 'COALESCE(sum(measured_gb_m), 0)' },
  ...['without_gb', 'without_cost', 'with_gb', 'with_cost', 'missed_gb', 'missed_cost'].map((name) => ({
    name,
    oneService: name,
    summed: `COALESCE(sum(${name}), 0)`,
  })),
  ...['with_gb', 'with_cost', 'without_cost', 'missed_cost'].map((name) => ({
    name: `measured_${name}`,
    oneService: `CASE WHEN fully_measured THEN ${name} ELSE 0 END`,
    summed: `COALESCE(sum(${name}) FILTER (WHERE fully_measured), 0)`,
  })),
];

/** The counts of a group: its name, as one Service's (0 or 1) and over Services. */
const COUNTS: { name: string; oneService: string; summed: string }[] = [
  { name: 'services', oneService: '1', summed: 'count(*)' },
  ...['api', 'measured', 'annotation', 'default'].map((source) => ({
    name: `services_${source}`,
    oneService: `source_${source}::int`,
    summed: `count(*) FILTER (WHERE source_${source})`,
  })),
  { name: 'opportunities', oneService: 'opportunity::int', summed: 'count(*) FILTER (WHERE opportunity)' },
  {
    name: 'services_measured_share',
    oneService: 'measured_share::int',
    summed: 'count(*) FILTER (WHERE measured_share)',
  },
  {
    name: 'services_fully_measured',
    oneService: 'fully_measured::int',
    summed: 'count(*) FILTER (WHERE fully_measured)',
  },
];

/**
 * A Service's cost of each figure, from its row of `weighted` (`row`, or unqualified): its GB times its
 * cluster's price.
 *
 * Decision: computed where read, not kept in `weighted`. `weighted` is materialised (the groups read it
 * and the opportunities twice), spilling to disk past `work_mem`: three float8 columns fewer in each of
 * 200,000 rows took the organization's savings statement from about 620 to 565 ms of Postgres CPU (the
 * same answer, byte for byte: the same product). See bench/RESULTS.md (report24).
 */
const COSTS = ['without', 'with', 'missed'];
function costOf(figure: string, row?: string): string {
  const column = (name: string) => (row ? `${row}.${name}` : name);
  return figure.endsWith('_cost') && COSTS.includes(figure.slice(0, -'_cost'.length))
    ? `(${column(figure.replace(/_cost$/, '_gb'))} * ${column('price')})`
    : column(figure);
}
const costColumns = (row?: string) => COSTS.map((figure) => `${costOf(`${figure}_cost`, row)} AS ${figure}_cost`);

/** The columns of `weighted` the sums across Services read (sorting narrower rows costs less). */
const SUMMED_COLUMNS = [
  'months',
  'gb_m',
  'measured_gb_m',
  ...COSTS.flatMap((figure) => [`${figure}_gb`, `${costOf(`${figure}_cost`)} AS ${figure}_cost`]),
  ...['api', 'measured', 'annotation', 'default'].map((source) => `source_${source}`),
  'opportunity',
  'fully_measured',
  'measured_share',
];

function groupColumnsOf(pick: 'oneService' | 'summed'): string {
  return [
    ...FIGURES.map((figure) => `(${figure[pick]})::float8 AS ${figure.name}`),
    ...COUNTS.map((count) => `(${count[pick]})::int AS ${count.name}`),
  ].join(', ');
}

/** `weighted` in a fixed order: what the sums across Services read, so they add in the same order each time. */
function inServiceOrder(columns: string[]): string {
  return `(SELECT ${[...columns, ...SUMMED_COLUMNS].join(', ')} FROM weighted
            ORDER BY ${[...columns, 'service_id'].join(', ')}) ordered`;
}

const GROUP_COLUMNS: Record<SavingsGroupBy, string[]> = {
  cluster: ['cluster_id'],
  namespace: ['cluster_id', 'namespace'],
  service: ['cluster_id', 'namespace', 'name'],
};

/**
 * Cross-zone GB and cost over a time range, without hints, with the hints as they were, and what enabling
 * topology routing would have saved (the opportunities), grouped by cluster, namespace or Service, with
 * the totals in the same statement (GROUPING SETS). Groups come largest cost first; at most `limit`.
 */
export async function savingsRows(db: ReadDb, query: SavingsQuery): Promise<SavingsRow[]> {
  const { values, namespaceFilter, withNamespace } = parametersOf(query);
  const columns = GROUP_COLUMNS[query.groupBy];
  const limit = `$${values.push(query.limit)}`;
  return db.query<SavingsRow>(
    `${perServiceSql(namespaceFilter, withNamespace)}, ${groupedSql(columns, limit, withNamespace)}
    SELECT ${groupColumnsSql(columns)} FROM ranked
     ORDER BY is_total DESC, rank`,
    values,
  );
}

/**
 * The opportunities over the range: Services that, while they had no topology routing, would have had
 * their hints populated by enabling it; ranked as core's rankOpportunities ranks them (saving in money,
 * then in GB, then namespace and name).
 */
export async function opportunityRows(db: ReadDb, query: SavingsQuery): Promise<OpportunityRow[]> {
  const { values, namespaceFilter, withNamespace } = parametersOf(query);
  const limit = `$${values.push(query.limit)}`;
  return db.query<OpportunityRow>(
    `${perServiceSql(namespaceFilter, withNamespace)}, ${opportunitiesSql(limit, withNamespace)}
    SELECT cluster_id, namespace, name, traffic_gb, missed_gb, missed_cost, estimated, months
      FROM opportunity_rows ORDER BY position`,
    values,
  );
}

/**
 * {@link savingsRows} and {@link opportunityRows} of one query in one statement: the range's intervals are
 * read and summed per Service once for both (one connection, one scan).
 */
export async function savingsWithOpportunities(
  db: ReadDb,
  query: SavingsQuery,
  opportunityLimit: number,
): Promise<{ rows: SavingsRow[]; opportunities: OpportunityRow[] }> {
  const { values, namespaceFilter, withNamespace } = parametersOf(query);
  const columns = GROUP_COLUMNS[query.groupBy];
  const limit = `$${values.push(query.limit)}`;
  const opportunitiesLimit = `$${values.push(opportunityLimit)}`;
  const rows = await db.query<SavingsRow & { kind: 'group' | 'opportunity'; estimated: boolean | null }>(
    `${perServiceSql(namespaceFilter, withNamespace)}, ${groupedSql(columns, limit, withNamespace)}, ${opportunitiesSql(opportunitiesLimit, withNamespace)}
    SELECT * FROM (
      SELECT 'group' AS kind, ${groupColumnsSql(columns)}, NULL::boolean AS estimated, rank AS position
        FROM ranked
      UNION ALL
      SELECT 'opportunity', cluster_id, namespace, name, false, months, traffic_gb, NULL, NULL, NULL, NULL, NULL,
             missed_gb, missed_cost, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, estimated, position
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

function parametersOf(query: SavingsQuery): { values: unknown[]; namespaceFilter: string; withNamespace: boolean } {
  const { firstWholeDay, lastWholeDayEnd } = wholeDaysOf(query);
  const { firstWholeWeek, lastWholeWeekEnd } = wholeWeeksOf(firstWholeDay, lastWholeDayEnd);
  const runsToNow = query.to >= query.now && firstWholeDay < lastWholeDayEnd;
  // When the range runs to now its whole days end at today's midnight: this week's row ($11) stands in for
  // this week's days when they all lie in the range (its Monday is one of the range's whole days).
  const thisWeek = mondayAtOrBefore(lastWholeDayEnd.getTime());
  const values: unknown[] = [
    query.clusters.map((c) => c.id),
    query.clusters.map((c) => c.pricePerGb),
    query.from,
    query.to,
    query.now,
    firstWholeDay,
    lastWholeDayEnd,
    utcDate(firstWholeWeek),
    utcDate(lastWholeWeekEnd),
    runsToNow,
    runsToNow && thisWeek >= firstWholeDay.getTime() ? utcDate(new Date(thisWeek)) : null,
  ];
  const namespaceFilter = query.namespace === undefined ? '' : ` AND s.namespace = $${values.push(query.namespace)}`;
  // The namespace of every Service only when the query filters or groups by it.
  return { values, namespaceFilter, withNamespace: query.namespace !== undefined || query.groupBy === 'namespace' };
}

/**
 * The whole UTC days of the range the roll-up answers for: from the first midnight at or after `from` to
 * the last midnight at or before the range's end (`to`, or `now` when earlier, since open intervals count
 * up to `now`). Both are `from` when the range holds no whole day.
 */
function wholeDaysOf(query: SavingsQuery): { firstWholeDay: Date; lastWholeDayEnd: Date } {
  const first = Math.ceil(query.from.getTime() / DAY_MS) * DAY_MS;
  const last = Math.floor(Math.min(query.to.getTime(), query.now.getTime()) / DAY_MS) * DAY_MS;
  if (first >= last) return { firstWholeDay: query.from, lastWholeDayEnd: query.from };
  return { firstWholeDay: new Date(first), lastWholeDayEnd: new Date(last) };
}

/**
 * The whole ISO weeks (Monday 00:00 UTC on) within the whole days, answered by the roll-up's week rows;
 * the days before the first and after the last by its day rows. Both are the first whole day when the
 * days hold no whole week.
 */
function wholeWeeksOf(firstDay: Date, lastDayEnd: Date): { firstWholeWeek: Date; lastWholeWeekEnd: Date } {
  const first = mondayAtOrBefore(firstDay.getTime() + WEEK_MS - 1);
  const last = mondayAtOrBefore(lastDayEnd.getTime());
  if (first >= last) return { firstWholeWeek: firstDay, lastWholeWeekEnd: firstDay };
  return { firstWholeWeek: new Date(first), lastWholeWeekEnd: new Date(last) };
}

/** The last Monday 00:00 UTC at or before `instant` (ms); 1970-01-01 was a Thursday. */
function mondayAtOrBefore(instant: number): number {
  const mondayOffset = 4 * DAY_MS;
  return Math.floor((instant - mondayOffset) / WEEK_MS) * WEEK_MS + mondayOffset;
}

/** `YYYY-MM-DD` of a UTC instant, for a date parameter. */
function utcDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

const WEEK_MS = 7 * DAY_MS;

/**
 * `ranked`: the totals, and the first `limit` groups largest cost first, with their rank. By Service, each
 * Service is its group (a cluster's Services have unique names): the first `limit` are picked from
 * `weighted` and only their columns computed, the totals summed over all. Otherwise GROUPING SETS gives
 * the groups and the totals in one pass. The order names every group column, so the first `limit` are one
 * set whatever the plan (a top-N sort, cheaper than ranking every group).
 */
function groupedSql(columns: string[], limit: string, withNamespace: boolean): string {
  const order = `${inMillionths('with_cost')} DESC, ${inMillionths('with_gb')} DESC, ${columns.join(', ')}`;
  const ranking = `row_number() OVER (ORDER BY ${order}) AS rank`;
  if (columns.length === GROUP_COLUMNS.service.length) {
    const candidates = namedSql(['with_cost', 'with_gb'], false, limit, withNamespace, true);
    return `top_groups AS (
      SELECT ${columns.join(', ')}, false AS is_total, ${groupColumnsOf('oneService')}
        FROM (SELECT * FROM ${candidates} ORDER BY ${order} LIMIT ${limit}) top
    ), ranked AS (
      SELECT *, ${ranking} FROM top_groups
      UNION ALL
      SELECT NULL::uuid, NULL, NULL, true, ${groupColumnsOf('summed')}, 1
        FROM ${inServiceOrder(['cluster_id'])}
    )`;
  }
  return `grouped AS (
      SELECT ${columns.join(', ')}, GROUPING(${columns[0]}) = 1 AS is_total, ${groupColumnsOf('summed')}
        FROM ${inServiceOrder(columns)}
       GROUP BY GROUPING SETS ((${columns.join(', ')}), ())
    ), top_groups AS (
      SELECT * FROM grouped WHERE NOT is_total ORDER BY ${order} LIMIT ${limit}
    ), ranked AS (
      SELECT *, ${ranking} FROM top_groups
      UNION ALL
      SELECT *, 1 FROM grouped WHERE is_total
    )`;
}

/** A figure as rankings compare it, in millionths: core's rankingUnits (which says why) in SQL. */
function inMillionths(column: string): string {
  return `round(${column} * 1000000)`;
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

/** `opportunity_rows`: the ranked opportunities (at most `limit`), with their `position` (one row per Service). */
function opportunitiesSql(limit: string, withNamespace: boolean): string {
  const order = `${inMillionths('missed_cost')} DESC, ${inMillionths('missed_gb')} DESC,
                 namespace COLLATE "C", name COLLATE "C", cluster_id`;
  const candidates = namedSql(['missed_cost', 'missed_gb'], true, limit, withNamespace);
  return `opportunity_rows AS (
      SELECT cluster_id::text, namespace, name, opportunity_gb_m AS traffic_gb, missed_gb, missed_cost,
             opportunity_estimated AS estimated, opportunity_months AS months,
             row_number() OVER (ORDER BY ${order}) AS position
        FROM (SELECT * FROM ${candidates} ORDER BY ${order} LIMIT ${limit}) top_opportunities
    )`;
}

/**
 * The rows of `weighted` (only opportunities when `opportunity`) that can be among the first `limit` ranked
 * on the millionths of `figures` (descending), then on `byCluster` the cluster, then names: the first
 * `limit` on the figures (and the cluster) alone and every row tying with the last of them, with their
 * Service's namespace and name, looked up by id for those rows only.
 *
 * Decision: Services of one organization often tie on their figures (clusters running the same
 * workloads): 35,000 of 200,000 Services tied with the hundredth group of the savings bench, and their names
 * were joined by a sort and a merge join over every Service's row. Groups by Service rank the cluster before
 * the names, so the cluster joins the key the threshold is taken on and the ties are those of one cluster;
 * the names are looked up Service by Service (an index lookup each) instead of merged with every Service.
 */
function namedSql(
  figures: [string, string],
  opportunity: boolean,
  limit: string,
  withNamespace: boolean,
  byCluster = false,
): string {
  const keys = figures.map((figure) => inMillionths(costOf(figure)));
  const key = (row: string) => `(${figures.map((figure) => inMillionths(costOf(figure, row))).join(', ')})`;
  const where = (row: string) => (opportunity ? `${row}.opportunity AND ` : '');
  const last = `SELECT ${keys.map((_, n) => `k${n}`).join(', ')}${byCluster ? ', cluster_id' : ''}
              FROM (SELECT ${keys.map((k, n) => `${k} AS k${n}`).join(', ')}${byCluster ? ', cluster_id' : ''}
                      FROM weighted w WHERE ${where('w')}true
                     ORDER BY ${keys.map((_, n) => `k${n} DESC`).join(', ')}${byCluster ? ', cluster_id' : ''} LIMIT ${limit}) top
             ORDER BY ${keys.map((_, n) => `k${n}`).join(', ')}${byCluster ? ', cluster_id DESC' : ''} LIMIT 1`;
  const kept = byCluster
    ? `${key('c')} > (t.k0, t.k1) OR (${key('c')} = (t.k0, t.k1) AND c.cluster_id <= t.cluster_id)`
    : `${key('c')} >= (t.k0, t.k1)`;
  return `(SELECT c.*, ${costColumns('c').join(', ')},${withNamespace ? '' : ' s.namespace,'} s.name
       FROM weighted c CROSS JOIN (${last}) t
      CROSS JOIN LATERAL (SELECT${withNamespace ? '' : ' namespace,'} name FROM cluster_services
                           WHERE id = c.service_id OFFSET 0) s
      WHERE ${where('c')}(${kept})) named`;
}
