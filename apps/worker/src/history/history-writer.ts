import {
  addClosedIntervalsToSavingsDays,
  analysisDocument,
  analysisDocumentOfJson,
  insertAnalysisDocumentSql,
  Prisma,
  refreshSavingsDays,
  type SavingsDaySpan,
  summaryRollupSql,
} from '@zw/db';
import type { AnalysisSettings } from '../cluster-overrides.js';
import { type IntervalRef, planIntervals } from './interval-plan.js';

/**
 * A stored interval with its start. service_intervals is partitioned by valid_from (weekly): a statement
 * that names each row by (id, valid_from), its primary key, is planned against the partitions holding
 * those rows only, not against every week kept.
 */
interface StoredInterval extends IntervalRef {
  validFrom: Date;
}

/** The starts of these intervals, for the partition key beside their ids (see StoredInterval). */
function startsOf(ids: readonly bigint[], intervals: ReadonlyMap<bigint, StoredInterval>): string[] {
  return ids.map((id) => intervals.get(id)!.validFrom.toISOString());
}
import { canonicalZones, type ServiceState, serviceKey } from './service-state.js';

type Tx = Prisma.TransactionClient;

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
  settings?: AnalysisSettings;
  /**
   * The cluster's blocking nodes as the fixes saw them (`{ nodeBlockers }`), as JSON text made in the
   * analysis thread, stored once per distinct content (analysis_documents). Each Service's fixes are on
   * its state (`ServiceState.fixes`).
   */
  recommendations?: string;
}

export interface SnapshotRecord {
  clusterId: string;
  snapshotId: string;
  capturedAt: Date;
  /** The analysis that produced the states (see analyzer.ts). */
  analyzer: string;
  services: ServiceState[];
  aggregates: SnapshotAggregates;
}

export interface RecordOutcome {
  intervalsOpened: number;
  intervalsClosed: number;
  /** False when the snapshot arrived after a later one and was inserted into the past. */
  inOrder: boolean;
  /** True when the snapshot repeated its predecessor's input and its states were reused, not recomputed. */
  reusedPrevious: boolean;
}

/**
 * Records one analysed snapshot in the history, exactly once: its aggregates row, the interval changes
 * it implies, and its status. Returns null, writing nothing, when the snapshot is no longer waiting
 * (another run recorded it, or it was marked failed). The caller holds the cluster's lock (one writer
 * per cluster) inside the transaction this runs in.
 */
export async function recordSnapshot(tx: Tx, record: SnapshotRecord): Promise<RecordOutcome | null> {
  const { clusterId, capturedAt: at } = record;
  const placed = await placeSnapshot(tx, record);
  if (!placed) return null;
  const { previous, next, observed, atPrevious } = placed;
  const atNext = next
    ? await intervalsCovering(tx, clusterId, next, [...observed.keys(), ...atPrevious.keys()])
    : new Map<string, StoredInterval>();
  const plan = planIntervals({ at, next, observed, atPrevious, atNext });
  const known = new Map([...atPrevious.values(), ...atNext.values()].map((interval) => [interval.id, interval]));

  const copies = plan.inserts.filter((insert) => insert.copyOf !== null).map((insert) => insert.copyOf!);
  if (copies.length > 0) {
    // Before the updates below change valid_to on the very rows copied.
    await tx.$executeRaw`
      INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                     hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints,
                                     ready_endpoints, traffic_annotation, traffic_gb, traffic_source,
                                     preview_state, preview_reason, preview_cross_zone, managed_by, honours_hints,
                                     data_path_reason, fixes_hash, fix_fraction)
      SELECT cluster_id, service_id, ${next}::timestamptz, valid_to, state_hash, routing, hint_state,
             hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints,
             ready_endpoints, traffic_annotation, traffic_gb, traffic_source,
             preview_state, preview_reason, preview_cross_zone, managed_by, honours_hints, data_path_reason,
             fixes_hash, fix_fraction
      FROM service_intervals
     WHERE id = ANY(${copies}::bigint[]) AND valid_from = ANY(${startsOf(copies, known)}::timestamptz[])`;
  }
  const changed: SavingsDaySpan[] = [];
  const closed: bigint[] = [];
  const fresh = plan.inserts.filter((insert) => insert.state !== null).map((insert) => insert.state!);
  const ends = { ids: plan.endAtSnapshot, starts: startsOf(plan.endAtSnapshot, known) };
  const { ended, inserted } = await closeAndOpen(tx, clusterId, at, next, ends, fresh);
  // An open interval closed now: its days are added to the savings roll-up. One that ended later (a
  // snapshot inserted into the past) loses its days after `at`, which its copy from `next` on takes back:
  // every day of it is summed again, not only those whose pieces changed, as a day row's head keeps the
  // bounds of the interval holding at its first instant.
  const oldEnds = new Map([...atPrevious.values()].map((ref) => [ref.id, ref.validTo]));
  for (const row of ended) {
    const oldEnd = oldEnds.get(row.id) ?? null;
    if (oldEnd) changed.push({ serviceId: row.serviceId, from: row.validFrom, to: oldEnd });
    else closed.push(row.id);
  }
  if (plan.startAtSnapshot.length > 0) {
    const extended = await tx.$queryRaw<{ service_id: bigint; valid_to: Date | null }[]>`
      UPDATE service_intervals SET valid_from = ${at}::timestamptz
       WHERE id = ANY(${plan.startAtSnapshot}::bigint[])
         AND valid_from = ANY(${startsOf(plan.startAtSnapshot, known)}::timestamptz[])
      RETURNING service_id, valid_to`;
    changed.push(...extended.map((row) => ({ serviceId: row.service_id, from: at, to: row.valid_to ?? next! })));
  }
  if (next) changed.push(...inserted.map((serviceId) => ({ serviceId, from: at, to: next })));
  await addClosedIntervalsToSavingsDays(tx, clusterId, closed);
  await refreshSavingsDays(tx, clusterId, changed);
  const nothingChanged = plan.endAtSnapshot.length === 0 && plan.inserts.length === 0;
  await finish(tx, record, nothingChanged && next === null ? previous : null);
  return {
    intervalsOpened: plan.inserts.length,
    intervalsClosed: plan.endAtSnapshot.length,
    inOrder: next === null,
    reusedPrevious: false,
  };
}

