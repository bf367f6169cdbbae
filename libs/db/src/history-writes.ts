import { analysisDocument, analysisDocumentOfJson, insertAnalysisDocumentSql } from './analysis-documents.js';
import { type HintState, Prisma, type RoutingMode } from './generated/prisma/client.js';
import { summaryRollupSql } from './read-model/rollup.js';
import type { SqlClient } from './sql-client.js';

/*
 * The history's writes, one statement each: what the worker's history writer (apps/worker/src/history)
 * runs for one snapshot, in one transaction holding the cluster's lock (lockCluster). That lock is held
 * for every round trip here, so each function is one statement and the writer calls each at most once
 * per snapshot.
 */
type Tx = SqlClient;

/**
 * A stored interval with its start. service_intervals is partitioned by valid_from (weekly): a statement
 * that names each row by (id, valid_from), its primary key, is planned against the partitions holding
 * those rows only, not against every week kept.
 */
export interface StoredInterval {
  id: bigint;
  /** The Service's `namespace/name`. */
  key: string;
  stateHash: bigint;
  validFrom: Date;
  validTo: Date | null;
}

/**
 * A Service's recommended fixes as stored: their JSON once per distinct content (service_fix_contents,
 * keyed by `hash`), and on the Service's interval the drop of the cross-zone fraction of the best fix,
 * which the fix ranking orders by (times the Service's traffic).
 */
export interface ServiceFixes {
  /** The first 16 bytes of SHA-256 over `json`, in hex. */
  hash: string;
  json: string;
  fraction: number;
}

/**
 * The inputs of the savings model a Service's interval keeps, so that savings over a time range stay one
 * SQL query: its ready endpoints and traffic annotation (its monthly traffic follows from them), and, for
 * a Service without topology routing, what enabling `topology-mode: Auto` would give.
 */
export interface ServiceSavingsState {
  readyEndpoints: number;
  /** The `zonewise.io/monthly-traffic-gb` annotation as written, null when absent. */
  trafficAnnotation: string | null;
  /** Core's monthlyTrafficGb without an API value (derived from the two fields above: not hashed). */
  trafficGb: number;
  trafficSource: 'annotation' | 'default-per-endpoint';
  previewState: 'populated' | 'removed' | null;
  previewReason: string | null;
  previewCrossZone: number | null;
}

/** The analysis' `managedBy` and `dataPath` of a Service. */
export interface ServiceVerdict {
  managedBy: string;
  honoursHints: boolean;
  dataPathReason: string | null;
}

/** The state a new interval records (the worker's ServiceState is one). */
export interface IntervalState {
  namespace: string;
  name: string;
  stateHash: bigint;
  routing: RoutingMode;
  hintState: HintState;
  hintReason: string | null;
  /** Per-zone allocations, stored as JSON as given: the caller orders them so equal ones print the same. */
  zones: unknown;
  crossZoneWithoutHints: number | null;
  crossZoneWithHints: number | null;
  verdict?: ServiceVerdict;
  savings?: ServiceSavingsState;
  fixes?: ServiceFixes | null;
}

/** Cluster-wide aggregates of one snapshot (one small row per snapshot). */
export interface SnapshotAggregates {
  services: number;
  servicesPopulated: number;
  servicesRemoved: number;
  servicesNone: number;
  nodeInfoSufficient: boolean;
  nodeInfoReason: string | null;
  servicesWithDrift: number;
  /** Services whose slices carry hints the data path ignores (optional for older callers). */
  servicesWithIgnoredHints?: number;
  zones: unknown[];
  crossZoneWithoutHints: number;
  crossZoneWithHints: number;
  /** Per-zone statistics (stored once per distinct content in analysis_documents). */
  zoneStats?: unknown;
  /** The analysis' `serviceCIDRs` (stored once per distinct content in analysis_documents). */
  serviceCidrs?: unknown;
  /** The Kubernetes version and data plane the analysis used, and where each came from. */
  settings?: {
    kubernetesVersion: string | null;
    kubernetesVersionSource: string;
    dataPlane: string | null;
    dataPlaneSource: string;
  };
  /**
   * The cluster's blocking nodes as the fixes saw them (`{ nodeBlockers }`), as JSON text made in the
   * analysis thread, stored once per distinct content (analysis_documents). Each Service's fixes are on
   * its interval (`IntervalState.fixes`).
   */
  recommendations?: string;
}

