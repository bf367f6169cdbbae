import type { ServicePeriodRow } from '@zw/reports';
import { HintState, RoutingMode } from './generated/prisma/client.js';
import { type ReadDb, REPORT_STATEMENT_SETTINGS } from './read-db.js';
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
import { SECONDS_PER_MONTH } from './read-model/savings-days.js';

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

/** The query's values, in the order every period statement numbers them ($1 to $5). */
export function periodValues(query: PeriodQuery): unknown[] {
  return [query.clusters.ids, query.clusters.prices, query.from, query.to, query.now];
}

const ROUTING_MODES = Object.values(RoutingMode);
const HINT_STATES = Object.values(HintState);
/** A row's kind of missed saving, by its code; the codes also order a Service's rows (none first). */
const MISSED_BASES = [null, 'blocked', 'preview'] as const;

/** `column`'s position in `values` (its enum's labels, all of them, as the generated client lists them). */
function codeSql(column: string, values: readonly string[]): string {
  return `CASE ${column} ${values.map((value, code) => `WHEN '${value}' THEN ${code}`).join(' ')} END`;
}

/** The flags word: single bits, and where the missed basis, routing and hint state codes start. */
const FLAG = {
  fullyMeasured: 1,
  honoursHints: 2,
  noMeasuredShare: 4,
  noMissedFraction: 8,
  basisShift: 4,
  routingShift: 6,
  hintStateShift: 10,
} as const;

/**
 * Every interval of the clusters overlapping [from, to) with positive months in it, as the report sums it:
 * its Service's names, its texts, and one `bytea` of its numbers: cluster (its index in the query, from 1),
 * Service position, flags, then its start (epoch seconds) and seven float8 figures, big-endian (read
 * below). Each cost is its GB times the cluster's price, multiplied in Node: the same float8 product.
 */
const REPORT_INTERVALS_SQL = `
  WITH prices(cluster_id, price, ordinal) AS (SELECT * FROM unnest($1::uuid[], $2::float8[]) WITH ORDINALITY),
  services AS (
    SELECT s.id, s.namespace, s.name, s.monthly_traffic_gb, s.measured_traffic_gb, s.measured_cross_zone,
           row_number() OVER (ORDER BY s.cluster_id, s.namespace, s.name) AS position
      FROM cluster_services s WHERE s.cluster_id = ANY($1::uuid[])
  ),
  spans AS (
    SELECT s.position, p.ordinal, s.namespace, s.name, p.price, i.valid_from, i.routing, i.hint_state, i.hint_reason,
           ${EFFECTIVE_TRAFFIC_SQL} AS gb,
           ${TRAFFIC_SOURCE_SQL} AS source,
           COALESCE(i.cross_zone_without_hints, 0) AS without_fraction,
           ${AS_ROUTED_FRACTION_SQL} AS with_fraction,
           COALESCE(i.cross_zone_with_hints, 0)::float8 AS model_with_fraction,
           (${MEASURED_SHARE_SQL})::float8 AS measured_share,
           ${FULLY_MEASURED_SQL} AS fully_measured,
           COALESCE(i.honours_hints, true) AS honours_hints,
           CASE WHEN ${OPPORTUNITY_SQL} THEN 2
                WHEN i.routing = 'None' AND i.preview_state = 'removed' THEN 1
                WHEN ${REFUSED_HINTS_SQL} THEN 1 ELSE 0 END AS basis,
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
  )
  SELECT int8send((ordinal << 32) | position)
         || int4send(fully_measured::int * ${FLAG.fullyMeasured} + honours_hints::int * ${FLAG.honoursHints}
                     + (measured_share IS NULL)::int * ${FLAG.noMeasuredShare}
                     + (missed_fraction IS NULL)::int * ${FLAG.noMissedFraction}
                     + (basis << ${FLAG.basisShift}) + ((${codeSql('routing', ROUTING_MODES)}) << ${FLAG.routingShift})
                     + ((${codeSql('hint_state', HINT_STATES)}) << ${FLAG.hintStateShift}))
         || float8send(date_part('epoch', valid_from)) || float8send(model_with_fraction)
         || float8send(COALESCE(measured_share, 0)) || float8send(months) || float8send(gb_m)
         || float8send(gb_m * without_fraction) || float8send(gb_m * with_fraction)
         || float8send(COALESCE(gb_m * missed_fraction, 0))
           AS numbers,
         namespace, name, hint_reason, source, missed_reason
    FROM (SELECT *, gb * months AS gb_m FROM spans WHERE months > 0 OFFSET 0) w`;

