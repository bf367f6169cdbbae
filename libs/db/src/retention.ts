import type { Db } from './db-client.js';
import { Prisma } from './generated/prisma/client.js';
import { pruneAnalysisDocuments } from './analysis-documents.js';
import type { ClusterCutoff } from './history-partitions.js';
import { refreshSavingsDays } from './read-model/savings-days.js';
import { pruneServiceContents } from './service-contents.js';

/**
 * Retention's statements. Periods are counted from captured-at time, as history is: a snapshot pushed
 * late, or re-driven, is kept as long as one pushed on time. An organization's own period
 * (organizations.*_retention_days) beats the deployment's. Snapshots still waiting are never touched.
 */

export interface RetentionPeriod {
  now: Date;
  /** The deployment's period in days, for organizations without one of their own. */
  defaultDays: number;
  /** Rows per DELETE statement. */
  batch: number;
}

/**
 * Raw payloads of processed or failed snapshots captured before their organization's payload period,
 * by the payload's own captured_at (its partition key: the weeks after `latestCutoff`, the latest of
 * every cluster's cutoff, are not scanned).
 */
export async function pruneSnapshotPayloads(db: Db, period: RetentionPeriod, latestCutoff: Date): Promise<number> {
  return inBatches(
    period.batch,
    () => db.$executeRaw`
    DELETE FROM snapshot_payloads WHERE (snapshot_id, captured_at) IN (
      SELECT p.snapshot_id, p.captured_at FROM snapshot_payloads p
        JOIN snapshots s ON s.id = p.snapshot_id AND s.captured_at = p.captured_at
        JOIN clusters c ON c.id = s.cluster_id JOIN organizations o ON o.id = c.organization_id
       WHERE s.status IN ('processed', 'failed') AND p.captured_at < ${latestCutoff}::timestamptz
         AND p.captured_at < ${period.now}::timestamptz
             - COALESCE(o.payload_retention_days, ${period.defaultDays}::float8) * interval '1 day'
       LIMIT ${period.batch})`,
  );
}

/** Processed or failed snapshots (with their summary and payload) captured before their history period. */
export async function pruneSnapshots(db: Db, period: RetentionPeriod): Promise<number> {
  return inBatches(
    period.batch,
    () => db.$executeRaw`
    DELETE FROM snapshots WHERE id IN (
      SELECT s.id FROM snapshots s
        JOIN clusters c ON c.id = s.cluster_id JOIN organizations o ON o.id = c.organization_id
       WHERE s.status IN ('processed', 'failed')
         AND s.captured_at < ${period.now}::timestamptz
             - COALESCE(o.history_retention_days, ${period.defaultDays}::float8) * interval '1 day'
       LIMIT ${period.batch})`,
  );
}

/**
 * Every cluster with the instant its history (or its raw payloads: `payload`) is kept from: its
 * organization's period, else the default.
 */
export async function historyCutoffs(
  db: Db,
  period: Omit<RetentionPeriod, 'batch'>,
  kept: 'history' | 'payload' = 'history',
): Promise<ClusterCutoff[]> {
  const days = Prisma.raw(kept === 'history' ? 'o.history_retention_days' : 'o.payload_retention_days');
  return db.$queryRaw<ClusterCutoff[]>`
    SELECT c.id::text, ${period.now}::timestamptz - COALESCE(${days}, ${period.defaultDays}::float8) * interval '1 day' AS cutoff
      FROM clusters c JOIN organizations o ON o.id = c.organization_id`;
}

/**
 * One cluster's history after its intervals past the cutoff went (`dropped` of them with whole
 * partitions): deletes those the partitions did not hold, sums the roll-up's days up to the cutoff
 * again, and deletes the Services without an interval, the analysis documents no summary names and the
 * fix and zones contents no interval names. Call it under the cluster's lock, in one transaction.
 */
export async function pruneClusterHistory(
  tx: Db,
  cluster: ClusterCutoff,
  dropped: number,
): Promise<{ intervals: number; services: number }> {
  const deleted = await tx.$executeRaw`
    DELETE FROM service_intervals WHERE cluster_id = ${cluster.id}::uuid AND valid_to < ${cluster.cutoff}`;
  const intervals = deleted + dropped;
  if (intervals > 0) await refreshSavingsDays(tx, cluster.id, await savingsDaysBefore(tx, cluster));
  const services = await tx.$executeRaw`
    DELETE FROM cluster_services s WHERE s.cluster_id = ${cluster.id}::uuid
       AND NOT EXISTS (SELECT 1 FROM service_intervals i WHERE i.service_id = s.id)`;
  await pruneAnalysisDocuments(tx, cluster.id);
  if (intervals > 0) await pruneServiceContents(tx, cluster.id);
  return { intervals, services };
}

/**
 * The savings roll-up's days up to the cutoff, per Service: the pruned intervals' pieces must leave it,
 * those of intervals still held (ending after the cutoff) stay, so these days are summed again.
 */
async function savingsDaysBefore(db: Db, cluster: ClusterCutoff) {
  const rows = await db.$queryRaw<{ service_id: bigint; first_day: Date }[]>`
    SELECT service_id, min(day)::timestamp AT TIME ZONE 'UTC' AS first_day FROM service_savings_days
     WHERE cluster_id = ${cluster.id}::uuid AND day <= (${cluster.cutoff}::timestamptz AT TIME ZONE 'UTC')::date
     GROUP BY service_id`;
  return rows.map((row) => ({ serviceId: row.service_id, from: row.first_day, to: cluster.cutoff }));
}

async function inBatches(batch: number, deleteBatch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < batch) return total;
  }
}