/** The summary of one analysed snapshot. */
export interface SnapshotSummaryRecord {
  clusterId: string;
  snapshotId: string;
  capturedAt: Date;
  /** The analysis that produced it (the worker's analyzer id). */
  analyzer: string;
  aggregates: SnapshotAggregates;
}

/** Where a snapshot goes in its cluster's history and what differs from the snapshot before it. */
export interface SnapshotPlacement {
  /** Captured-at of the latest recorded snapshot before it; null when there is none. */
  previous: Date | null;
  /** Captured-at of the earliest recorded snapshot after it; null when it is the newest. */
  next: Date | null;
  /** The keys of the observed Services whose state is new or differs from their interval at `previous`. */
  changed: string[];
  /**
   * The intervals at `previous` whose Service changed or was not observed, by key. Without a previous
   * snapshot, those holding just before this one (of snapshots retention pruned, their intervals kept).
   */
  atPrevious: Map<string, StoredInterval>;
}

/**
 * In one round trip: locks the snapshot's row and, if it still waits to be recorded, finds where it goes
 * (the captured-at of the recorded snapshots just before and just after it) and what differs from the
 * previous one: the observed Services (`keys`, one state hash each, no key twice) whose state is new or
 * changed, and the intervals at `previous` whose Service changed or vanished. Postgres compares the state
 * hashes, so an unchanged 10,000-Service snapshot moves a few hundred KiB of parameters to the database
 * and nothing back. Null, when the snapshot is no longer waiting (recorded by another run, or failed).
 */
export async function placeSnapshot(
  tx: Tx,
  snapshot: { snapshotId: string; clusterId: string; keys: string[]; stateHashes: bigint[] },
): Promise<SnapshotPlacement | null> {
  const rows = await tx.$queryRaw<
    {
      side: 'position' | 'previous' | 'observed';
      id: bigint | null;
      state_hash: bigint | null;
      valid_to: Date | null;
      key: string;
      /** The position row: the previous snapshot's captured-at; a previous row: its interval's valid_from. */
      since: Date | null;
    }[]
  >`
    WITH placement AS (
      SELECT s.status::text AS status,
             (SELECT max(captured_at) FROM snapshot_summaries
               WHERE cluster_id = s.cluster_id AND captured_at < s.captured_at) AS previous,
             (SELECT min(captured_at) FROM snapshot_summaries
               WHERE cluster_id = s.cluster_id AND captured_at > s.captured_at) AS next,
             s.captured_at
        FROM snapshots s WHERE s.id = ${snapshot.snapshotId}::uuid
         FOR UPDATE OF s
    ), follows AS (
      -- The instant whose states this snapshot follows: the previous snapshot's; without one, the
      -- instant just before its own, where intervals of snapshots retention pruned may still hold.
      SELECT COALESCE(previous, captured_at - interval '1 millisecond') AS t FROM placement
    ), observed(key, state_hash) AS (
      SELECT * FROM unnest(${snapshot.keys}::text[], ${snapshot.stateHashes}::bigint[])
    ), at_previous AS (
      SELECT i.id, i.state_hash, i.valid_from, i.valid_to, s.namespace || '/' || s.name AS key
        FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id, follows
       WHERE i.cluster_id = ${snapshot.clusterId}::uuid AND i.valid_from <= follows.t
         AND (i.valid_to IS NULL OR i.valid_to > follows.t)
    )
    SELECT 'position' AS side, NULL::bigint AS id, NULL::bigint AS state_hash, next AS valid_to, status AS key,
           previous AS since
      FROM placement
    UNION ALL
    SELECT 'previous', p.id, p.state_hash, p.valid_to, p.key, p.valid_from
      FROM at_previous p LEFT JOIN observed o USING (key)
     WHERE o.state_hash IS DISTINCT FROM p.state_hash
    UNION ALL
    SELECT 'observed', NULL, o.state_hash, NULL, o.key, NULL
      FROM observed o LEFT JOIN at_previous p USING (key)
     WHERE p.state_hash IS DISTINCT FROM o.state_hash`;
  const position = rows.find((row) => row.side === 'position');
  if (position?.key !== 'queued' && position?.key !== 'processing') return null;
  const changed: string[] = [];
  const atPrevious = new Map<string, StoredInterval>();
  for (const row of rows) {
    if (row.side === 'observed') changed.push(row.key);
    if (row.side === 'previous') {
      atPrevious.set(row.key, {
        id: row.id!,
        key: row.key,
        stateHash: row.state_hash!,
        validFrom: row.since!,
        validTo: row.valid_to,
      });
    }
  }
  return { previous: position.since, next: position.valid_to, changed, atPrevious };
}

