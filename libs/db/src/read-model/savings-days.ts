import type { SqlClient } from '../sql-client.js';
import { MISSED_FRACTION_SQL, OPPORTUNITY_SQL } from './rollup.js';

/** Seconds in the 730-hour month savings figures are counted in (see HOURS_PER_MONTH in savings.ts). */
export const SECONDS_PER_MONTH = 730 * 3600;

/**
 * `w.m`, the months of interval `i` counted (`months`: an expression over `i`), and `w.missed`, its
 * missed fraction when it is an opportunity (null otherwise, also when it has no preview to compare with):
 * a lateral subquery, so each is computed once per row.
 *
 * Decision: `OFFSET 0` keeps it a subquery. Without it Postgres pulls a subquery of plain expressions up
 * into the query and writes each expression in place of every reference to it: the months (two interval
 * subtractions, two date_parts) were computed a dozen times per interval and the missed fraction eight,
 * a third of the savings statement and of the worker's roll-up writes.
 */
function weightsSql(months: string): string {
  return `CROSS JOIN LATERAL (SELECT ${months} AS m, ${MISSED_SQL} AS missed OFFSET 0) w`;
}

/** Interval `i`'s missed fraction when it is an opportunity, else null. */
const MISSED_SQL = `CASE WHEN ${OPPORTUNITY_SQL} THEN ${MISSED_FRACTION_SQL} END`;

/**
 * The savings figures of interval `i` weighted by its months, `weights`.m, with its missed fraction
 * `weights`.missed (see {@link weightsSql}), as the roll-up's columns.
 */
function weightedFiguresSql(weights: string): string {
  const [m, missed] = [`${weights}.m`, `${weights}.missed`];
  return `${m} AS months,
          ${m} * i.traffic_gb AS traffic_months,
          ${m} * COALESCE(i.cross_zone_without_hints, 0) AS without_months,
          ${m} * i.traffic_gb * COALESCE(i.cross_zone_without_hints, 0) AS without_traffic,
          ${m} * COALESCE(i.cross_zone_with_hints, 0) AS with_months,
          ${m} * i.traffic_gb * COALESCE(i.cross_zone_with_hints, 0) AS with_traffic,
          COALESCE(${m} * ${missed}, 0) AS missed_months,
          COALESCE(${m} * i.traffic_gb * ${missed}, 0) AS missed_traffic,
          CASE WHEN ${missed} IS NOT NULL THEN ${m} ELSE 0 END AS opportunity_months,
          CASE WHEN ${missed} IS NOT NULL THEN ${m} * i.traffic_gb ELSE 0 END AS opportunity_traffic,
          CASE WHEN ${missed} IS NOT NULL THEN ${m} * COALESCE(i.cross_zone_with_hints, 0) ELSE 0 END
            AS opportunity_with_months,
          CASE WHEN ${missed} IS NOT NULL THEN ${m} * i.traffic_gb * COALESCE(i.cross_zone_with_hints, 0) ELSE 0 END
            AS opportunity_with_traffic,
          COALESCE(i.traffic_source = 'annotation', false) AS annotation,
          COALESCE(i.traffic_source = 'default-per-endpoint', false) AS default_source,
          ${missed} IS NOT NULL AS opportunity,
          ${missed} IS NOT NULL AND COALESCE(i.traffic_source = 'default-per-endpoint', false) AS opportunity_default`;
}

/** The savings figures of interval `i` weighted by its months (see {@link weightsSql}), as the roll-up's columns. */
const WEIGHTED_FIGURES_SQL = weightedFiguresSql('w');

/**
 * The savings figures of the intervals `source` names `i` and `where` keeps, each weighted by its months
 * in the range (`months`, an expression over `i`): rows of cluster_id, service_id and the roll-up's columns.
 *
 * Decision: a set of intervals read together has its weights computed in one subquery over the whole set
 * (kept apart by `OFFSET 0`, as in {@link weightsSql}), not in a lateral subquery that Postgres starts
 * again for every interval.
 */
export function weightedIntervalsSql(source: string, where: string, months: string): string {
  return `SELECT i.cluster_id, i.service_id, ${weightedFiguresSql('i')}
        FROM (SELECT i.cluster_id, i.service_id, i.traffic_gb, i.cross_zone_without_hints, i.cross_zone_with_hints,
                     i.traffic_source, ${months} AS m, ${MISSED_SQL} AS missed
                FROM ${source} WHERE ${where} OFFSET 0) i`;
}

