import { type ReadDb, REPORT_STATEMENT_SETTINGS } from '../read-db.js';

/**
 * The document a snapshot summary's recommendations_hash names (analysis_documents): the cluster's
 * blocking nodes as the fixes saw them. Each Service's fixes are stored once per distinct content
 * (service_fix_contents) and named by the interval holding the Service's state at that snapshot
 * (service_intervals.fixes_hash, with the best fix's fraction in fix_fraction). Money is applied when
 * read: each fix keeps the drop of its cross-zone fraction, and the GB and cost follow from the Service's
 * effective traffic (API value, else measured, else the snapshot's) and the cluster's price.
 */
export interface RecommendationsDocument {
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
 * kept out with NOT IN over the list (one hash of it, whatever its size), and the re-priced ones are
 * read from the list, only when it is not empty.
 */
const OWN_TRAFFIC = '(o.monthly_traffic_gb IS NOT NULL OR o.measured_traffic_gb IS NOT NULL)';

/**
 * Services with fixes in the newest processed snapshot of each cluster (or the newest before `before`),
 * largest saving first (cost, then GB, then cluster id, namespace and name, so the order is total and
 * keyset pages never overlap). One statement: one index probe per cluster for its newest summary, then
 * the intervals holding at it that name fixes. A Service without a traffic value of its own saves what
 * its interval says (its traffic times its best fix's fraction), so for the newest snapshot those are read
 * in the order of service_intervals_fix_ranking (a partial index over the open intervals with fixes) and
 * only a page of them per cluster; the Services with an API or measured value (cluster_services) are
 * re-priced with it and ranked among them. Within one cluster the price is one positive factor, so
 * ranking by GB there is ranking by cost. The fixes themselves (service_fix_contents) are read for the
 * page's rows only.
 */
export async function fixRankingRows(db: ReadDb, query: FixRankingQuery): Promise<FixRankingRow[]> {
  const { text, values } = fixRankingSql(query, 'c.fixes');
  return db.query<FixRankingRow>(text, values);
}

/** A ranked Service with its best fix only (as {@link fixRankingRows} ranks them), for reports. */
export interface BestFixRow extends Omit<FixRankingRow, 'fixes'> {
  /** False when the Service's stored fixes hold no recommendation (the other best-fix columns are null then). */
  has_fix: boolean;
  kind: string;
  summary: string;
  resulting_state: string;
  /** The share of its traffic still crossing zones after the fix (`crossZone.withHints`). */
  cross_zone_after: number;
  overload_above_threshold: boolean;
  /** The stored fixes' content (service_fix_contents.hash), to read the patch by ({@link bestFixPatches}). */
  fixes_hash: Buffer;
  /** How many other fixes it has. */
  alternatives: number;
}

/**
 * The best fix's fields, read from the stored fixes in Postgres.
 *
 * Decision: a report ranks every Service of an organization, and each stored document (2.7 KB of JSON,
 * distinct per Service: its patch names it) parsed whole in Node cost 12-14 s for 90,545 Services
 * (bench/RESULTS.md, report24d); the report shows only the best fix and the number of the others.
 */
const BEST_FIX_COLUMNS = `best.fix IS NOT NULL AS has_fix, best.fix->>'kind' AS kind, best.fix->>'summary' AS summary,
            best.fix->>'resultingState' AS resulting_state,
            (best.fix->'crossZone'->>'withHints')::float8 AS cross_zone_after,
            COALESCE(best.fix->'overloadAboveThreshold' = 'true'::jsonb, false) AS overload_above_threshold,
            GREATEST(best.count - 1, 0) AS alternatives, p.fixes_hash`;

/**
 * Every Service's best fix, ranked as {@link fixRankingRows} ranks them, without its patch: the report
 * shows the patches of its top fixes only, read after by {@link bestFixPatches}.
 *
 * Decision: every Service's patch was 51 MB of text for the 90,545 fixes of the organization-read bench,
 * read, parsed and held through the whole report for ten of them; numbering the rows in Postgres to pick
 * the top ones' patches sorted every stored document with them, 1 s slower (bench/RESULTS.md, fixpatch25).
 */
export async function bestFixRows(db: ReadDb, query: FixRankingQuery): Promise<BestFixRow[]> {
  const { text, values } = fixRankingSql(
    query,
    BEST_FIX_COLUMNS,
    // OFFSET 0: the document is detoasted once per row, not once per column read from it.
    "CROSS JOIN LATERAL (SELECT recommendations->0 AS fix, jsonb_array_length(recommendations) AS count FROM (SELECT c.fixes->'recommendations' AS recommendations OFFSET 0) r) best",
  );
  return db.query<BestFixRow>(text, values, REPORT_STATEMENT_SETTINGS);
}

/**
 * The best fix's patch of each stored fixes content named (by cluster and hash, as a {@link BestFixRow}
 * names it), in the order asked; null where the content holds no fix or is gone. A content is stored once
 * per hash and never changes, so this is the patch of the row's fix whenever it is read.
 */
export async function bestFixPatches(
  db: ReadDb,
  contents: readonly { clusterId: string; hash: Buffer }[],
): Promise<(string | null)[]> {
  if (contents.length === 0) return [];
  const rows = await db.query<{ patch: string | null }>(
    `SELECT c.fixes->'recommendations'->0->>'patch' AS patch
       FROM unnest($1::uuid[], $2::bytea[]) WITH ORDINALITY AS k(cluster_id, hash, position)
       LEFT JOIN service_fix_contents c ON c.cluster_id = k.cluster_id AND c.hash = k.hash
      ORDER BY k.position`,
    [contents.map((content) => content.clusterId), contents.map((content) => content.hash)],
  );
  return rows.map((row) => row.patch);
}

/** The ranking statement, reading `contents` (columns of the stored fixes `c`, and of `joined`) for the page's rows. */
function fixRankingSql(query: FixRankingQuery, contents: string, joined = ''): { text: string; values: unknown[] } {
  const values: unknown[] = [query.clusters.map((c) => c.id), query.clusters.map((c) => c.pricePerGb)];
  const named = query.service
    ? { namespace: `$${values.push(query.service.namespace)}`, name: `$${values.push(query.service.name)}` }
    : null;
  const service = (alias: string) =>
    named ? ` AND ${alias}.namespace = ${named.namespace} AND ${alias}.name = ${named.name}` : '';
  const after = query.after ? afterCursor(values, query.after) : null;
  const limit = `$${values.push(query.limit)}`;
  const before = query.before === undefined ? '' : ` AND x.captured_at < $${values.push(query.before)}`;
  // The intervals holding at the head's snapshot: for the newest, the open ones (the ranking index's rows).
  const holding = (alias: string) =>
    query.before === undefined
      ? `${alias}.valid_to IS NULL`
      : `${alias}.valid_from <= h.captured_at AND (${alias}.valid_to IS NULL OR ${alias}.valid_to > h.captured_at)`;
  const saved = (alias: string) => `(${alias}.traffic_gb * ${alias}.fix_fraction)`;
  const rowsOf = (alias: string, services: string) =>
    `${alias}.cluster_id = h.cluster_id AND ${holding(alias)} AND ${alias}.fixes_hash IS NOT NULL
     AND ${services}.id = ${alias}.service_id${service(services)}
     AND ${alias}.service_id NOT IN (SELECT o.id FROM own o)
     ${after ? `AND ${after(`${saved(alias)} * h.price`, saved(alias), 'h.cluster_id', `${services}.namespace`, `${services}.name`)}` : ''}`;
  const text = `WITH prices(cluster_id, price) AS (SELECT * FROM unnest($1::uuid[], $2::float8[])),
     heads AS (
       SELECT c.id AS cluster_id, c.name AS cluster_name, m.captured_at, p.price
         FROM prices p
         JOIN clusters c ON c.id = p.cluster_id
         JOIN LATERAL (SELECT x.captured_at FROM snapshot_summaries x
                        WHERE x.cluster_id = c.id${before} ORDER BY x.captured_at DESC LIMIT 1) m ON true
     ), own AS MATERIALIZED (
       SELECT o.id, o.cluster_id, o.namespace, o.name, o.monthly_traffic_gb, o.measured_traffic_gb
         FROM heads h JOIN cluster_services o ON o.cluster_id = h.cluster_id
        WHERE ${OWN_TRAFFIC}
     ), fixes AS (
       SELECT h.cluster_id, h.cluster_name, h.captured_at, h.price, r.namespace, r.name, r.fixes_hash,
              r.traffic_gb, r.traffic_source, r.fix_fraction AS fraction
         FROM heads h
        CROSS JOIN LATERAL (
          -- Only the rows saving at least the page's last one: found in the ranking index's order (the
          -- planner sorts all of a cluster's rows otherwise), ties at that saving included.
          SELECT r.fixes_hash, r.traffic_gb, r.traffic_source, r.fix_fraction, s.namespace, s.name
            FROM service_intervals r, cluster_services s
           WHERE ${rowsOf('r', 's')}
             AND ${saved('r')} >= COALESCE((SELECT ${saved('t')} FROM service_intervals t, cluster_services u
                                           WHERE ${rowsOf('t', 'u')}
                                           ORDER BY ${saved('t')} DESC OFFSET ${limit} - 1 LIMIT 1), '-Infinity')
           ORDER BY ${saved('r')} DESC, s.namespace COLLATE "C", s.name COLLATE "C"
           LIMIT ${limit}) r
       UNION ALL
       SELECT h.cluster_id, h.cluster_name, h.captured_at, h.price, o.namespace, o.name, r.fixes_hash,
              COALESCE(o.monthly_traffic_gb, o.measured_traffic_gb),
              CASE WHEN o.monthly_traffic_gb IS NOT NULL THEN 'api' ELSE 'measured' END, r.fix_fraction
         FROM heads h
         JOIN own o ON o.cluster_id = h.cluster_id${service('o')}
         JOIN service_intervals r ON r.service_id = o.id AND ${holding('r')} AND r.fixes_hash IS NOT NULL
        WHERE EXISTS (SELECT 1 FROM own)
     ), f AS (
       SELECT *, traffic_gb * fraction AS saved_gb, traffic_gb * fraction * price AS saved_cost FROM fixes
     ), page AS (
       SELECT * FROM f
        ${after ? `WHERE ${after('f.saved_cost', 'f.saved_gb', 'f.cluster_id', 'f.namespace', 'f.name')}` : ''}
        ORDER BY saved_cost DESC, saved_gb DESC, cluster_id, namespace COLLATE "C", name COLLATE "C"
        LIMIT ${limit}
     )
     SELECT p.cluster_id::text, p.cluster_name, p.captured_at, p.namespace, p.name, ${contents}, p.traffic_gb,
            p.traffic_source, p.price, p.saved_gb, p.saved_cost
       FROM page p JOIN service_fix_contents c ON c.cluster_id = p.cluster_id AND c.hash = p.fixes_hash ${joined}
      ORDER BY p.saved_cost DESC, p.saved_gb DESC, p.cluster_id, p.namespace COLLATE "C", p.name COLLATE "C"`;
  return { text, values };
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