/** The intervals of these Services (by key) holding at instant `t`. No round trip when `keys` is empty. */
export async function intervalsCovering(
  tx: Tx,
  clusterId: string,
  t: Date,
  keys: string[],
): Promise<Map<string, StoredInterval>> {
  if (keys.length === 0) return new Map();
  const rows = await tx.$queryRaw<
    { id: bigint; state_hash: bigint; valid_from: Date; valid_to: Date | null; key: string }[]
  >`
    SELECT i.id, i.state_hash, i.valid_from, i.valid_to, s.namespace || '/' || s.name AS key
      FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id
     WHERE i.cluster_id = ${clusterId}::uuid AND i.valid_from <= ${t}::timestamptz
       AND (i.valid_to IS NULL OR i.valid_to > ${t}::timestamptz)
       AND s.namespace || '/' || s.name = ANY(${keys}::text[])`;
  return new Map(
    rows.map((row) => [
      row.key,
      { id: row.id, key: row.key, stateHash: row.state_hash, validFrom: row.valid_from, validTo: row.valid_to },
    ]),
  );
}

/** The ids of these intervals and their starts, the partition key beside them (see StoredInterval). */
function keysOf(intervals: readonly StoredInterval[]): { ids: bigint[]; starts: string[] } {
  return { ids: intervals.map((i) => i.id), starts: intervals.map((i) => i.validFrom.toISOString()) };
}

/**
 * New intervals from `from` on with the states and ends of these: the tails kept when an interval is split
 * around a snapshot inserted into the past. Run it before their ends change (closeAndOpenIntervals). No
 * round trip when there are none.
 */
export async function copyIntervalTails(tx: Tx, from: Date, intervals: readonly StoredInterval[]): Promise<void> {
  if (intervals.length === 0) return;
  const { ids, starts } = keysOf(intervals);
  await tx.$executeRaw`
    INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                   hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints,
                                   ready_endpoints, traffic_annotation, traffic_gb, traffic_source,
                                   preview_state, preview_reason, preview_cross_zone, managed_by, honours_hints,
                                   data_path_reason, fixes_hash, fix_fraction, zones_hash)
    SELECT cluster_id, service_id, ${from}::timestamptz, valid_to, state_hash, routing, hint_state,
           hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints,
           ready_endpoints, traffic_annotation, traffic_gb, traffic_source,
           preview_state, preview_reason, preview_cross_zone, managed_by, honours_hints, data_path_reason,
           fixes_hash, fix_fraction, zones_hash
      FROM service_intervals
     WHERE id = ANY(${ids}::bigint[]) AND valid_from = ANY(${starts}::timestamptz[])`;
}

/** What closeAndOpenIntervals did: the intervals it ended (with their Service and start), the Services it opened. */
export interface ClosedAndOpened {
  ended: { id: bigint; serviceId: bigint; validFrom: Date }[];
  inserted: bigint[];
}