const SUMMED = [
  'months',
  'traffic_months',
  'without_months',
  'without_traffic',
  'with_months',
  'with_traffic',
  'missed_months',
  'missed_traffic',
  'opportunity_months',
  'opportunity_traffic',
  'opportunity_with_months',
  'opportunity_with_traffic',
];
const FLAG_COLUMNS = ['annotation', 'default_source', 'opportunity', 'opportunity_default'];
const FLAGS = FLAG_COLUMNS.map((c) => `bool_or(${c}) AS ${c}`).join(', ');

/** The sums of those columns over one Service's pieces in a range (float8: a few dozen rows). */
export const SUMMED_FIGURES_SQL = `${SUMMED.map((c) => `sum(${c}) AS ${c}`).join(', ')}, ${FLAGS}`;

/**
 * One Service's sums from its open interval's piece `o` and the sums `g` of its other pieces (either may
 * be missing: a full join), so the open intervals, one per Service, need no grouping.
 */
export const OPEN_PLUS_SUMMED_SQL = [
  ...SUMMED.map((c) => `COALESCE(o.${c}, 0) + COALESCE(g.${c}, 0) AS ${c}`),
  ...FLAG_COLUMNS.map((c) => `COALESCE(o.${c}, false) OR COALESCE(g.${c}, false) AS ${c}`),
].join(', ');

/**
 * The same sums for one roll-up row. Decision: in numeric, so a row summed from scratch is the same bit for
 * bit whatever order its intervals are read in (the worker's rewrite of some days, the migration's backfill
 * of all); see {@link addClosedIntervalsToSavingsDays} for rows added to interval by interval.
 */
export const DAY_SUMS_SQL = `${SUMMED.map((c) => `sum(${c}::numeric)::float8 AS ${c}`).join(', ')}, ${FLAGS}`;

/** The interval columns a day row's head keeps (`head_<column>`): what the savings figures are computed from. */
const HEAD_COLUMNS = [
  'valid_from',
  'valid_to',
  'routing',
  'traffic_gb',
  'traffic_source',
  'cross_zone_without_hints',
  'cross_zone_with_hints',
  'preview_state',
  'preview_cross_zone',
  'managed_by',
];

/** The roll-up's head columns, in the order HEAD_SQL gives them. */
const HEAD_COLUMN_NAMES = HEAD_COLUMNS.map((column) => `head_${column}`).join(', ');

/**
 * A day row's head from its pieces: the one piece whose interval began at or before the day's first
 * instant (intervals of a Service never overlap, so at most one does) carries its columns, the others null.
 */
const HEAD_OF_PIECE_SQL = HEAD_COLUMNS.map(
  (column) => `CASE WHEN i.valid_from AT TIME ZONE 'UTC' <= d THEN i.${column} END AS head_${column}`,
).join(', ');
const HEAD_SQL = HEAD_COLUMNS.map((column) => `max(head_${column}) AS head_${column}`).join(', ');

/** Day row `r`'s head as an interval `i` (with the row's keys), for the savings figures' expressions. */
export const HEAD_AS_INTERVAL_SQL = `SELECT r.cluster_id, r.service_id, ${HEAD_COLUMNS.map(
  (column) => `r.head_${column} AS ${column}`,
).join(', ')}`;

/** The roll-up's columns after its keys, in the order SUMMED_FIGURES_SQL gives them. */
export const FIGURE_COLUMNS = `months, traffic_months, without_months, without_traffic, with_months, with_traffic,
  missed_months, missed_traffic, opportunity_months, opportunity_traffic, opportunity_with_months,
  opportunity_with_traffic, annotation, default_source, opportunity, opportunity_default`;

/**
 * A week's tails: the rows of a Service from one of its days to the end of its ISO week, for the days
 * Tuesday to Saturday (`span_days` 6 to 2, keyed on their first day). Monday's tail is the week row and
 * Sunday's the day row. A range whose first whole day falls inside a week reads that week's days from
 * one tail row instead of up to six day rows.
 *
 * Decision: the worker keeps them with every write, as it keeps week rows. Each closed interval's piece
 * adds to the tails holding it (none on a Monday, five on a Saturday or Sunday): the roll-up write of a
 * 1,000-Service snapshot in which every Service changed went from about 70 ms to 130 ms of Postgres, for
 * a 30-day savings statement about a tenth faster (its range's first days read as one row, not four).
 *
 * `day` is a date column; the join gives each tail holding it (those starting on or before it), as
 * `tail.first_weekday` (ISO, 2 to 6): the tail's first day is `tailDay(day)`, its span TAIL_SPAN_SQL.
 */
function tailsHolding(day: string): string {
  // A VALUES list, not generate_series: Postgres estimates a set-returning function at 1,000 rows a call.
  return `JOIN (VALUES (2), (3), (4), (5), (6)) AS tail(first_weekday) ON tail.first_weekday <= extract(isodow FROM ${day})`;
}
const tailDay = (day: string) => `${day} - (extract(isodow FROM ${day})::int - tail.first_weekday)`;
const TAIL_SPAN_SQL = '8 - tail.first_weekday';

