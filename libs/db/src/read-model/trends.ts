import type { ReadDb } from '../read-db.js';

/** One cluster in one time bucket: the averages of the summaries recorded in it. */
export interface TrendRow {
  bucket: Date;
  cluster_id: string;
  cloud: string;
  region: string | null;
  price_override: number | null;
  /** The organization's price per cross-zone GB (over the catalogue; the cluster's wins). */
  org_price_override: number | null;
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
 * Buckets are aligned to UTC: hours on the hour, days at midnight, weeks on Monday midnight (ISO weeks).
 * date_bin's origin is a Monday at 00:00 UTC, so every width lines up with the calendar, whatever range
 * is asked for: a day's snapshots are never drawn on the previous day because the range began at 11:00.
 */
export const BUCKET_ORIGIN = new Date('2000-01-03T00:00:00Z');

/** The start of the UTC-aligned bucket of `bucketSeconds` holding `at`. */
export function bucketStart(at: Date, bucketSeconds: number): Date {
  const width = bucketSeconds * 1000;
  const offset = at.getTime() - BUCKET_ORIGIN.getTime();
  return new Date(BUCKET_ORIGIN.getTime() + Math.floor(offset / width) * width);
}

/**
 * The stored summaries of an organization's clusters (or one cluster) over [from, to), bucketed by
 * captured-at time into UTC-aligned buckets (BUCKET_ORIGIN), one row per bucket and cluster: one
 * statement whatever the range.
 */
export async function trendRows(db: ReadDb, query: TrendQuery): Promise<TrendRow[]> {
  return db.query<TrendRow>(
    `SELECT date_bin(make_interval(secs => $4), s.captured_at, $6::timestamptz) AS bucket,
            s.cluster_id::text, c.cloud::text, c.region, c.cross_zone_price_per_gb::float8 AS price_override,
            (SELECT o.cross_zone_price_per_gb FROM organizations o WHERE o.id = c.organization_id)::float8 AS org_price_override,
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
      GROUP BY 1, 2, 3, 4, 5, 6
      ORDER BY 1, 2`,
    [query.organizationId, query.from, query.to, query.bucketSeconds, query.clusterId ?? null, BUCKET_ORIGIN],
  );
}

/**
 * When the first summary in [since, to) of an organization's clusters (or one cluster) was captured,
 * or null: a range that fits the data starts there. One probe of snapshot_summaries(cluster_id,
 * captured_at) per cluster.
 */
export async function firstSummaryAt(
  db: ReadDb,
  query: { organizationId: string; clusterId?: string; since: Date; to: Date },
): Promise<Date | null> {
  const [row] = await db.query<{ first: Date | null }>(
    `SELECT min(f.captured_at) AS first
       FROM clusters c
       CROSS JOIN LATERAL (
         SELECT s.captured_at FROM snapshot_summaries s
          WHERE s.cluster_id = c.id AND s.captured_at >= $2 AND s.captured_at < $3
          ORDER BY s.captured_at LIMIT 1) f
      WHERE c.organization_id = $1 AND ($4::uuid IS NULL OR c.id = $4::uuid)`,
    [query.organizationId, query.since, query.to, query.clusterId ?? null],
  );
  return row?.first ?? null;
}
