import type { Prisma } from '@zw/db';
import { type IntervalRef, planIntervals } from './interval-plan.js';
import { canonicalJson, type ServiceState, serviceKey } from './service-state.js';

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
  zones: unknown[];
  crossZoneWithoutHints: number;
  crossZoneWithHints: number;
}

export interface SnapshotRecord {
  clusterId: string;
  snapshotId: string;
  capturedAt: Date;
  services: ServiceState[];
  aggregates: SnapshotAggregates;
}

export interface RecordOutcome {
  intervalsOpened: number;
  intervalsClosed: number;
  /** False when the snapshot arrived after a later one and was inserted into the past. */
  inOrder: boolean;
}

/**
 * Writes one analysed snapshot into the history: its aggregates row and the interval changes it implies.
 * The caller holds the cluster's lock (one writer per cluster) inside the transaction this runs in.
 */
export async function recordSnapshot(tx: Tx, record: SnapshotRecord): Promise<RecordOutcome> {
  const { clusterId, capturedAt: at } = record;
  const { previous, next } = await neighbours(tx, clusterId, at);
  const observed = new Map(record.services.map((state) => [serviceKey(state.namespace, state.name), state]));
  const plan = planIntervals({
    at,
    next,
    observed,
    atPrevious: previous ? await intervalsCovering(tx, clusterId, previous) : new Map(),
    atNext: next ? await intervalsCovering(tx, clusterId, next) : new Map(),
  });

  const copies = plan.inserts.filter((insert) => insert.copyOf !== null).map((insert) => insert.copyOf!);
  if (copies.length > 0) {
    // Before the updates below change valid_to on the very rows copied.
    await tx.$executeRaw`
      INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                     hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints)
      SELECT cluster_id, service_id, ${next}::timestamptz, valid_to, state_hash, routing, hint_state,
             hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints
      FROM service_intervals WHERE id = ANY(${copies}::bigint[])`;
  }
  if (plan.endAtSnapshot.length > 0) {
    await tx.$executeRaw`
      UPDATE service_intervals SET valid_to = ${at}::timestamptz WHERE id = ANY(${plan.endAtSnapshot}::bigint[])`;
  }
  if (plan.startAtSnapshot.length > 0) {
    await tx.$executeRaw`
      UPDATE service_intervals SET valid_from = ${at}::timestamptz WHERE id = ANY(${plan.startAtSnapshot}::bigint[])`;
  }
  const fresh = plan.inserts.filter((insert) => insert.state !== null);
  if (fresh.length > 0) {
    const ids = await serviceIds(
      tx,
      clusterId,
      fresh.map((insert) => insert.state!),
    );
    const states = fresh.map((insert) => insert.state!);
    await tx.$executeRaw`
      INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                     hint_reason, zones, cross_zone_without_hints, cross_zone_with_hints)
      SELECT ${clusterId}::uuid, service_id, ${at}::timestamptz, ${next}::timestamptz, state_hash,
             routing::routing_mode, hint_state::hint_state, hint_reason, zones::jsonb, without_hints, with_hints
      FROM unnest(${states.map((s) => ids.get(serviceKey(s.namespace, s.name))!)}::bigint[],
                  ${states.map((s) => s.stateHash)}::bigint[],
                  ${states.map((s) => s.routing)}::text[],
                  ${states.map((s) => s.hintState)}::text[],
                  ${states.map((s) => s.hintReason)}::text[],
                  ${states.map((s) => canonicalJson(s.zones))}::text[],
                  ${states.map((s) => s.crossZoneWithoutHints)}::float8[],
                  ${states.map((s) => s.crossZoneWithHints)}::float8[])
        AS t(service_id, state_hash, routing, hint_state, hint_reason, zones, without_hints, with_hints)`;
  }
  await tx.snapshotSummary.create({
    data: {
      snapshotId: record.snapshotId,
      clusterId,
      capturedAt: at,
      ...record.aggregates,
      zones: record.aggregates.zones as Prisma.InputJsonValue,
    },
  });
  return { intervalsOpened: plan.inserts.length, intervalsClosed: plan.endAtSnapshot.length, inOrder: next === null };
}

/** Captured-at of the recorded snapshots just before and just after `at`. */
async function neighbours(tx: Tx, clusterId: string, at: Date): Promise<{ previous: Date | null; next: Date | null }> {
  const [row] = await tx.$queryRaw<{ previous: Date | null; next: Date | null }[]>`
    SELECT (SELECT max(captured_at) FROM snapshot_summaries
             WHERE cluster_id = ${clusterId}::uuid AND captured_at < ${at}::timestamptz) AS previous,
           (SELECT min(captured_at) FROM snapshot_summaries
             WHERE cluster_id = ${clusterId}::uuid AND captured_at > ${at}::timestamptz) AS next`;
  return row;
}

/** Every interval of the cluster holding at instant `t`, by Service. */
async function intervalsCovering(tx: Tx, clusterId: string, t: Date): Promise<Map<string, IntervalRef>> {
  const rows = await tx.$queryRaw<
    { id: bigint; state_hash: bigint; valid_to: Date | null; namespace: string; name: string }[]
  >`
    SELECT i.id, i.state_hash, i.valid_to, s.namespace, s.name
    FROM service_intervals i JOIN cluster_services s ON s.id = i.service_id
    WHERE i.cluster_id = ${clusterId}::uuid AND i.valid_from <= ${t}::timestamptz
      AND (i.valid_to IS NULL OR i.valid_to > ${t}::timestamptz)`;
  return new Map(
    rows.map((row) => [
      serviceKey(row.namespace, row.name),
      { id: row.id, key: serviceKey(row.namespace, row.name), stateHash: row.state_hash, validTo: row.valid_to },
    ]),
  );
}

/** Ids of the given Services in the cluster, creating rows for the ones never seen before. */
async function serviceIds(tx: Tx, clusterId: string, services: ServiceState[]): Promise<Map<string, bigint>> {
  const rows = await tx.$queryRaw<{ id: bigint; namespace: string; name: string }[]>`
    WITH wanted(namespace, name) AS (
      SELECT * FROM unnest(${services.map((s) => s.namespace)}::text[], ${services.map((s) => s.name)}::text[])
    ), created AS (
      INSERT INTO cluster_services (cluster_id, namespace, name)
      SELECT ${clusterId}::uuid, namespace, name FROM wanted
      ON CONFLICT (cluster_id, namespace, name) DO NOTHING
      RETURNING id, namespace, name
    )
    SELECT id, namespace, name FROM created
    UNION ALL
    SELECT s.id, s.namespace, s.name FROM cluster_services s JOIN wanted w USING (namespace, name)
    WHERE s.cluster_id = ${clusterId}::uuid`;
  return new Map(rows.map((row) => [serviceKey(row.namespace, row.name), row.id]));
}
