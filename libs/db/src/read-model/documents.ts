import type { ReadDb } from '../read-db.js';

export interface SummaryDocumentsRow {
  snapshot_id: string;
  captured_at: Date;
  node_info_sufficient: boolean;
  node_info_reason: string | null;
  zones: unknown;
  zone_stats: unknown;
  service_cidrs: unknown;
}

/**
 * The newest snapshot summary of a cluster captured at or before `at` (the newest of all when null), with
 * the nodeInfo zones, per-zone statistics and Service CIDR analysis it references (zones: the row's own
 * in a summary recorded before they were stored as a document).
 */
export async function summaryDocuments(
  db: ReadDb,
  clusterIds: readonly string[],
  at: Date | null,
): Promise<(SummaryDocumentsRow & { cluster_id: string })[]> {
  return db.query(
    `SELECT c.id::text AS cluster_id, m.snapshot_id::text, m.captured_at, m.node_info_sufficient,
            m.node_info_reason, COALESCE(n.body, m.zones) AS zones, z.body AS zone_stats, d.body AS service_cidrs
       FROM unnest($1::uuid[]) AS c(id)
       JOIN LATERAL (SELECT * FROM snapshot_summaries x
                      WHERE x.cluster_id = c.id AND ($2::timestamptz IS NULL OR x.captured_at <= $2)
                      ORDER BY x.captured_at DESC LIMIT 1) m ON true
       LEFT JOIN analysis_documents n ON n.cluster_id = m.cluster_id AND n.hash = m.zones_hash
       LEFT JOIN analysis_documents z ON z.cluster_id = m.cluster_id AND z.hash = m.zone_stats_hash
       LEFT JOIN analysis_documents d ON d.cluster_id = m.cluster_id AND d.hash = m.service_cidrs_hash`,
    [clusterIds, at],
  );
}
