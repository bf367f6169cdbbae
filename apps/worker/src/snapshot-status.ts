import type { Db } from '@zw/db';

export interface ClaimedSnapshot {
  clusterId: string;
  capturedAt: Date;
  /** The organization's history retention override, if any. */
  historyRetentionDays: number | null;
  /** The raw payload; null if it is gone. */
  gzip: Uint8Array | null;
}

/**
 * Marks a waiting snapshot as being processed (counting the attempt) and reads it with its payload, in
 * one round trip. Null when there is nothing to do: already processed or failed, or no longer there.
 */
export async function claimSnapshot(db: Db, snapshotId: string): Promise<ClaimedSnapshot | null> {
  const rows = await db.$queryRaw<
    { cluster_id: string; captured_at: Date; history_retention_days: number | null; gzip: Uint8Array | null }[]
  >`
    WITH claimed AS (
      UPDATE snapshots s
         SET status = 'processing', attempts = s.attempts + 1, status_changed_at = now()
        FROM clusters c JOIN organizations o ON o.id = c.organization_id
       WHERE s.id = ${snapshotId}::uuid AND c.id = s.cluster_id AND s.status IN ('queued', 'processing')
      RETURNING s.id, s.cluster_id, s.captured_at, o.history_retention_days
    )
    SELECT claimed.cluster_id::text, claimed.captured_at, claimed.history_retention_days, p.gzip
      FROM claimed LEFT JOIN snapshot_payloads p ON p.snapshot_id = claimed.id`;
  const row = rows[0];
  return row
    ? {
        clusterId: row.cluster_id,
        capturedAt: row.captured_at,
        historyRetentionDays: row.history_retention_days,
        gzip: row.gzip,
      }
    : null;
}

/** Records why a snapshot can never be processed; a snapshot already processed keeps its status. */
export async function markSnapshotFailed(db: Db, snapshotId: string, reason: string): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE snapshots SET status = 'failed', error = ${reason.slice(0, 4000)}, status_changed_at = now()
     WHERE id = ${snapshotId}::uuid AND status IN ('queued', 'processing')`;
  return changed > 0;
}
