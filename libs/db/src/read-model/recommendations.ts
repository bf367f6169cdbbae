import type { ReadDb } from '../read-db.js';

/**
 * The recommended fixes of a cluster's newest processed snapshot, as the worker computes them: one
 * document per distinct content (snapshot_summaries.recommendations_hash), listing only the Services that
 * have fixes. Stored split: the node blockers in analysis_documents, each Service in service_fixes. Money is applied when read: each fix keeps the drop of its cross-zone fraction, and the GB
 * and cost follow from the Service's effective traffic (API value, else measured, else the snapshot's)
 * and the cluster's price.
 */
export interface RecommendationsDocument {
  services: StoredServiceFixes[];
  /** Nodes that disable hints for every Service, or null. */
  nodeBlockers: Record<string, unknown> | null;
}

export interface StoredServiceFixes {
  namespace: string;
  name: string;
  routing: string;
  hintState: string;
  hintReason: string | null;
  /** Monthly GB from the snapshot alone (annotation, else the per-endpoint default). */
  trafficGb: number;
  trafficSource: string;
  /** Best first; each carries `savings.crossZoneFraction`. */
  recommendations: Record<string, unknown>[];
}

/** One Service's fixes with its effective traffic and the cost of its best fix (cluster price applied). */
export interface FixRankingRow {
  cluster_id: string;
  cluster_name: string;
  captured_at: Date;
  namespace: string;
  name: string;
  fixes: StoredServiceFixes;
  traffic_gb: number;
  traffic_source: string;
  price: number;
  /** The best fix's saving: GB and cost per month. */
  saved_gb: number;
  saved_cost: number;
}

export interface FixRankingQuery {
  /** The clusters ranked together, each with its price per cross-zone GB. */
  clusters: { id: string; pricePerGb: number }[];
  /** Each cluster's newest snapshot captured before this instant (default: its newest). */
  before?: Date;
  /** Only this Service (the Service detail). */
  service?: { namespace: string; name: string };
  /** Keyset: the last row of the previous page. */
  after?: { cost: number; gb: number; clusterId: string; namespace: string; name: string } | null;
  limit: number;
}

/**
 * Services with fixes in the newest processed snapshot of each cluster, largest saving first (cost, then
 * GB, then cluster id, namespace and name, so the order is total and keyset pages never overlap). One
 * statement: one index probe per cluster for its newest summary, then its document's rows
 * (service_fixes) with each Service's effective traffic.
 */
export async function fixRankingRows(db: ReadDb, query: FixRankingQuery): Promise<FixRankingRow[]> {
  const values: unknown[] = [query.clusters.map((c) => c.id), query.clusters.map((c) => c.pricePerGb)];
  const conditions: string[] = [];
  if (query.service) {
    conditions.push(`r.namespace = $${values.push(query.service.namespace)}`);
    conditions.push(`r.name = $${values.push(query.service.name)}`);
  }
  const ranked: string[] = [];
  if (query.after) {
    const cost = `$${values.push(query.after.cost)}::float8`;
    const gb = `$${values.push(query.after.gb)}::float8`;
    const id = `$${values.push(query.after.clusterId)}::uuid`;
    const ns = `$${values.push(query.after.namespace)}`;
    const name = `$${values.push(query.after.name)}`;
    ranked.push(`(f.saved_cost < ${cost} OR (f.saved_cost = ${cost} AND (f.saved_gb < ${gb} OR (f.saved_gb = ${gb}
      AND (f.cluster_id, f.namespace COLLATE "C", f.name COLLATE "C") > (${id}, ${ns} COLLATE "C", ${name} COLLATE "C")))))`);
  }
  const limit = `$${values.push(query.limit)}`;
  const before = query.before === undefined ? '' : ` AND x.captured_at < $${values.push(query.before)}`;
  return db.query<FixRankingRow>(
    `WITH prices(cluster_id, price) AS (SELECT * FROM unnest($1::uuid[], $2::float8[])),
     fixes AS (
       SELECT c.id AS cluster_id, c.name AS cluster_name, m.captured_at, r.namespace, r.name, r.fixes, p.price,
              COALESCE(s.monthly_traffic_gb, s.measured_traffic_gb, r.traffic_gb) AS traffic_gb,
              CASE WHEN s.monthly_traffic_gb IS NOT NULL THEN 'api'
                   WHEN s.measured_traffic_gb IS NOT NULL THEN 'measured'
                   ELSE r.traffic_source END AS traffic_source,
              r.fraction
         FROM prices p
         JOIN clusters c ON c.id = p.cluster_id
         JOIN LATERAL (SELECT x.captured_at, x.recommendations_hash FROM snapshot_summaries x
                        WHERE x.cluster_id = c.id${before} ORDER BY x.captured_at DESC LIMIT 1) m ON true
         JOIN service_fixes r ON r.cluster_id = c.id AND r.hash = m.recommendations_hash
         LEFT JOIN cluster_services s ON s.cluster_id = c.id AND s.namespace = r.namespace AND s.name = r.name
        ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
     ), f AS (
       SELECT *, traffic_gb * fraction AS saved_gb, traffic_gb * fraction * price AS saved_cost FROM fixes
     )
     SELECT cluster_id::text, cluster_name, captured_at, namespace, name, fixes, traffic_gb, traffic_source, price,
            saved_gb, saved_cost
       FROM f
      ${ranked.length > 0 ? `WHERE ${ranked.join(' AND ')}` : ''}
      ORDER BY saved_cost DESC, saved_gb DESC, cluster_id, namespace COLLATE "C", name COLLATE "C"
      LIMIT ${limit}`,
    values,
  );
}

export interface ClusterFixesHeadRow {
  snapshot_id: string | null;
  captured_at: Date | null;
  node_blockers: Record<string, unknown> | null;
  /** Whether the newest summary has a recommendations document (snapshots recorded before fixes had none). */
  has_document: boolean;
}

/** The cluster's newest processed snapshot and its blocking nodes. */
export async function clusterFixesHead(db: ReadDb, clusterId: string): Promise<ClusterFixesHeadRow> {
  const [row] = await db.query<ClusterFixesHeadRow>(
    `SELECT m.snapshot_id::text, m.captured_at, d.body->'nodeBlockers' AS node_blockers, d.hash IS NOT NULL AS has_document
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (SELECT x.* FROM snapshot_summaries x WHERE x.cluster_id = $1::uuid
                           ORDER BY x.captured_at DESC LIMIT 1) m ON true
       LEFT JOIN analysis_documents d ON d.cluster_id = m.cluster_id AND d.hash = m.recommendations_hash`,
    [clusterId],
  );
  return row;
}