/**
 * Rewrites the roll-up of these Services over these spans: every UTC day a span touches is deleted and
 * summed again from the Services' closed intervals as they are now, then every ISO week holding such a
 * day, and its tails, from its day rows. Call it, in the transaction that changed the intervals, with
 * spans covering every instant whose interval changed (a span may be wider).
 *
 * Decision: days are cut in UTC timestamps (not timestamptz), so the session's time zone and its DST
 * changes cannot shift a day's boundaries.
 */
export async function refreshSavingsDays(db: SqlClient, clusterId: string, spans: SavingsDaySpan[]): Promise<void> {
  if (spans.length === 0) return;
  const values = [clusterId, spans.map((s) => s.serviceId), spans.map((s) => s.from), spans.map((s) => s.to)];
  const touched = `touched AS (
      SELECT service_id, min(date_trunc('day', lo AT TIME ZONE 'UTC')) AS lo,
             max(date_trunc('day', hi AT TIME ZONE 'UTC' - interval '1 microsecond') + interval '1 day') AS hi
        FROM unnest($2::bigint[], $3::timestamptz[], $4::timestamptz[]) AS t(service_id, lo, hi)
       WHERE hi > lo
       GROUP BY service_id
    ), weeks AS (
      SELECT service_id, date_trunc('week', lo)::date AS first_week,
             (date_trunc('week', hi - interval '1 day') + interval '7 days')::date AS end_week
        FROM touched
    )`;
  // The day rows of the touched weeks, which their week rows and tails are summed from.
  const weekDays = `weeks w JOIN service_savings_days r
         ON r.cluster_id = $1::uuid AND r.span_days = 1 AND r.service_id = w.service_id
        AND r.day >= w.first_week AND r.day < w.end_week`;
  const statements = [
    `DELETE FROM service_savings_days r USING touched t
      WHERE r.cluster_id = $1::uuid AND r.span_days = 1 AND r.service_id = t.service_id
        AND r.day >= t.lo::date AND r.day < t.hi::date`,
    `INSERT INTO service_savings_days (cluster_id, span_days, day, service_id, ${FIGURE_COLUMNS}, ${HEAD_COLUMN_NAMES})
     SELECT cluster_id, 1, day, service_id, ${DAY_SUMS_SQL}, ${HEAD_SQL}
       FROM (${dayPiecesSql(`touched t JOIN service_intervals i ON i.service_id = t.service_id
                   AND i.cluster_id = $1::uuid AND i.valid_to IS NOT NULL AND i.valid_to > t.lo AT TIME ZONE 'UTC'
                   AND i.valid_from < t.hi AT TIME ZONE 'UTC'`)}) pieces
      WHERE months > 0
      GROUP BY cluster_id, day, service_id`,
    // The touched weeks' rows and tails (span_days 7, and 2 to 6), all keyed inside those weeks.
    `DELETE FROM service_savings_days r USING weeks w
      WHERE r.cluster_id = $1::uuid AND r.span_days BETWEEN 2 AND 7 AND r.service_id = w.service_id
        AND r.day >= w.first_week AND r.day < w.end_week`,
    `INSERT INTO service_savings_days (cluster_id, span_days, day, service_id, ${FIGURE_COLUMNS})
     SELECT r.cluster_id, 7, date_trunc('week', r.day::timestamp)::date, r.service_id, ${DAY_SUMS_SQL}
       FROM ${weekDays}
      GROUP BY r.cluster_id, date_trunc('week', r.day::timestamp)::date, r.service_id`,
    `INSERT INTO service_savings_days (cluster_id, span_days, day, service_id, ${FIGURE_COLUMNS})
     SELECT r.cluster_id, ${TAIL_SPAN_SQL}, ${tailDay('r.day')}, r.service_id, ${DAY_SUMS_SQL}
       FROM ${weekDays} ${tailsHolding('r.day')}
      GROUP BY r.cluster_id, ${TAIL_SPAN_SQL}, ${tailDay('r.day')}, r.service_id`,
  ];
  for (const statement of statements) await db.$executeRawUnsafe(`WITH ${touched} ${statement}`, ...values);
}