/**
 * In one statement (the cluster's lock is held meanwhile, so its round trips are what other snapshots of
 * the cluster wait for): ends the intervals `ends` at `at`, and opens new intervals from `at` to `next`
 * (open-ended when null) for `states`, registering Services never seen before and storing the fixes and
 * zones they name that the cluster has not stored yet. A fix or zones content stored already is not parsed
 * again: its JSON is cast only for the rows the NOT EXISTS lets through. No round trip when there is nothing
 * to do.
 *
 * The new rows of cluster_services, service_fix_contents and service_zone_contents are not visible to the rest of the statement,
 * hence the Services taken from both `registered` and the table; only the writer holding the cluster's
 * lock inserts them, so no concurrent insert can fall between the two.
 */
export async function closeAndOpenIntervals(
  tx: Tx,
  clusterId: string,
  at: Date,
  next: Date | null,
  ends: readonly StoredInterval[],
  states: readonly IntervalState[],
): Promise<ClosedAndOpened> {
  if (ends.length === 0 && states.length === 0) return { ended: [], inserted: [] };
  const ended = keysOf(ends);
  const savings = states.map((s) => s.savings);
  const verdicts = states.map((s) => s.verdict);
  const contents = new Map(states.flatMap((s) => (s.fixes ? [[s.fixes.hash, s.fixes.json]] : [])));
  const rows = await tx.$queryRaw<{ id: bigint | null; service_id: bigint; valid_from: Date | null }[]>`
    WITH ended AS (
      UPDATE service_intervals SET valid_to = ${at}::timestamptz
       WHERE id = ANY(${ended.ids}::bigint[]) AND valid_from = ANY(${ended.starts}::timestamptz[])
      RETURNING id, service_id, valid_from
    ), t AS (
      -- Each Service's zones are stored once per distinct content (service_zone_contents) under the first
      -- 16 bytes of SHA-256 over their JSON as given (the caller orders it so equal ones print the same),
      -- and named by the interval, whose own zones column stays null.
      SELECT u.*, substring(sha256(convert_to(u.zones, 'UTF8')) FROM 1 FOR 16) AS zones_hash
        FROM unnest(${states.map((s) => s.namespace)}::text[], ${states.map((s) => s.name)}::text[],
                           ${states.map((s) => s.stateHash)}::bigint[],
                           ${states.map((s) => s.routing)}::text[],
                           ${states.map((s) => s.hintState)}::text[],
                           ${states.map((s) => s.hintReason)}::text[],
                           ${states.map((s) => JSON.stringify(s.zones))}::text[],
                           ${states.map((s) => s.crossZoneWithoutHints)}::float8[],
                           ${states.map((s) => s.crossZoneWithHints)}::float8[],
                           ${savings.map((s) => s?.readyEndpoints ?? 0)}::int[],
                           ${savings.map((s) => s?.trafficAnnotation ?? null)}::text[],
                           ${savings.map((s) => s?.trafficGb ?? 0)}::float8[],
                           ${savings.map((s) => s?.trafficSource ?? null)}::text[],
                           ${savings.map((s) => s?.previewState ?? null)}::text[],
                           ${savings.map((s) => s?.previewReason ?? null)}::text[],
                           ${savings.map((s) => s?.previewCrossZone ?? null)}::float8[],
                           ${verdicts.map((v) => v?.managedBy ?? null)}::text[],
                           ${verdicts.map((v) => v?.honoursHints ?? null)}::boolean[],
                           ${verdicts.map((v) => v?.dataPathReason ?? null)}::text[],
                           ${states.map((s) => s.fixes?.hash ?? null)}::text[],
                           ${states.map((s) => s.fixes?.fraction ?? null)}::float8[])
        AS u(namespace, name, state_hash, routing, hint_state, hint_reason, zones, without_hints, with_hints,
             ready_endpoints, traffic_annotation, traffic_gb, traffic_source, preview_state, preview_reason,
             preview_cross_zone, managed_by, honours_hints, data_path_reason, fixes_hash, fix_fraction)
    ), registered AS (
      INSERT INTO cluster_services (cluster_id, namespace, name)
      SELECT ${clusterId}::uuid, namespace, name FROM t
      ON CONFLICT (cluster_id, namespace, name) DO NOTHING
      RETURNING id, namespace, name
    ), services AS (
      SELECT id, namespace, name FROM registered
      UNION ALL
      SELECT s.id, s.namespace, s.name FROM t
        JOIN cluster_services s ON s.cluster_id = ${clusterId}::uuid AND s.namespace = t.namespace AND s.name = t.name
    ), fix_contents AS (
      INSERT INTO service_fix_contents (cluster_id, hash, fixes)
      SELECT ${clusterId}::uuid, decode(c.hash, 'hex'), c.json::jsonb
        FROM unnest(${[...contents.keys()]}::text[], ${[...contents.values()]}::text[]) AS c(hash, json)
       WHERE NOT EXISTS (SELECT 1 FROM service_fix_contents f
                          WHERE f.cluster_id = ${clusterId}::uuid AND f.hash = decode(c.hash, 'hex'))
      ON CONFLICT (cluster_id, hash) DO NOTHING
    ), zone_contents AS (
      INSERT INTO service_zone_contents (cluster_id, hash, zones)
      SELECT DISTINCT ON (t.zones_hash) ${clusterId}::uuid, t.zones_hash, t.zones::jsonb FROM t
       WHERE NOT EXISTS (SELECT 1 FROM service_zone_contents z
                          WHERE z.cluster_id = ${clusterId}::uuid AND z.hash = t.zones_hash)
      ON CONFLICT (cluster_id, hash) DO NOTHING
    ), inserted AS (
      INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                     hint_reason, zones_hash, cross_zone_without_hints, cross_zone_with_hints,
                                     ready_endpoints, traffic_annotation, traffic_gb, traffic_source,
                                     preview_state, preview_reason, preview_cross_zone, managed_by, honours_hints,
                                     data_path_reason, fixes_hash, fix_fraction)
      SELECT ${clusterId}::uuid, s.id, ${at}::timestamptz, ${next}::timestamptz, t.state_hash, t.routing::routing_mode,
             t.hint_state::hint_state, t.hint_reason, t.zones_hash, t.without_hints, t.with_hints,
             t.ready_endpoints, t.traffic_annotation, t.traffic_gb, t.traffic_source,
             t.preview_state::hint_state, t.preview_reason, t.preview_cross_zone, t.managed_by, t.honours_hints,
             t.data_path_reason, decode(t.fixes_hash, 'hex'), t.fix_fraction
        FROM t JOIN services s ON s.namespace = t.namespace AND s.name = t.name
      RETURNING service_id
    )
    SELECT id, service_id, valid_from FROM ended
    UNION ALL
    SELECT NULL, service_id, NULL FROM inserted`;
  return {
    ended: rows
      .filter((row) => row.id !== null)
      .map((row) => ({ id: row.id!, serviceId: row.service_id, validFrom: row.valid_from! })),
    inserted: rows.filter((row) => row.id === null).map((row) => row.service_id),
  };
}

