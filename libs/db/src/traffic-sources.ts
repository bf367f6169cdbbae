import { isSealedCurrent, openSealed, type SecretKeyring, sealWithKeyring } from '@zw/secrets';
import type { Db } from './db-client.js';
import type { ClusterTrafficSource, Prisma, PrismaClient } from './generated/prisma/client.js';
import type { ReadDb } from './read-db.js';
import { refreshLatestRollup } from './read-model/rollup.js';

/**
 * Measured traffic in Postgres: a cluster's traffic source (`traffic_sources`) and each Service's newest
 * measurement (`cluster_services.measured_*`), which the read model prefers to the annotation and the
 * per-endpoint default (EFFECTIVE_TRAFFIC_SQL).
 */

/** What a source's Prometheus Authorization header belongs to: bound to its sealed bytes as associated data. */
function authHeaderContext(clusterId: string): string {
  return `traffic-source.auth-header:${clusterId}`;
}

/** The cluster's traffic source's Authorization header at rest: sealed with the keyring (libs/secrets). */
export function sealAuthHeader(keyring: SecretKeyring, clusterId: string, header: string): Uint8Array<ArrayBuffer> {
  return sealWithKeyring(keyring, header, authHeaderContext(clusterId));
}

/** The header back; a SealedSecretError says why not (key gone or changed, tampered, another cluster's). */
export function openAuthHeader(keyring: SecretKeyring, clusterId: string, sealed: Uint8Array): string {
  return openSealed(keyring, sealed, authHeaderContext(clusterId));
}

/**
 * A stored header in the form sealed now (an older form, or a retired key, re-sealed with the current
 * key), or null when it already is in that form or does not open (then it stays as it is, and measuring
 * reports why it does not open).
 */
export function resealedAuthHeader(
  keyring: SecretKeyring,
  clusterId: string,
  sealed: Uint8Array,
): Uint8Array<ArrayBuffer> | null {
  if (isSealedCurrent(keyring, sealed)) return null;
  try {
    return sealAuthHeader(keyring, clusterId, openAuthHeader(keyring, clusterId, sealed));
  } catch {
    return null;
  }
}

export interface ServiceMeasurement {
  namespace: string;
  name: string;
  monthlyGb: number;
  /** Measured cross-zone fraction, null when the source gave no zones. */
  crossZone: number | null;
}

export interface MeasurementOutcome {
  query: string;
  series: number;
  unmatchedSeries: number;
  measuredAt: Date;
  /** `partial` when the source had data for only part of the window (`coverage` below 1). */
  status: 'ok' | 'partial';
  coverage: number | null;
  /** What the status means for these figures (null when `ok`). */
  note: string | null;
}

/**
 * Replaces the cluster's measurements by this answer's, in one transaction: Services the answer names
 * get its volume, every other Service of the cluster loses its old one (it falls back to the annotation
 * or the default, which its answer says). Then the newest roll-up is recomputed with the new volumes.
 * Returns how many Services of the cluster were measured.
 */
export async function storeMeasurements(
  db: PrismaClient,
  clusterId: string,
  measurements: readonly ServiceMeasurement[],
  outcome: MeasurementOutcome,
): Promise<number> {
  return db.$transaction(async (tx) => {
    // One statement, one write per row: the answer's Services get their volume, the cluster's other
    // Services that had one lose it. It returns the Services measured.
    const [{ matched }] = await tx.$queryRaw<{ matched: number }[]>`
      WITH m AS (
        SELECT * FROM unnest(${measurements.map((m) => m.namespace)}::text[], ${measurements.map((m) => m.name)}::text[],
                             ${measurements.map((m) => m.monthlyGb)}::float8[],
                             ${measurements.map((m) => m.crossZone)}::float8[]) AS m(namespace, name, gb, cross_zone)
      ), changed AS (
        UPDATE cluster_services s
           SET measured_traffic_gb = m.gb, measured_cross_zone = m.cross_zone,
               measured_at = CASE WHEN m.name IS NULL THEN NULL ELSE ${outcome.measuredAt}::timestamptz END
          FROM cluster_services t LEFT JOIN m ON m.namespace = t.namespace AND m.name = t.name
         WHERE t.id = s.id AND t.cluster_id = ${clusterId}::uuid AND (m.name IS NOT NULL OR t.measured_at IS NOT NULL)
        RETURNING m.name IS NOT NULL AS measured
      )
      SELECT count(*) FILTER (WHERE measured)::int AS matched FROM changed`;
    await tx.clusterTrafficSource.update({
      where: { clusterId },
      data: {
        status: outcome.status,
        lastError: outcome.note,
        coverage: outcome.coverage,
        lastAttemptAt: outcome.measuredAt,
        lastSuccessAt: outcome.measuredAt,
        consecutiveFailures: 0,
        lastQuery: outcome.query,
        seriesCount: outcome.series,
        servicesMeasured: matched,
        unmatchedSeries: outcome.unmatchedSeries + (measurements.length - matched),
      },
    });
    await refreshLatestRollup(tx, clusterId);
    return matched;
  });
}

