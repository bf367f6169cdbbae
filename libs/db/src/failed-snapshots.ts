import type { Db } from './db-client.js';

/**
 * Which failed snapshots of one organization: some by id, a cluster's, those that failed at or after an
 * instant, or any combination (all given conditions hold).
 */
export interface FailedSnapshotSelection {
  organizationId: string;
  snapshotIds?: string[];
  clusterId?: string;
  /** Failed at or after this instant. */
  since?: Date;
}

export interface FailedSnapshotRow {
  id: string;
  clusterId: string;
  clusterName: string;
  capturedAt: Date;
  receivedAt: Date;
  failedAt: Date;
  attempts: number;
  error: string | null;
}

/** The dead letters: failed snapshots, newest failure first, after `after` (the previous page's last). */
export async function listFailedSnapshots(
  db: Db,
  selection: FailedSnapshotSelection,
  page: { limit: number; after?: { failedAt: Date; id: string } },
): Promise<FailedSnapshotRow[]> {
  const rows = await db.snapshot.findMany({
    where: {
      ...selectionWhere(selection),
      ...(page.after
        ? {
            OR: [
              { statusChangedAt: { lt: page.after.failedAt } },
              { statusChangedAt: page.after.failedAt, id: { lt: page.after.id } },
            ],
          }
        : {}),
    },
    select: {
      id: true,
      clusterId: true,
      capturedAt: true,
      receivedAt: true,
      statusChangedAt: true,
      attempts: true,
      error: true,
      cluster: { select: { name: true } },
    },
    orderBy: [{ statusChangedAt: 'desc' }, { id: 'desc' }],
    take: page.limit,
  });
  return rows.map(({ statusChangedAt, cluster, ...row }) => ({
    ...row,
    clusterName: cluster.name,
    failedAt: statusChangedAt,
  }));
}

/**
 * Puts failed snapshots back in line (status `queued`, error and attempts cleared) and returns them, so
 * the caller can queue their jobs. Only a snapshot still `failed` is taken, in one statement: of two
 * re-drives at once each snapshot goes to one, and a snapshot processed meanwhile is never re-driven, so
 * a re-drive can never record a snapshot twice.
 */
export async function requeueFailedSnapshots(
  db: Db,
  selection: FailedSnapshotSelection,
): Promise<{ id: string; clusterId: string }[]> {
  const chosen = await db.snapshot.findMany({ where: selectionWhere(selection), select: { id: true } });
  if (!chosen.length) return [];
  const ids = chosen.map((row) => row.id);
  return db.$queryRaw<{ id: string; clusterId: string }[]>`
    UPDATE snapshots SET status = 'queued', error = NULL, attempts = 0, status_changed_at = now()
     WHERE id = ANY(${ids}::uuid[]) AND status = 'failed'
    RETURNING id::text, cluster_id::text AS "clusterId"`;
}

function selectionWhere(selection: FailedSnapshotSelection) {
  return {
    status: 'failed' as const,
    cluster: { organizationId: selection.organizationId },
    ...(selection.snapshotIds ? { id: { in: selection.snapshotIds } } : {}),
    ...(selection.clusterId ? { clusterId: selection.clusterId } : {}),
    ...(selection.since ? { statusChangedAt: { gte: selection.since } } : {}),
  };
}