interface IntervalRow {
  numbers: Buffer | null;
  namespace: string;
  name: string;
  hint_reason: string | null;
  source: string | null;
  missed_reason: string | null;
}

const NUMBERS_BYTES = 12 + 8 * 8;

/**
 * Decision: an interval's numbers cross as one `bytea` of big-endian words, its enums as codes. In
 * `pg`'s text rows every column becomes a string in Node before it is parsed: 22 columns of 200,400 rows
 * cost 1.5-2.2 s of Node CPU, and Postgres spent about 0.4 s more writing enum labels and float texts
 * (bench/RESULTS.md, report24c). Read through these accessors only.
 */
const numbersOf = (row: IntervalRow): Buffer => {
  if (row.numbers === null || row.numbers.length !== NUMBERS_BYTES) {
    throw new Error('report rows: an interval whose numbers Postgres could not encode (a cluster without a price?)');
  }
  return row.numbers;
};
const clusterOrdinalOf = (row: IntervalRow) => row.numbers!.readInt32BE(0);
const positionOf = (row: IntervalRow) => numbersOf(row).readInt32BE(4);
const flagsOf = (row: IntervalRow) => row.numbers!.readInt32BE(8);
const numberOf = (row: IntervalRow, index: number) => row.numbers!.readDoubleBE(12 + 8 * index);
const startOf = (row: IntervalRow) => numberOf(row, 0);
const basisOf = (row: IntervalRow) => (flagsOf(row) >> FLAG.basisShift) & 0x3;

/**
 * The interval's figures in the row's order (months, traffic, then each figure's GB and cost); null where
 * it adds nothing (a missed fraction Postgres could not compute). A cost is the GB times the cluster's
 * price: the float8 product SQL's `gb * fraction * price` gave.
 *
 * Decision: multiplied here, not packed by Postgres: each value packed is a send function's 1 KB buffer
 * and a new `bytea` per row, and three fewer of each took the statement from about 880 to 790 ms
 * (bench/RESULTS.md, fixpatch25).
 */
function figuresOf(row: IntervalRow, clusters: PricedClusters): (number | null)[] {
  const price = clusters.prices[clusterOrdinalOf(row) - 1];
  const missedKnown = (flagsOf(row) & FLAG.noMissedFraction) === 0;
  const [withoutGb, withGb, missedGb] = [numberOf(row, 5), numberOf(row, 6), numberOf(row, 7)];
  return [
    numberOf(row, 3),
    numberOf(row, 4),
    withoutGb,
    withoutGb * price,
    withGb,
    withGb * price,
    missedKnown ? missedGb : null,
    missedKnown ? missedGb * price : null,
  ];
}

/**
 * Each Service's integrals over the period, one row per kind of missed saving, with its latest state in
 * the period (that of its interval starting last), by cluster, namespace and name; a Service's rows with
 * nothing missed first, then those refused hints (`blocked`), then the opportunity (`preview`), reasons
 * by their bytes.
 *
 * Decision: Postgres computes each interval's figures (the read model's SQL, in float8) and Node groups
 * them. Sorting the intervals, marking each Service's latest and grouping them in SQL was half of the
 * statement's 2.1-2.5 s of Postgres CPU for 200,000 Services (bench/RESULTS.md, report24c); here the
 * intervals come as the joins produce them and land in their Service's slot (its position in the
 * (cluster, namespace, name) index), so nothing is sorted but a Service's own intervals. Each row sums
 * its intervals in the order they started, skipping what is null, as `sum` over float8 in that order
 * did: the answer is the same bit for bit whatever order the history was written in.
 */
export async function reportServiceRows(db: ReadDb, query: PeriodQuery): Promise<ServicePeriodRow[]> {
  if (query.clusters.ids.length === 0) return [];
  const rows = await db.query<IntervalRow>(REPORT_INTERVALS_SQL, periodValues(query), REPORT_STATEMENT_SETTINGS);
  let last = 0;
  for (const row of rows) last = Math.max(last, positionOf(row));
  // A slot per Service position, sized once: a Service's interval, or its intervals when it has several.
  const slots: (IntervalRow | IntervalRow[] | undefined)[] = new Array(last + 1);
  for (const row of rows) {
    const position = positionOf(row);
    const held = slots[position];
    if (held === undefined) slots[position] = row;
    else if (Array.isArray(held)) held.push(row);
    else slots[position] = [held, row];
  }
  const answer: ServicePeriodRow[] = [];
  for (const held of slots) {
    if (held === undefined) continue;
    if (!Array.isArray(held))
      answer.push(periodRow(held, held, figuresOf(held, query.clusters), sourceIsDefault(held), query.clusters.ids));
    else for (const row of serviceRows(held, query.clusters)) answer.push(row);
  }
  return answer;
}

