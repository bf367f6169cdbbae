import type { Db, Prisma } from '@zw/db';

export interface ClaimedSnapshot {
  clusterId: string;
  capturedAt: Date;
  /** The organization's history retention override, if any. */
  historyRetentionDays: number | null;
}

/**
 * Marks a waiting snapshot as being processed (counting the attempt). Null when there is nothing to do:
 * the snapshot is already processed or failed, or no longer exists.
 */
export async function claimSnapshot(db: Db, snapshotId: string): Promise<ClaimedSnapshot | null> {
  const rows = await db.$queryRaw<{ cluster_id: string; captured_at: Date; history_retention_days: number | null }[]>`
    UPDATE snapshots s
       SET status = 'processing', attempts = s.attempts + 1, status_changed_at = now()
      FROM clusters c JOIN organizations o ON o.id = c.organization_id
     WHERE s.id = ${snapshotId}::uuid AND c.id = s.cluster_id AND s.status IN ('queued', 'processing')
    RETURNING s.cluster_id::text, s.captured_at, o.history_retention_days`;
  const row = rows[0];
  return row
    ? { clusterId: row.cluster_id, capturedAt: row.captured_at, historyRetentionDays: row.history_retention_days }
    : null;
}

/** Records why a snapshot can never be processed; a snapshot already processed keeps its status. */
export async function markSnapshotFailed(db: Db, snapshotId: string, reason: string): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE snapshots SET status = 'failed', error = ${reason.slice(0, 4000)}, status_changed_at = now()
     WHERE id = ${snapshotId}::uuid AND status IN ('queued', 'processing')`;
  return changed > 0;
}

/**
 * Inside the cluster's write transaction: whether the snapshot still waits to be recorded. Locks its row,
 * so exactly one transaction ever records it (a re-run after a crash finds it processed and writes nothing).
 */
export async function stillWaiting(tx: Prisma.TransactionClient, snapshotId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ status: string }[]>`
    SELECT status::text FROM snapshots WHERE id = ${snapshotId}::uuid FOR UPDATE`;
  return rows[0]?.status === 'queued' || rows[0]?.status === 'processing';
}

export async function markSnapshotProcessed(tx: Prisma.TransactionClient, snapshotId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE snapshots SET status = 'processed', error = NULL, processed_at = now(), status_changed_at = now()
     WHERE id = ${snapshotId}::uuid`;
}
