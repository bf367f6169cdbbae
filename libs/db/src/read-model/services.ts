import type { ReadDb } from '../read-db.js';
import {
  AS_ROUTED_FRACTION_SQL,
  AS_ROUTED_MISSED_FRACTION_SQL,
  EFFECTIVE_TRAFFIC_SQL,
  OPPORTUNITY_SQL,
} from './rollup.js';

/** One Service's state (its interval covering the listing's instant) with its savings inputs. */
export interface ServiceStateRow {
  service_id: string;
  namespace: string;
  name: string;
  valid_from: Date;
  valid_to: Date | null;
  routing: string;
  hint_state: string;
  hint_reason: string | null;
  zones: Record<string, Record<string, number | null>>;
  cross_zone_without_hints: number | null;
  cross_zone_with_hints: number | null;
  ready_endpoints: number;
  traffic_annotation: string | null;
  traffic_gb: number;
  traffic_source: string | null;
  explicit_gb: number | null;
  /** The newest measurement of the cluster's traffic source (GB per month, cross-zone fraction, when). */
  measured_gb: number | null;
  measured_cross_zone: number | null;
  measured_at: Date | null;
  preview_state: string | null;
  preview_reason: string | null;
  preview_cross_zone: number | null;
  /** Who writes the slices and whether the data path honours hints; null in intervals recorded before these existed. */
  managed_by: string | null;
  honours_hints: boolean | null;
  data_path_reason: string | null;
  /** Value of the sort key (null for the name sort). */
  sort_key: number | null;
}

export type ServiceSort = 'name' | 'cost' | 'savings';

export interface ServiceFilters {
  namespace?: string;
  routing?: string;
  hintState?: string;
  /** Case-insensitive substring of the hint reason. */
  reason?: string;
  /** Only Services that are (true) or are not (false) opportunities. */
  opportunity?: boolean;
}

export interface ServiceListQuery {
  clusterId: string;
  /** The instant listed: every page of one listing reads the same instant, so pages never overlap or skip. */
  at: Date;
  filters: ServiceFilters;
  sort: ServiceSort;
  descending: boolean;
  /** Sort key, namespace and name of the last row of the previous page. */
  after: { key: number | null; namespace: string; name: string } | null;
  limit: number;
}

/**
 * Interval `i`'s zones: the content its zones_hash names (service_zone_contents), else, in an interval
 * recorded before those were stored apart, its own.
 */
const INTERVAL_ZONES_SQL = `COALESCE((SELECT z.zones FROM service_zone_contents z
  WHERE z.cluster_id = i.cluster_id AND z.hash = i.zones_hash), i.zones)`;

const COLUMNS = `s.id::text AS service_id, s.namespace, s.name, i.valid_from, i.valid_to, i.routing::text,
  i.hint_state::text, i.hint_reason, ${INTERVAL_ZONES_SQL} AS zones, i.cross_zone_without_hints, i.cross_zone_with_hints,
  i.ready_endpoints, i.traffic_annotation, i.traffic_gb, i.traffic_source, s.monthly_traffic_gb AS explicit_gb,
  s.measured_traffic_gb AS measured_gb, s.measured_cross_zone, s.measured_at,
  i.preview_state::text, i.preview_reason, i.preview_cross_zone, i.managed_by, i.honours_hints, i.data_path_reason`;

/**
 * Sort keys in GB per month (the cluster's price is one factor for all its Services, so GB order is cost
 * order): `cost` is today's cross-zone GB; `savings` is what topology routing saves (realized: without −
 * with hints) plus what enabling it would save (an opportunity's drop to its preview).
 */
const SORT_KEYS: Record<Exclude<ServiceSort, 'name'>, string> = {
  cost: `${EFFECTIVE_TRAFFIC_SQL} * ${AS_ROUTED_FRACTION_SQL}`,
  savings: `${EFFECTIVE_TRAFFIC_SQL} * (COALESCE(i.cross_zone_without_hints, 0) - ${AS_ROUTED_FRACTION_SQL}
            + CASE WHEN ${OPPORTUNITY_SQL} THEN ${AS_ROUTED_MISSED_FRACTION_SQL} ELSE 0 END)`,
};