/** A Service's rows from its intervals: one per kind of missed saving and reason, each summed in start order. */
function serviceRows(intervals: IntervalRow[], clusters: PricedClusters): ServicePeriodRow[] {
  intervals.sort((a, b) => startOf(a) - startOf(b));
  const groups = new Map<string, IntervalRow[]>();
  for (const interval of intervals) {
    const reason = interval.missed_reason;
    const key = `${basisOf(interval)}/${reason === null ? '' : `:${reason}`}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [interval]);
    else group.push(interval);
  }
  const latest = intervals[intervals.length - 1];
  return [...groups.values()].sort(compareGroups).map((group) => summedRow(group, latest, clusters));
}

/** By kind of missed saving (none, blocked, preview), then reason: none first, then by bytes. */
function compareGroups(a: IntervalRow[], b: IntervalRow[]): number {
  const [x, y] = [a[0], b[0]];
  if (basisOf(x) !== basisOf(y)) return basisOf(x) - basisOf(y);
  const [p, q] = [x.missed_reason, y.missed_reason];
  if (p === q) return 0;
  if (p === null) return -1;
  if (q === null) return 1;
  return Buffer.compare(Buffer.from(p), Buffer.from(q));
}

/** A row of several intervals (in start order): their figures summed, skipping nulls as SQL's `sum` does. */
function summedRow(group: IntervalRow[], latest: IntervalRow, clusters: PricedClusters): ServicePeriodRow {
  const sums = figuresOf(group[0], clusters);
  let estimated = sourceIsDefault(group[0]);
  for (const interval of group.slice(1)) {
    figuresOf(interval, clusters).forEach((value, k) => {
      if (value !== null) sums[k] = sums[k] === null ? value : sums[k]! + value;
    });
    const isDefault = sourceIsDefault(interval);
    if (isDefault !== null) estimated = estimated === true || isDefault;
  }
  return periodRow(group[0], latest, sums, estimated, clusters.ids);
}

/** The row of `first`'s Service and kind of missed saving, with `latest`'s state and the figures given. */
function periodRow(
  first: IntervalRow,
  latest: IntervalRow,
  figures: (number | null)[],
  estimated: boolean | null,
  clusterIds: readonly string[],
): ServicePeriodRow {
  const flags = flagsOf(latest);
  return {
    clusterId: clusterIds[clusterOrdinalOf(first) - 1],
    namespace: first.namespace,
    name: first.name,
    routing: ROUTING_MODES[(flags >> FLAG.routingShift) & 0xf],
    hintState: HINT_STATES[(flags >> FLAG.hintStateShift) & 0x3],
    hintReason: latest.hint_reason,
    trafficSource: latest.source as ServicePeriodRow['trafficSource'],
    fullyMeasured: (flags & FLAG.fullyMeasured) !== 0,
    measuredCrossZone: (flags & FLAG.noMeasuredShare) === 0 ? numberOf(latest, 2) : null,
    modelCrossZone: numberOf(latest, 1),
    honoursHints: (flags & FLAG.honoursHints) !== 0,
    // Null when no interval's source is known, as SQL's bool_or of nulls.
    estimated: estimated as boolean,
    missedBasis: MISSED_BASES[basisOf(first)],
    missedReason: first.missed_reason,
    months: figures[0]!,
    trafficGb: figures[1]!,
    withoutHintsGb: figures[2]!,
    withoutHintsCost: figures[3]!,
    withHintsGb: figures[4]!,
    withHintsCost: figures[5]!,
    missedGb: figures[6]!,
    missedCost: figures[7]!,
  };
}

/** Whether the interval's traffic is the per-endpoint default; null when its source is unknown (as SQL's `=`). */
function sourceIsDefault(interval: IntervalRow): boolean | null {
  return interval.source === null ? null : interval.source === 'default-per-endpoint';
}