/**
 * Moves the starts of these intervals back to `at` (a later snapshot's state that this one, inserted
 * before it, shares); returns their Services and ends. No round trip when there are none.
 */
export async function startIntervalsAt(
  tx: Tx,
  at: Date,
  intervals: readonly StoredInterval[],
): Promise<{ serviceId: bigint; validTo: Date | null }[]> {
  if (intervals.length === 0) return [];
  const { ids, starts } = keysOf(intervals);
  const rows = await tx.$queryRaw<{ service_id: bigint; valid_to: Date | null }[]>`
    UPDATE service_intervals SET valid_from = ${at}::timestamptz
     WHERE id = ANY(${ids}::bigint[]) AND valid_from = ANY(${starts}::timestamptz[])
    RETURNING service_id, valid_to`;
  return rows.map((row) => ({ serviceId: row.service_id, validTo: row.valid_to }));
}

/**
 * The aggregates row with its monthly roll-up, the snapshot's status and the documents the row references
 * (a snapshot that changed nothing finds them stored already), in one statement. `sameRollupAs` names the
 * summary whose roll-up this one repeats (the previous snapshot's, when nothing changed since and this is
 * the newest): copying it saves summing every interval of the cluster again.
 */
export async function recordSummary(tx: Tx, record: SnapshotSummaryRecord, sameRollupAs: Date | null): Promise<void> {
  const { clusterId, capturedAt: at, aggregates: a } = record;
  // The nodeInfo zones as a document too: a cluster's zones change only when its nodes do.
  const zones = analysisDocument(a.zones);
  const zoneStats = a.zoneStats === undefined ? null : analysisDocument(a.zoneStats);
  const serviceCidrs = a.serviceCidrs === undefined ? null : analysisDocument(a.serviceCidrs);
  const recommendations = a.recommendations === undefined ? null : analysisDocumentOfJson(a.recommendations);
  const documents = new Map(
    [zones, zoneStats, serviceCidrs, recommendations].flatMap((d) =>
      d ? [[Buffer.from(d.hash).toString('hex'), d]] : [],
    ),
  );
  const storeDocuments = [...documents.values()].map(
    (document, n) =>
      Prisma.sql`, ${Prisma.raw(`document_${n}`)} AS (${insertAnalysisDocumentSql(clusterId, document)})`,
  );
  const rollup = sameRollupAs
    ? Prisma.sql`SELECT ${Prisma.raw(ROLLUP_COLUMNS)} FROM snapshot_summaries
                  WHERE cluster_id = ${clusterId}::uuid AND captured_at = ${sameRollupAs}::timestamptz`
    : summaryRollupSql(clusterId, at);
  await tx.$executeRaw`
    WITH done AS (
      UPDATE snapshots SET status = 'processed', error = NULL, processed_at = now(), status_changed_at = now()
       WHERE id = ${record.snapshotId}::uuid
    )${storeDocuments.length > 0 ? Prisma.join(storeDocuments, '') : Prisma.empty}
    INSERT INTO snapshot_summaries (snapshot_id, cluster_id, captured_at, services, services_populated, services_removed,
                                    services_none, node_info_sufficient, node_info_reason, zones_hash, services_with_drift,
                                    services_with_ignored_hints,
                                    cross_zone_without_hints, cross_zone_with_hints, zone_stats_hash,
                                    service_cidrs_hash, recommendations_hash, analyzer,
                                    kubernetes_version, kubernetes_version_source, data_plane, data_plane_source,
                                    ${Prisma.raw(ROLLUP_COLUMNS)})
    SELECT ${record.snapshotId}::uuid, ${clusterId}::uuid, ${at}::timestamptz, ${a.services}::int,
           ${a.servicesPopulated}::int, ${a.servicesRemoved}::int, ${a.servicesNone}::int, ${a.nodeInfoSufficient}::boolean,
           ${a.nodeInfoReason}::text, ${zones.hash}::bytea, ${a.servicesWithDrift}::int,
           ${a.servicesWithIgnoredHints ?? null}::int,
           ${a.crossZoneWithoutHints}::float8, ${a.crossZoneWithHints}::float8, ${zoneStats?.hash ?? null}::bytea,
           ${serviceCidrs?.hash ?? null}::bytea, ${recommendations?.hash ?? null}::bytea, ${record.analyzer}::text,
           ${a.settings?.kubernetesVersion ?? null}::text, ${a.settings?.kubernetesVersionSource ?? null}::text,
           ${a.settings?.dataPlane ?? null}::text, ${a.settings?.dataPlaneSource ?? null}::text,
           ${Prisma.raw(prefixed('r', ROLLUP_COLUMNS))}
      FROM (SELECT 1) AS one LEFT JOIN (${rollup}) AS r ON true`;
}

