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
 * A Service with a traffic value of its own (`cluster_services` as `o`).
 *
 * Decision: how the two sets meet is spelled out, because the planner cannot tell their sizes (a
 * cluster's rows come from the heads, unknown when it plans; it guesses one row) and the plans it took
 * on that guess paired every Service's fixes with every Service that has traffic: 20 s for a
 * 10,000-Service cluster whose traffic is all measured. So the Services ranked at their own rows are
 * kept out with NOT IN over the list (one hash of it, whatever its size), and the re-priced ones look up
 * their traffic through cluster_services' (cluster, namespace, name) key, only when the list is not empty.
 */
const OWN_TRAFFIC = '(o.monthly_traffic_gb IS NOT NULL OR o.measured_traffic_gb IS NOT NULL)';

/**
 * Services with fixes in the newest processed snapshot of each cluster, largest saving first (cost, then
 * GB, then cluster id, namespace and name, so the order is total and keyset pages never overlap). One
 * statement: one index probe per cluster for its newest summary, then its document's rows
 * (service_fixes). A Service without a traffic value of its own saves what its row says, so those rows
 * are read in the ranking index's order and only a page of them per cluster; the Services with an API or
 * measured value (cluster_services) are re-priced with it and ranked among them. Within one cluster the
 * price is one positive factor, so ranking by GB there is ranking by cost.
 */
export async function fixRankingRows(db: ReadDb, query: FixRankingQuery): Promise<FixRankingRow[]> {
  const values: unknown[] = [query.clusters.map((c) => c.id), query.clusters.map((c) => c.pricePerGb)];
  const named = query.service
    ? { namespace: `$${values.push(query.service.namespace)}`, name: `$${values.push(query.service.name)}` }
    : null;
  const service = (alias: string) =>
    named ? ` AND ${alias}.namespace = ${named.namespace} AND ${alias}.name = ${named.name}` : '';
  const after = query.after ? afterCursor(values, query.after) : null;
  const limit = `$${values.push(query.limit)}`;
  const before = query.before === undefined ? '' : ` AND x.captured_at < $${values.push(query.before)}`;
  const rowsOf = (alias: string) =>
    `${alias}.cluster_id = h.cluster_id AND ${alias}.hash = h.hash${service(alias)}
     AND (${alias}.cluster_id, ${alias}.namespace, ${alias}.name) NOT IN (SELECT o.cluster_id, o.namespace, o.name FROM own o)
     ${after ? `AND ${after(`${alias}.saved_gb * h.price`, `${alias}.saved_gb`, 'h.cluster_id', `${alias}.namespace`, `${alias}.name`)}` : ''}`;
  return db.query<FixRankingRow>(
    `WITH prices(cluster_id, price) AS (SELECT * FROM unnest($1::uuid[], $2::float8[])),
     heads AS (
       SELECT c.id AS cluster_id, c.name AS cluster_name, m.captured_at, m.recommendations_hash AS hash, p.price
         FROM prices p
         JOIN clusters c ON c.id = p.cluster_id
         JOIN LATERAL (SELECT x.captured_at, x.recommendations_hash FROM snapshot_summaries x
                        WHERE x.cluster_id = c.id${before} ORDER BY x.captured_at DESC LIMIT 1) m ON true
     ), own AS MATERIALIZED (
       SELECT o.cluster_id, o.namespace, o.name
         FROM heads h JOIN cluster_services o ON o.cluster_id = h.cluster_id
        WHERE ${OWN_TRAFFIC}
     ), fixes AS (
       SELECT h.cluster_id, h.cluster_name, h.captured_at, h.price, r.namespace, r.name, r.fixes, r.traffic_gb,
              r.traffic_source, r.fraction
         FROM heads h
        CROSS JOIN LATERAL (
          -- Only the rows saving at least the page's last one: found in the ranking index's order (the
          -- planner sorts all of a cluster's wide rows otherwise), ties at that saving included.
          SELECT r.* FROM service_fixes r
           WHERE ${rowsOf('r')}
             AND r.saved_gb >= COALESCE((SELECT t.saved_gb FROM service_fixes t WHERE ${rowsOf('t')}
                                          ORDER BY t.saved_gb DESC OFFSET ${limit} - 1 LIMIT 1), '-Infinity')
           ORDER BY r.saved_gb DESC, r.namespace COLLATE "C", r.name COLLATE "C"
           LIMIT ${limit}) r
       UNION ALL
       SELECT h.cluster_id, h.cluster_name, h.captured_at, h.price, r.namespace, r.name, r.fixes,
              COALESCE(o.monthly_traffic_gb, o.measured_traffic_gb),
              CASE WHEN o.monthly_traffic_gb IS NOT NULL THEN 'api' ELSE 'measured' END, r.fraction
         FROM heads h
         JOIN service_fixes r ON r.cluster_id = h.cluster_id AND r.hash = h.hash${service('r')}
         JOIN cluster_services o ON o.cluster_id = r.cluster_id AND o.namespace = r.namespace AND o.name = r.name
                                AND ${OWN_TRAFFIC}
        WHERE EXISTS (SELECT 1 FROM own)
     ), f AS (
       SELECT *, traffic_gb * fraction AS saved_gb, traffic_gb * fraction * price AS saved_cost FROM fixes
     )
     SELECT cluster_id::text, cluster_name, captured_at, namespace, name, fixes, traffic_gb, traffic_source, price,
            saved_gb, saved_cost
       FROM f
      ${after ? `WHERE ${after('f.saved_cost', 'f.saved_gb', 'f.cluster_id', 'f.namespace', 'f.name')}` : ''}
      ORDER BY saved_cost DESC, saved_gb DESC, cluster_id, namespace COLLATE "C", name COLLATE "C"
      LIMIT ${limit}`,
    values,
  );
}

/** The keyset condition "ranked after the cursor's row", over the given columns. */
function afterCursor(values: unknown[], cursor: NonNullable<FixRankingQuery['after']>) {
  const cost = `$${values.push(cursor.cost)}::float8`;
  const gb = `$${values.push(cursor.gb)}::float8`;
  const id = `$${values.push(cursor.clusterId)}::uuid`;
  const ns = `$${values.push(cursor.namespace)}`;
  const name = `$${values.push(cursor.name)}`;
  return (savedCost: string, savedGb: string, clusterId: string, namespace: string, serviceName: string) =>
    `(${savedCost} < ${cost} OR (${savedCost} = ${cost} AND (${savedGb} < ${gb} OR (${savedGb} = ${gb}
      AND (${clusterId}, ${namespace} COLLATE "C", ${serviceName} COLLATE "C") > (${id}, ${ns} COLLATE "C", ${name} COLLATE "C")))))`;
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