/**
 * In one round trip: locks the snapshot's row and, if it still waits to be recorded, finds where it goes
 * (the captured-at of the recorded snapshots just before and just after it) and what differs from the
 * previous one: the observed Services whose state is new or changed, and the intervals at `previous`
 * whose Service changed or vanished. Postgres compares the state hashes, so an unchanged 10,000-Service
 * snapshot moves a few hundred KiB of parameters to the database and nothing back. (A Service equal to
 * its previous state needs no change whatever comes after it, which is why dropping those is safe for
 * late snapshots too.)
 */
async function placeSnapshot(tx: Tx, record: SnapshotRecord) {
  const byKey = new Map(record.services.map((state) => [serviceKey(state.namespace, state.name), state]));
  const services = [...byKey.values()];
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
               WHERE cluster_id = s.cluster_id AND captured_at > s.captured_at) AS next
        FROM snapshots s WHERE s.id = ${record.snapshotId}::uuid
         FOR UPDATE OF s
    ), observed(key, state_hash) AS (
      SELECT * FROM unnest(${services.map((s) => serviceKey(s.namespace, s.name))}::text[],
                           ${services.map((s) => s.stateHash)}::bigint[])
    ), at_previous AS (
      SELECT i.id, i.state_hash, i.valid_from, i.valid_to, s.namespace || '/' || s.name AS key
        FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id, placement
       WHERE i.cluster_id = ${record.clusterId}::uuid AND i.valid_from <= placement.previous
         AND (i.valid_to IS NULL OR i.valid_to > placement.previous)
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
  const observed = new Map<string, ServiceState>();
  const atPrevious = new Map<string, StoredInterval>();
  for (const row of rows) {
    if (row.side === 'observed') observed.set(row.key, byKey.get(row.key)!);
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
  return { previous: position.since, next: position.valid_to, observed, atPrevious };
}

/** The intervals of these Services (by key) holding at instant `t`. */
async function intervalsCovering(
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

/**
 * In one statement (the cluster's lock is held meanwhile, so its round trips are what other snapshots of
 * the cluster wait for): ends the intervals `ends` (by id and start) at `at`, and opens new intervals from `at` to `next`
 * (open-ended when null) for `states`, registering Services never seen before and storing the fixes they
 * name that the cluster has not stored yet. A fix content stored already is not parsed again: its JSON is
 * cast only for the rows the NOT EXISTS lets through. Returns the ended intervals and the Services of the
 * new ones.
 *
 * The new rows of cluster_services and service_fix_contents are not visible to the rest of the statement,
 * hence the Services taken from both `registered` and the table; only this worker, under the cluster's
 * lock, inserts them, so no concurrent insert can fall between the two.
 */
async function closeAndOpen(
  tx: Tx,
  clusterId: string,
  at: Date,
  next: Date | null,
  ends: { ids: bigint[]; starts: string[] },
  states: ServiceState[],
): Promise<{ ended: { id: bigint; serviceId: bigint; validFrom: Date }[]; inserted: bigint[] }> {
  if (ends.ids.length === 0 && states.length === 0) return { ended: [], inserted: [] };
  const savings = states.map((s) => s.savings);
  const verdicts = states.map((s) => s.verdict);
  const contents = new Map(states.flatMap((s) => (s.fixes ? [[s.fixes.hash, s.fixes.json]] : [])));
  const rows = await tx.$queryRaw<{ id: bigint | null; service_id: bigint; valid_from: Date | null }[]>`
    WITH ended AS (
      UPDATE service_intervals SET valid_to = ${at}::timestamptz
       WHERE id = ANY(${ends.ids}::bigint[]) AND valid_from = ANY(${ends.starts}::timestamptz[])
      RETURNING id, service_id, valid_from
    ), t AS (
      SELECT * FROM unnest(${states.map((s) => s.namespace)}::text[], ${states.map((s) => s.name)}::text[],
                           ${states.map((s) => s.stateHash)}::bigint[],
                           ${states.map((s) => s.routing)}::text[],
                           ${states.map((s) => s.hintState)}::text[],
                           ${states.map((s) => s.hintReason)}::text[],
                           ${states.map((s) => JSON.stringify(canonicalZones(s.zones)))}::text[],
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
        AS t(namespace, name, state_hash, routing, hint_state, hint_reason, zones, without_hints, with_hints,
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
    ), inserted AS (
      INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                     hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints,
                                     ready_endpoints, traffic_annotation, traffic_gb, traffic_source,
                                     preview_state, preview_reason, preview_cross_zone, managed_by, honours_hints,
                                     data_path_reason, fixes_hash, fix_fraction)
      SELECT ${clusterId}::uuid, s.id, ${at}::timestamptz, ${next}::timestamptz, t.state_hash, t.routing::routing_mode,
             t.hint_state::hint_state, t.hint_reason, t.zones::jsonb, t.without_hints, t.with_hints,
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
 * The aggregates row with its monthly roll-up, the snapshot's status and the documents the row references
 * (a snapshot that changed nothing finds them stored already), in one statement. `sameRollupAs` names the
 * summary whose roll-up this one repeats (the previous snapshot's, when nothing changed since and this is
 * the newest): copying it saves summing every interval of the cluster again.
 */
async function finish(tx: Tx, record: SnapshotRecord, sameRollupAs: Date | null): Promise<void> {
  const { clusterId, capturedAt: at, aggregates: a } = record;
  const zoneStats = a.zoneStats === undefined ? null : analysisDocument(a.zoneStats);
  const serviceCidrs = a.serviceCidrs === undefined ? null : analysisDocument(a.serviceCidrs);
  const recommendations = a.recommendations === undefined ? null : analysisDocumentOfJson(a.recommendations);
  const documents = new Map(
    [zoneStats, serviceCidrs, recommendations].flatMap((d) => (d ? [[Buffer.from(d.hash).toString('hex'), d]] : [])),
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
                                    services_none, node_info_sufficient, node_info_reason, zones, services_with_drift,
                                    services_with_ignored_hints,
                                    cross_zone_without_hints, cross_zone_with_hints, zone_stats_hash,
                                    service_cidrs_hash, recommendations_hash, analyzer,
                                    kubernetes_version, kubernetes_version_source, data_plane, data_plane_source,
                                    ${Prisma.raw(ROLLUP_COLUMNS)})
    SELECT ${record.snapshotId}::uuid, ${clusterId}::uuid, ${at}::timestamptz, ${a.services}::int,
           ${a.servicesPopulated}::int, ${a.servicesRemoved}::int, ${a.servicesNone}::int, ${a.nodeInfoSufficient}::boolean,
           ${a.nodeInfoReason}::text, ${JSON.stringify(a.zones)}::jsonb, ${a.servicesWithDrift}::int,
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
 * after it: the analysis would give the same states, so nothing changes in the history and its summary repeats the
 * previous one (roll-up included, as in `finish`). One statement, under the cluster's lock.
 *
 * `not-a-repeat` when those conditions do not hold under the lock (the caller then analyses the snapshot);
 * `not-waiting` when it is no longer waiting to be recorded.
 */
export async function recordRepeat(
  tx: Tx,
  snapshotId: string,
  analyzer: string,
): Promise<RecordOutcome | 'not-a-repeat' | 'not-waiting'> {
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
  if (!row.recorded) return 'not-a-repeat';
  return { intervalsOpened: 0, intervalsClosed: 0, inOrder: true, reusedPrevious: true };
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
  node_info_reason, zones, services_with_drift, cross_zone_without_hints, cross_zone_with_hints, zone_stats_hash,
  service_cidrs_hash, recommendations_hash, analyzer, kubernetes_version,
  kubernetes_version_source, data_plane, data_plane_source, ${ROLLUP_COLUMNS}`;

function prefixed(alias: string, columns: string): string {
  return columns
    .split(',')
    .map((column) => `${alias}.${column.trim()}`)
    .join(', ');
}