const ROLLUP_COLUMNS =
  'traffic_gb, cross_zone_gb_without_hints, cross_zone_gb_with_hints, missed_gb, opportunities, services_estimated_traffic, ' +
  'services_at_stake, at_stake_traffic_gb, at_stake_gb, services_at_stake_estimated';

/**
 * The fast path for a snapshot whose input (snapshots.input_hash) equals that of the latest recorded
 * snapshot before it, which the same analyzer recorded with the cluster's overrides as they are now (an
 * override set, changed or cleared since makes the input different), when no recorded snapshot comes
 * after it: the analysis would give the same states, so nothing changes in the history and its summary
 * repeats the previous one (roll-up included, as in `recordSummary`). One statement, under the cluster's lock.
 *
 * `not-a-repeat` when those conditions do not hold under the lock (the caller then analyses the snapshot);
 * `not-waiting` when it is no longer waiting to be recorded.
 */
export async function recordRepeatedSummary(
  tx: Tx,
  snapshotId: string,
  analyzer: string,
): Promise<'recorded' | 'not-a-repeat' | 'not-waiting'> {
  const [row] = await tx.$queryRaw<{ waiting: boolean; recorded: boolean }[]>`
    WITH me AS (
      SELECT s.id, s.cluster_id, s.captured_at, s.input_hash FROM snapshots s
       WHERE s.id = ${snapshotId}::uuid AND s.status IN ('queued', 'processing')
         FOR UPDATE
    ), previous AS (
      SELECT m.* FROM snapshot_summaries m JOIN me ON m.cluster_id = me.cluster_id AND m.captured_at < me.captured_at
       ORDER BY m.captured_at DESC LIMIT 1
    ), repeat AS (
      SELECT me.id, me.captured_at FROM me JOIN previous p ON true JOIN snapshots ps ON ps.id = p.snapshot_id
        JOIN clusters c ON c.id = me.cluster_id
       WHERE ps.input_hash = me.input_hash AND p.analyzer = ${analyzer}
         AND ${sameOverride('kubernetes_version')} AND ${sameOverride('data_plane')}
         AND NOT EXISTS (SELECT 1 FROM snapshot_summaries n
                          WHERE n.cluster_id = me.cluster_id AND n.captured_at > me.captured_at)
    ), done AS (
      UPDATE snapshots s SET status = 'processed', error = NULL, processed_at = now(), status_changed_at = now()
        FROM repeat WHERE s.id = repeat.id
    ), inserted AS (
      INSERT INTO snapshot_summaries (snapshot_id, cluster_id, captured_at, ${Prisma.raw(REPEATED_SUMMARY_COLUMNS)})
      SELECT repeat.id, p.cluster_id, repeat.captured_at, ${Prisma.raw(prefixed('p', REPEATED_SUMMARY_COLUMNS))}
        FROM repeat, previous p
      RETURNING snapshot_id
    )
    SELECT EXISTS (SELECT 1 FROM me) AS waiting, EXISTS (SELECT 1 FROM inserted) AS recorded`;
  if (!row.waiting) return 'not-waiting';
  return row.recorded ? 'recorded' : 'not-a-repeat';
}