/**
 * A failed measurement: the status and error on the source; the previous measurements stay (with their
 * age), and so does `last_query`, the query they came from.
 */
export async function recordTrafficFailure(
  db: Db,
  clusterId: string,
  failure: { status: string; error: string; series?: number; at: Date },
): Promise<void> {
  await db.clusterTrafficSource.updateMany({
    where: { clusterId },
    data: {
      status: failure.status,
      lastError: failure.error,
      lastAttemptAt: failure.at,
      consecutiveFailures: { increment: 1 },
      ...(failure.series !== undefined ? { seriesCount: failure.series } : {}),
    },
  });
}

/** Drops the cluster's measured volumes (its traffic source was removed) and recomputes the roll-up. */
export async function clearMeasurements(db: Db, clusterId: string): Promise<void> {
  await db.$executeRaw`
    UPDATE cluster_services SET measured_traffic_gb = NULL, measured_cross_zone = NULL, measured_at = NULL
     WHERE cluster_id = ${clusterId}::uuid AND measured_at IS NOT NULL`;
  await refreshLatestRollup(db, clusterId);
}

/** Which of these clusters have a traffic source configured. */
export async function clustersWithTrafficSource(db: ReadDb, clusterIds: readonly string[]): Promise<Set<string>> {
  const rows = await db.query<{ cluster_id: string }>(
    'SELECT cluster_id::text FROM traffic_sources WHERE cluster_id = ANY($1::uuid[])',
    [clusterIds],
  );
  return new Set(rows.map((row) => row.cluster_id));
}

/** The cluster's traffic source, or null when it has none. */
export async function trafficSourceOf(db: Db, clusterId: string): Promise<ClusterTrafficSource | null> {
  return db.clusterTrafficSource.findUnique({ where: { clusterId } });
}

/** How often a cluster's traffic is measured: what its job scheduler runs by. */
export interface TrafficSourceSchedule {
  clusterId: string;
  intervalSeconds: number;
}

/** Every traffic source's schedule, whatever its organization (the worker keeps one job scheduler each). */
export async function trafficSourceSchedules(db: Db): Promise<TrafficSourceSchedule[]> {
  return db.clusterTrafficSource.findMany({ select: { clusterId: true, intervalSeconds: true } });
}

/** The cluster's traffic source's schedule, or null when it has no source. */
export async function trafficSourceSchedule(db: Db, clusterId: string): Promise<TrafficSourceSchedule | null> {
  return db.clusterTrafficSource.findUnique({
    where: { clusterId },
    select: { clusterId: true, intervalSeconds: true },
  });
}

/** A traffic source's columns as the API sets them (the cluster is the key). */
export type TrafficSourceColumns = Omit<Prisma.ClusterTrafficSourceUncheckedCreateInput, 'clusterId'>;

/** Creates the cluster's traffic source or replaces its columns by these; the source as stored. */
export async function saveTrafficSource(
  db: Db,
  clusterId: string,
  columns: TrafficSourceColumns,
): Promise<ClusterTrafficSource> {
  return db.clusterTrafficSource.upsert({ where: { clusterId }, create: { clusterId, ...columns }, update: columns });
}

/** Removes the cluster's traffic source; false when it had none. */
export async function deleteTrafficSource(db: Db, clusterId: string): Promise<boolean> {
  const { count } = await db.clusterTrafficSource.deleteMany({ where: { clusterId } });
  return count > 0;
}
