import type { ReadDb } from '../read-db.js';
import { FULLY_MEASURED_SQL } from './rollup.js';

/** One cluster of the fleet summary: the cluster, its newest snapshot, and its newest recorded analysis. */
/** Whole seconds since an agent's newest snapshot was captured (never negative: clocks differ). */
export function agentAgeSeconds(capturedAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - capturedAt.getTime()) / 1000));
}

/** The fleet's staleness rule, one for the API's views and the workers' `cluster.stale` events. */
export function isAgentStale(capturedAt: Date, now: Date, staleAfterSeconds: number): boolean {
  return agentAgeSeconds(capturedAt, now) > staleAfterSeconds;
}

export interface FleetRow {
  id: string;
  name: string;
  cloud: string;
  region: string | null;
  labels: Record<string, string>;
  price_override: number | null;
  /** The organization's price per cross-zone GB (over the catalogue; the cluster's wins). */
  org_price_override: number | null;
  /** Newest snapshot the agent pushed, whatever its status. */
  last_snapshot_captured_at: Date | null;
  last_snapshot_received_at: Date | null;
  last_snapshot_status: string | null;
  /** Newest processed snapshot (its summary row). */
  summary_snapshot_id: string | null;
  summary_captured_at: Date | null;
  services: number | null;
  services_populated: number | null;
  services_removed: number | null;
  services_none: number | null;
  services_with_drift: number | null;
  /** Services whose slices carry hints the data path ignores; null for summaries recorded before it was. */
  services_with_ignored_hints: number | null;
  node_info_sufficient: boolean | null;
  node_info_reason: string | null;
  cross_zone_without_hints: number | null;
  cross_zone_with_hints: number | null;
  /** The monthly roll-up of the newest summary (GB; costs are GB × the cluster's price). */
  traffic_gb: number | null;
  cross_zone_gb_without_hints: number | null;
  cross_zone_gb_with_hints: number | null;
  missed_gb: number | null;
  opportunities: number | null;
  services_estimated_traffic: number | null;
  /**
   * The newest summary's refused Services (REFUSED_HINTS_SQL): how many, their monthly traffic and the
   * cross-zone GB they still make (what is at stake), and how many have the per-endpoint default volume;
   * null for a summary recorded before these were.
   */
  services_at_stake: number | null;
  at_stake_traffic_gb: number | null;
  at_stake_gb: number | null;
  services_at_stake_estimated: number | null;
  /** Current Services whose volume is measured (no API value), and their measured GB per month. */
  services_measured_traffic: number;
  measured_traffic_gb: number;
  /** Of those, the ones whose share crossing zones is measured too, and their measured cross-zone GB. */
  services_fully_measured: number;
  measured_cross_zone_gb: number;
  /** The cluster's traffic source, null when it has none. */
  traffic_preset: string | null;
  traffic_status: string | null;
  traffic_last_error: string | null;
  traffic_last_success_at: Date | null;
  traffic_window_seconds: number | null;
  /** The query of the last good measurement (the provenance of the measured volumes). */
  traffic_query: string | null;
  /** The cluster's overrides (null: the agent's report is used). */
  kubernetes_version_override: string | null;
  data_plane_override: string | null;
  /** What the newest recorded analysis used, and where each came from (override, snapshot, default). */
  analysis_kubernetes_version: string | null;
  analysis_kubernetes_version_source: string | null;
  analysis_data_plane: string | null;
  analysis_data_plane_source: string | null;
}

/**
 * The fleet summary of an organization (or of some of its clusters): one row per cluster, by name. Two index probes per cluster
 * (snapshots and snapshot_summaries by (cluster_id, captured_at) backwards), one statement in all.
 */
export async function fleetRows(
  db: ReadDb,
  organizationId: string,
  clusterIds?: readonly string[],
): Promise<FleetRow[]> {
  return db.query<FleetRow>(
    `SELECT c.id::text, c.name, c.cloud::text, c.region, c.labels, c.cross_zone_price_per_gb::float8 AS price_override,
            (SELECT o.cross_zone_price_per_gb FROM organizations o WHERE o.id = c.organization_id)::float8 AS org_price_override,
            ls.captured_at AS last_snapshot_captured_at, ls.received_at AS last_snapshot_received_at,
            ls.status::text AS last_snapshot_status,
            sm.snapshot_id::text AS summary_snapshot_id, sm.captured_at AS summary_captured_at, sm.services,
            sm.services_populated, sm.services_removed, sm.services_none, sm.services_with_drift,
            sm.services_with_ignored_hints,
            sm.node_info_sufficient, sm.node_info_reason, sm.cross_zone_without_hints, sm.cross_zone_with_hints,
            sm.traffic_gb, sm.cross_zone_gb_without_hints, sm.cross_zone_gb_with_hints, sm.missed_gb,
            sm.opportunities, sm.services_estimated_traffic,
            mt.services_measured_traffic, mt.measured_traffic_gb, mt.services_fully_measured,
            mt.measured_cross_zone_gb,
            sm.services_at_stake, sm.at_stake_traffic_gb, sm.at_stake_gb, sm.services_at_stake_estimated,
            t.preset AS traffic_preset, t.status AS traffic_status, t.last_error AS traffic_last_error,
            t.last_success_at AS traffic_last_success_at, t.window_seconds AS traffic_window_seconds,
            t.last_query AS traffic_query,
            c.kubernetes_version AS kubernetes_version_override, c.data_plane AS data_plane_override,
            sm.kubernetes_version AS analysis_kubernetes_version,
            sm.kubernetes_version_source AS analysis_kubernetes_version_source,
            sm.data_plane AS analysis_data_plane, sm.data_plane_source AS analysis_data_plane_source
       FROM clusters c
       LEFT JOIN LATERAL (SELECT s.captured_at, s.received_at, s.status FROM snapshots s
                           WHERE s.cluster_id = c.id ORDER BY s.captured_at DESC LIMIT 1) ls ON true
       LEFT JOIN LATERAL (SELECT m.* FROM snapshot_summaries m
                           WHERE m.cluster_id = c.id ORDER BY m.captured_at DESC LIMIT 1) sm ON true
       LEFT JOIN traffic_sources t ON t.cluster_id = c.id
       LEFT JOIN LATERAL (SELECT count(*)::int AS services_measured_traffic,
                                 COALESCE(sum(s.measured_traffic_gb::numeric), 0)::float8 AS measured_traffic_gb,
                                 (count(*) FILTER (WHERE ${FULLY_MEASURED_SQL}))::int AS services_fully_measured,
                                 COALESCE(sum((s.measured_traffic_gb * s.measured_cross_zone)::numeric)
                                          FILTER (WHERE ${FULLY_MEASURED_SQL}), 0)::float8 AS measured_cross_zone_gb
                            FROM cluster_services s
                           WHERE t.cluster_id IS NOT NULL AND s.cluster_id = c.id AND s.measured_at IS NOT NULL
                             AND s.monthly_traffic_gb IS NULL
                             AND EXISTS (SELECT 1 FROM service_intervals i
                                          WHERE i.service_id = s.id AND i.valid_to IS NULL)) mt ON true
      WHERE c.organization_id = $1 AND ($2::uuid[] IS NULL OR c.id = ANY($2::uuid[]))
      ORDER BY c.name`,
    [organizationId, clusterIds ?? null],
  );
}