/**
 * Whether the previous summary (p) was analysed with the cluster's (c) override of this setting as it is
 * now: with that very override, or with none when there is none.
 */
function sameOverride(column: 'kubernetes_version' | 'data_plane'): Prisma.Sql {
  const override = Prisma.raw(`c.${column}`);
  const used = Prisma.raw(`p.${column}`);
  const source = Prisma.raw(`p.${column}_source`);
  return Prisma.sql`(CASE WHEN ${override} IS NULL THEN ${source} IS DISTINCT FROM 'override'
                         ELSE ${source} = 'override' AND ${used} = ${override} END)`;
}

/** Everything a summary holds about its snapshot's analysis (all but its keys). */
const REPEATED_SUMMARY_COLUMNS = `services, services_populated, services_removed, services_none, node_info_sufficient,
  services_with_ignored_hints,
  node_info_reason, zones, zones_hash, services_with_drift, cross_zone_without_hints, cross_zone_with_hints, zone_stats_hash,
  service_cidrs_hash, recommendations_hash, analyzer, kubernetes_version,
  kubernetes_version_source, data_plane, data_plane_source, ${ROLLUP_COLUMNS}`;

function prefixed(alias: string, columns: string): string {
  return columns
    .split(',')
    .map((column) => `${alias}.${column.trim()}`)
    .join(', ');
}