function filterSql(filters: ServiceFilters, values: unknown[]): string {
  const clauses: string[] = [];
  const add = (value: unknown) => `$${values.push(value)}`;
  if (filters.namespace !== undefined) clauses.push(`s.namespace = ${add(filters.namespace)}`);
  if (filters.routing !== undefined) clauses.push(`i.routing = ${add(filters.routing)}::routing_mode`);
  if (filters.hintState !== undefined) clauses.push(`i.hint_state = ${add(filters.hintState)}::hint_state`);
  if (filters.reason !== undefined) {
    const pattern = `%${filters.reason.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    clauses.push(`i.hint_reason ILIKE ${add(pattern)}`);
  }
  if (filters.opportunity !== undefined) {
    clauses.push(filters.opportunity ? `(${OPPORTUNITY_SQL})` : `NOT (${OPPORTUNITY_SQL})`);
  }
  return clauses.map((clause) => ` AND ${clause}`).join('');
}

/**
 * One page of a cluster's Services as they were at `at`, filtered and sorted, after a keyset cursor.
 *
 * By name it walks cluster_services(cluster_id, namespace, name) and looks up each Service's interval at
 * `at` by (service_id, valid_from), so a page costs about `limit` index probes whatever the cluster's size.
 * By cost or savings every Service at `at` must be ranked: one pass over the cluster's intervals covering
 * `at`, then a top-N sort.
 */
export async function listServiceStates(db: ReadDb, query: ServiceListQuery): Promise<ServiceStateRow[]> {
  const values: unknown[] = [query.clusterId, query.at];
  const filters = filterSql(query.filters, values);
  const limit = `$${values.push(query.limit)}`;
  if (query.sort === 'name') {
    const after = query.after
      ? ` AND (s.namespace, s.name) > ($${values.push(query.after.namespace)}, $${values.push(query.after.name)})`
      : '';
    return db.query<ServiceStateRow>(
      `SELECT ${COLUMNS}, NULL::float8 AS sort_key
         FROM cluster_services s
         JOIN LATERAL (SELECT * FROM service_intervals x WHERE x.service_id = s.id AND x.valid_from <= $2
                        ORDER BY x.valid_from DESC LIMIT 1) i ON true
        WHERE s.cluster_id = $1 AND (i.valid_to IS NULL OR i.valid_to > $2)${filters}${after}
        ORDER BY s.namespace, s.name
        LIMIT ${limit}`,
      values,
    );
  }
  const key = SORT_KEYS[query.sort];
  const direction = query.descending ? 'DESC' : 'ASC';
  let after = '';
  if (query.after) {
    const k = `$${values.push(query.after.key)}::float8`;
    const tie = `(namespace, name) > ($${values.push(query.after.namespace)}, $${values.push(query.after.name)})`;
    after = ` WHERE sort_key ${query.descending ? '<' : '>'} ${k} OR (sort_key = ${k} AND ${tie})`;
  }
  return db.query<ServiceStateRow>(
    `SELECT * FROM (
       SELECT ${COLUMNS}, ${key} AS sort_key
         FROM service_intervals i
         JOIN cluster_services s ON s.id = i.service_id
        WHERE i.cluster_id = $1 AND i.valid_from <= $2 AND (i.valid_to IS NULL OR i.valid_to > $2)${filters}
     ) ranked${after}
     ORDER BY sort_key ${direction}, namespace, name
     LIMIT ${limit}`,
    values,
  );
}

/** The newest recorded instant of a cluster (its newest processed snapshot), with the cluster's pricing inputs. */
export interface ClusterHeadRow {
  id: string;
  name: string;
  cloud: string;
  region: string | null;
  price_override: number | null;
  /** The organization's price per cross-zone GB (over the catalogue; the cluster's wins). */
  org_price_override: number | null;
  latest_captured_at: Date | null;
  latest_snapshot_id: string | null;
  /** The cluster's traffic source, when it has one: where its measurements come from. */
  traffic_preset: string | null;
  traffic_window_seconds: number | null;
  traffic_query: string | null;
  /** The cluster's overrides of the Kubernetes version and data plane (null: what the snapshot says). */
  kubernetes_version: string | null;
  data_plane: string | null;
}

/**
 * The cluster if the organization owns it (no row otherwise: the caller answers 404), with its newest
 * processed snapshot. One statement: the tenancy check costs no extra round trip.
 */
export async function clusterHead(
  db: ReadDb,
  organizationId: string,
  clusterId: string,
): Promise<ClusterHeadRow | null> {
  const [row] = await db.query<ClusterHeadRow>(
    `SELECT c.id::text, c.name, c.cloud::text, c.region, c.cross_zone_price_per_gb::float8 AS price_override,
            (SELECT o.cross_zone_price_per_gb FROM organizations o WHERE o.id = c.organization_id)::float8 AS org_price_override,
            m.captured_at AS latest_captured_at, m.snapshot_id::text AS latest_snapshot_id,
            t.preset AS traffic_preset, t.window_seconds AS traffic_window_seconds, t.last_query AS traffic_query,
            c.kubernetes_version, c.data_plane
       FROM clusters c
       LEFT JOIN LATERAL (SELECT captured_at, snapshot_id FROM snapshot_summaries
                           WHERE cluster_id = c.id ORDER BY captured_at DESC LIMIT 1) m ON true
       LEFT JOIN traffic_sources t ON t.cluster_id = c.id
      WHERE c.id = $1 AND c.organization_id = $2`,
    [clusterId, organizationId],
  );
  return row ?? null;
}

/** A Service's identity and API traffic value in a cluster, or null when the cluster never had it. */
export async function findClusterService(
  db: ReadDb,
  clusterId: string,
  namespace: string,
  name: string,
): Promise<{ id: string; explicit_gb: number | null } | null> {
  const [row] = await db.query<{ id: string; explicit_gb: number | null }>(
    `SELECT id::text, monthly_traffic_gb AS explicit_gb FROM cluster_services
      WHERE cluster_id = $1 AND namespace = $2 AND name = $3`,
    [clusterId, namespace, name],
  );
  return row ?? null;
}

/** Every interval of a Service overlapping [from, to), oldest first (at most `limit`). */
export async function serviceIntervals(
  db: ReadDb,
  serviceId: string,
  from: Date,
  to: Date,
  limit: number,
): Promise<ServiceStateRow[]> {
  return db.query<ServiceStateRow>(
    `SELECT ${COLUMNS}, NULL::float8 AS sort_key
       FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id
      WHERE i.service_id = $1 AND i.valid_from < $3 AND (i.valid_to IS NULL OR i.valid_to > $2)
      ORDER BY i.valid_from
      LIMIT $4`,
    [serviceId, from, to, limit],
  );
}

/** The newest interval of a Service (whether or not it still holds). */
export async function latestServiceInterval(db: ReadDb, serviceId: string): Promise<ServiceStateRow | null> {
  const [row] = await db.query<ServiceStateRow>(
    `SELECT ${COLUMNS}, NULL::float8 AS sort_key
       FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id
      WHERE i.service_id = $1 ORDER BY i.valid_from DESC LIMIT 1`,
    [serviceId],
  );
  return row ?? null;
}

export interface ServiceBatchQuery extends Omit<ServiceListQuery, 'clusterId' | 'at'> {
  /** The clusters, each with the instant to list it at. */
  clusters: { id: string; at: Date }[];
}

/**
 * The first page (or the page after a cursor) of several clusters' Services in one statement: the
 * single-cluster queries above, run per cluster inside a LATERAL join. Rows carry their cluster's id.
 */
export async function listServiceStatesBatch(
  db: ReadDb,
  query: ServiceBatchQuery,
): Promise<(ServiceStateRow & { cluster_id: string })[]> {
  if (query.clusters.length === 0) return [];
  const values: unknown[] = [query.clusters.map((c) => c.id), query.clusters.map((c) => c.at)];
  const filters = filterSql(query.filters, values);
  const limit = `$${values.push(query.limit)}`;
  let page: string;
  if (query.sort === 'name') {
    const after = query.after
      ? ` AND (s.namespace, s.name) > ($${values.push(query.after.namespace)}, $${values.push(query.after.name)})`
      : '';
    page = `SELECT ${COLUMNS}, NULL::float8 AS sort_key
              FROM cluster_services s
              JOIN LATERAL (SELECT * FROM service_intervals x WHERE x.service_id = s.id AND x.valid_from <= c.at
                             ORDER BY x.valid_from DESC LIMIT 1) i ON true
             WHERE s.cluster_id = c.id AND (i.valid_to IS NULL OR i.valid_to > c.at)${filters}${after}
             ORDER BY s.namespace, s.name
             LIMIT ${limit}`;
  } else {
    let after = '';
    if (query.after) {
      const k = `$${values.push(query.after.key)}::float8`;
      const tie = `(namespace, name) > ($${values.push(query.after.namespace)}, $${values.push(query.after.name)})`;
      after = ` WHERE sort_key ${query.descending ? '<' : '>'} ${k} OR (sort_key = ${k} AND ${tie})`;
    }
    page = `SELECT * FROM (
              SELECT ${COLUMNS}, ${SORT_KEYS[query.sort]} AS sort_key
                FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id
               WHERE i.cluster_id = c.id AND i.valid_from <= c.at
                 AND (i.valid_to IS NULL OR i.valid_to > c.at)${filters}
            ) ranked${after}
            ORDER BY sort_key ${query.descending ? 'DESC' : 'ASC'}, namespace, name
            LIMIT ${limit}`;
  }
  return db.query(
    `SELECT c.id::text AS cluster_id, r.*
       FROM unnest($1::uuid[], $2::timestamptz[]) AS c(id, at)
      CROSS JOIN LATERAL (${page}) r`,
    values,
  );
}

/** The intervals of several Services overlapping [from, to), oldest first, at most `limit` per Service. */
export async function serviceIntervalsBatch(
  db: ReadDb,
  serviceIds: readonly string[],
  from: Date,
  to: Date,
  limit: number,
): Promise<ServiceStateRow[]> {
  if (serviceIds.length === 0) return [];
  return db.query<ServiceStateRow>(
    `SELECT r.* FROM unnest($1::bigint[]) AS x(id)
      CROSS JOIN LATERAL (
        SELECT ${COLUMNS}, NULL::float8 AS sort_key
          FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id
         WHERE i.service_id = x.id AND i.valid_from < $3 AND (i.valid_to IS NULL OR i.valid_to > $2)
         ORDER BY i.valid_from LIMIT $4) r`,
    [serviceIds, from, to, limit],
  );
}

/**
 * When the Service's hint state began: the start of the unbroken run of intervals, ending with the one
 * starting at `validFrom`, that all have its hint state. An interval closes whenever any recorded field
 * changes (ready endpoints, allocations, traffic), so its own start says when the newest change of any
 * kind happened, not how long the hints have been populated or refused. One index probe per interval
 * of the run (service_intervals(service_id, valid_from)), newest first; a gap (the Service was absent)
 * ends the run.
 */
export async function hintStateSince(db: ReadDb, serviceId: string, validFrom: Date): Promise<Date> {
  const [row] = await db.query<{ since: Date }>(
    `WITH RECURSIVE run AS (
       SELECT valid_from, hint_state FROM service_intervals WHERE service_id = $1 AND valid_from = $2
       UNION ALL
       SELECT p.valid_from, p.hint_state
         FROM run r
         CROSS JOIN LATERAL (
           SELECT x.valid_from, x.valid_to, x.hint_state FROM service_intervals x
            WHERE x.service_id = $1 AND x.valid_from < r.valid_from
            ORDER BY x.valid_from DESC LIMIT 1) p
        WHERE p.hint_state = r.hint_state AND p.valid_to = r.valid_from)
     SELECT min(valid_from) AS since FROM run`,
    [serviceId, validFrom],
  );
  return row?.since ?? validFrom;
}

/** How many of a cluster's Services at `at` match the filters, by hint state. */
export interface ServiceCounts {
  populated: number;
  removed: number;
  none: number;
}

/**
 * The Services of a cluster at `at` that match the filters, counted by hint state: what a page of the
 * list is a page of. One pass over the cluster's intervals covering `at` (the cost or savings sort's
 * pass, without ranking them).
 */
export async function countServiceStates(
  db: ReadDb,
  query: { clusterId: string; at: Date; filters: ServiceFilters },
): Promise<ServiceCounts> {
  const values: unknown[] = [query.clusterId, query.at];
  const filters = filterSql(query.filters, values);
  const rows = await db.query<{ state: keyof ServiceCounts; services: number }>(
    `SELECT i.hint_state::text AS state, count(*)::int AS services
       FROM service_intervals i
       JOIN cluster_services s ON s.id = i.service_id
      WHERE i.cluster_id = $1 AND i.valid_from <= $2 AND (i.valid_to IS NULL OR i.valid_to > $2)${filters}
      GROUP BY 1`,
    values,
  );
  const counts: ServiceCounts = { populated: 0, removed: 0, none: 0 };
  for (const row of rows) counts[row.state] = row.services;
  return counts;
}
