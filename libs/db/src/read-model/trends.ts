import type { ReadDb } from '../read-db.js';

/** One cluster in one time bucket: the averages of the summaries recorded in it. */
export interface TrendRow {
  bucket: Date;
  cluster_id: string;
  cloud: string;
  region: string | null;
  price_override: number | null;
  snapshots: number;
  services_populated: number;
  services_removed: number;
  services_none: number;
  services_with_drift: number;
  traffic_gb: number | null;
  cross_zone_gb_without_hints: number | null;
  cross_zone_gb_with_hints: number | null;
  missed_gb: number | null;
}

export interface TrendQuery {
  organizationId: string;
  /** Only this cluster (the cluster trends); omitted: every cluster of the organization. */
  clusterId?: string;
  from: Date;
  to: Date;
  bucketSeconds: number;
}

/**
 * The stored summaries of an organization's clusters (or one cluster) over [from, to), bucketed by
 * captured-at time, one row per bucket and cluster: one statement whatever the range. Buckets start at
 * `from` (date_bin's origin), so the same range always gives the same buckets.
 */
export async function trendRows(db: ReadDb, query: TrendQuery): Promise<TrendRow[]> {
  return db.query<TrendRow>(
    `SELECT date_bin(make_interval(secs => $4), s.captured_at, $2::timestamptz) AS bucket,
            s.cluster_id::text, c.cloud::text, c.region, c.cross_zone_price_per_gb::float8 AS price_override,
            count(*)::int AS snapshots,
            avg(s.services_populated)::float8 AS services_populated,
            avg(s.services_removed)::float8 AS services_removed,
            avg(s.services_none)::float8 AS services_none,
            avg(s.services_with_drift)::float8 AS services_with_drift,
            avg(s.traffic_gb)::float8 AS traffic_gb,
            avg(s.cross_zone_gb_without_hints)::float8 AS cross_zone_gb_without_hints,
            avg(s.cross_zone_gb_with_hints)::float8 AS cross_zone_gb_with_hints,
            avg(s.missed_gb)::float8 AS missed_gb
       FROM snapshot_summaries s
       JOIN clusters c ON c.id = s.cluster_id
      WHERE c.organization_id = $1 AND s.captured_at >= $2 AND s.captured_at < $3
        AND ($5::uuid IS NULL OR s.cluster_id = $5::uuid)
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 1, 2`,
    [query.organizationId, query.from, query.to, query.bucketSeconds, query.clusterId ?? null],
  );
}