/**
 * Adds intervals that were open and are now closed (in time order: nothing of theirs is in the roll-up yet)
 * to the roll-up: each piece is added to its day's row, its week's and the tails holding it (see
 * {@link tailsHolding}), created when missing, and a piece
 * that holds at its day's first instant becomes that day row's head. Call it, in the transaction that
 * closed them, before any {@link refreshSavingsDays} of the same transaction (which sums its days again
 * from scratch, these intervals included).
 *
 * Decision: a Service whose state changes every few seconds closes thousands of intervals a day; summing
 * its day again from all of them at each snapshot made each write grow with the day's length (82 ms of
 * Postgres per 1,000-Service snapshot by the twentieth snapshot of a day). Adding a closed interval's
 * pieces costs the same whatever the day holds. A day row is then summed in the order its intervals
 * closed, so it may differ from one summed again from scratch in the last bits of a float, far below
 * what any figure shows; and an interval's pieces are summed in float8 (one per day, at most seven per
 * week), as numeric aggregates cost more than the rest of the statement.
 */
export async function addClosedIntervalsToSavingsDays(
  db: SqlClient,
  clusterId: string,
  intervalIds: bigint[],
): Promise<void> {
  if (intervalIds.length === 0) return;
  const pieces = `${dayPiecesSql(`service_intervals i
          CROSS JOIN (SELECT '-infinity'::timestamp AS lo, 'infinity'::timestamp AS hi) t`)}
       WHERE i.cluster_id = $1::uuid AND i.id = ANY($2::bigint[]) AND i.valid_to IS NOT NULL`;
  const added = SUMMED.map((c) => `${c} = r.${c} + excluded.${c}`)
    .concat(FLAG_COLUMNS.map((c) => `${c} = r.${c} OR excluded.${c}`))
    .join(', ');
  const head = HEAD_COLUMNS.map(
    (c) => `head_${c} = CASE WHEN excluded.head_valid_from IS NULL THEN r.head_${c} ELSE excluded.head_${c} END`,
  ).join(', ');
  // One statement: the pieces are computed once for the day rows, the week rows and the tails (disjoint rows).
  await db.$executeRawUnsafe(
    `WITH pieces AS (${pieces}), days AS (
       INSERT INTO service_savings_days AS r (cluster_id, span_days, day, service_id, ${FIGURE_COLUMNS}, ${HEAD_COLUMN_NAMES})
       SELECT cluster_id, 1, day, service_id, ${SUMMED_FIGURES_SQL}, ${HEAD_SQL}
         FROM pieces WHERE months > 0
        GROUP BY cluster_id, day, service_id
       ON CONFLICT (cluster_id, span_days, day, service_id) DO UPDATE SET ${added}, ${head}
     ), tails AS (
       INSERT INTO service_savings_days AS r (cluster_id, span_days, day, service_id, ${FIGURE_COLUMNS})
       SELECT cluster_id, ${TAIL_SPAN_SQL}, ${tailDay('day')}, service_id, ${SUMMED_FIGURES_SQL}
         FROM pieces ${tailsHolding('day')}
        WHERE months > 0
        GROUP BY cluster_id, ${TAIL_SPAN_SQL}, ${tailDay('day')}, service_id
       ON CONFLICT (cluster_id, span_days, day, service_id) DO UPDATE SET ${added}
     )
     INSERT INTO service_savings_days AS r (cluster_id, span_days, day, service_id, ${FIGURE_COLUMNS})
     SELECT cluster_id, 7, date_trunc('week', day::timestamp)::date, service_id, ${SUMMED_FIGURES_SQL}
       FROM pieces WHERE months > 0
      GROUP BY cluster_id, date_trunc('week', day::timestamp)::date, service_id
     ON CONFLICT (cluster_id, span_days, day, service_id) DO UPDATE SET ${added}`,
    clusterId,
    intervalIds,
  );
}

/** A Service whose roll-up must follow its intervals between two instants. */
export interface SavingsDaySpan {
  serviceId: bigint;
  from: Date;
  to: Date;
}

/**
 * The pieces of the closed intervals `i` joined in `source` (which names `t.lo` and `t.hi`, UTC
 * timestamps at midnight bounding the days wanted), one per interval and UTC day, with their figures and
 * head columns. The migrations that created the roll-up and its heads backfilled it with this same
 * computation.
 */
export function dayPiecesSql(source: string): string {
  return `SELECT i.cluster_id, i.service_id, d::date AS day, ${WEIGHTED_FIGURES_SQL}, ${HEAD_OF_PIECE_SQL}
            FROM ${source}
           CROSS JOIN LATERAL generate_series(
                   GREATEST(date_trunc('day', i.valid_from AT TIME ZONE 'UTC'), t.lo),
                   LEAST(i.valid_to AT TIME ZONE 'UTC', t.hi) - interval '1 microsecond',
                   interval '1 day') AS d
           ${weightsSql(`date_part('epoch', LEAST(i.valid_to AT TIME ZONE 'UTC', d + interval '1 day')
                                  - GREATEST(i.valid_from AT TIME ZONE 'UTC', d)) / ${SECONDS_PER_MONTH}`)}`;
}
