import type { ReadDb } from '../read-db.js';

/**
 * The operator's view of the whole deployment (every organization), for Prometheus: figures summed over
 * groups of clusters, never one series per cluster or organization (bounded cardinality). Each statement
 * probes the same indexes the fleet summary does, once per cluster.
 */

/** Clusters grouped by what their figures need: staleness, and the cloud, region and price that price them. */
export interface ClusterMetricGroup {
  /** `fresh`, `stale` (newest snapshot older than the threshold) or `never` (no snapshot yet). */
  staleness: 'fresh' | 'stale' | 'never';
  cloud: string;
  region: string | null;
  price_override: number | null;
  /** The organization's price per cross-zone GB (over the catalogue; the cluster's wins). */
  org_price_override: number | null;
  clusters: number;
  /** Hint states of the Services of each cluster's newest analysed snapshot, summed. */
  services_populated: number;
  services_removed: number;
  services_none: number;
  /** Monthly cross-zone GB of those snapshots (the fleet summary's roll-up), summed. */
  cross_zone_gb_without_hints: number;
  cross_zone_gb_with_hints: number;
  missed_gb: number;
}

export async function clusterMetricGroups(
  db: ReadDb,
  now: Date,
  staleAfterSeconds: number,
): Promise<ClusterMetricGroup[]> {
  return db.query<ClusterMetricGroup>(
    `SELECT CASE WHEN ls.captured_at IS NULL THEN 'never'
                 WHEN ls.captured_at < $1::timestamptz - make_interval(secs => $2) THEN 'stale'
                 ELSE 'fresh' END AS staleness,
            c.cloud::text AS cloud, c.region, c.cross_zone_price_per_gb::float8 AS price_override,
            (SELECT o.cross_zone_price_per_gb FROM organizations o WHERE o.id = c.organization_id)::float8 AS org_price_override,
            count(*)::int AS clusters,
            COALESCE(sum(sm.services_populated), 0)::int AS services_populated,
            COALESCE(sum(sm.services_removed), 0)::int AS services_removed,
            COALESCE(sum(sm.services_none), 0)::int AS services_none,
            COALESCE(sum(sm.cross_zone_gb_without_hints), 0)::float8 AS cross_zone_gb_without_hints,
            COALESCE(sum(sm.cross_zone_gb_with_hints), 0)::float8 AS cross_zone_gb_with_hints,
            COALESCE(sum(sm.missed_gb), 0)::float8 AS missed_gb
       FROM clusters c
       LEFT JOIN LATERAL (SELECT s.captured_at FROM snapshots s
                           WHERE s.cluster_id = c.id ORDER BY s.captured_at DESC LIMIT 1) ls ON true
       LEFT JOIN LATERAL (SELECT m.services_populated, m.services_removed, m.services_none,
                                 m.cross_zone_gb_without_hints, m.cross_zone_gb_with_hints, m.missed_gb
                            FROM snapshot_summaries m
                           WHERE m.cluster_id = c.id ORDER BY m.captured_at DESC LIMIT 1) sm ON true
      GROUP BY 1, 2, 3, 4, 5`,
    [now, staleAfterSeconds],
  );
}

export interface SnapshotPipelineFigures {
  /** Snapshots received and not yet recorded: waiting for a worker, or being analysed. */
  queued: number;
  processing: number;
  /** Received-at of the oldest of those; null when none waits. */
  oldest_pending_received_at: Date | null;
  /** Snapshots that failed for good (no retry left) in the last 24 hours. */
  failed_last_24h: number;
}

/** Reads only the rows of the non-final states and of the last day's failures (index on status, time). */
export async function snapshotPipelineFigures(db: ReadDb, now: Date): Promise<SnapshotPipelineFigures> {
  const [row] = await db.query<SnapshotPipelineFigures>(
    `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued,
            count(*) FILTER (WHERE status = 'processing')::int AS processing,
            min(received_at) FILTER (WHERE status IN ('queued', 'processing')) AS oldest_pending_received_at,
            count(*) FILTER (WHERE status = 'failed'
                               AND status_changed_at >= $1::timestamptz - interval '24 hours')::int AS failed_last_24h
       FROM snapshots
      WHERE status IN ('queued', 'processing')
         OR (status = 'failed' AND status_changed_at >= $1::timestamptz - interval '24 hours')`,
    [now],
  );
  return row!;
}

/**
 * Services whose hints are gone: currently `removed` (the EndpointSlice controller dropped them) right
 * after a period of `populated`, so a regression, not a Service that never had hints. One probe of the
 * open intervals per cluster, one backwards probe per removed Service.
 */
export async function servicesWithLostHints(db: ReadDb): Promise<number> {
  const [row] = await db.query<{ lost: number }>(
    `SELECT count(*)::int AS lost
       FROM clusters c
       JOIN service_intervals cur ON cur.cluster_id = c.id AND cur.valid_to IS NULL AND cur.hint_state = 'removed'
       JOIN LATERAL (SELECT prev.hint_state FROM service_intervals prev
                      WHERE prev.service_id = cur.service_id AND prev.valid_from < cur.valid_from
                      ORDER BY prev.valid_from DESC LIMIT 1) before ON before.hint_state = 'populated'`,
  );
  return row!.lost;
}
