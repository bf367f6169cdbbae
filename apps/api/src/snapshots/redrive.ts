import {
  type AuditActor,
  type FailedSnapshotSelection,
  type PrismaClient,
  recordAudit,
  requeueFailedSnapshots,
} from '@zw/db';
import { requeueSnapshot, type RetryPolicy } from '@zw/queue';
import type { Queue } from 'bullmq';

/** Longest a re-drive waits for Redis to take its jobs; the worker's sweeper queues any it could not. */
const REQUEUE_TIMEOUT_MS = 5000;

export interface RedriveOutcome {
  snapshotIds: string[];
  /** False when Redis did not take every job in time (the worker's sweeper queues the rest). */
  queued: boolean;
}

/**
 * Re-drives failed snapshots, for the API and the admin CLI alike: puts them back in line in Postgres with
 * an audit entry (one transaction, nothing recorded when nothing was failed), then queues their jobs.
 * Idempotent: only snapshots still failed are taken, and the worker records a snapshot only once.
 */
export async function redriveFailedSnapshots(
  prisma: PrismaClient,
  queue: Queue,
  selection: FailedSnapshotSelection & { all?: boolean },
  actor: AuditActor,
  retry: RetryPolicy,
): Promise<RedriveOutcome> {
  const snapshots = await prisma.$transaction(async (tx) => {
    const requeued = await requeueFailedSnapshots(tx, selection);
    if (requeued.length) {
      await recordAudit(tx, actor, {
        organizationId: selection.organizationId,
        action: 'snapshot.redrive',
        targetType: 'snapshot',
        targetId: requeued.length === 1 ? requeued[0].id : null,
        details: { selection: selectionDetails(selection), redriven: requeued.length },
      });
    }
    return requeued;
  });
  return { snapshotIds: snapshots.map((snapshot) => snapshot.id), queued: await queueAll(queue, snapshots, retry) };
}

function selectionDetails(selection: FailedSnapshotSelection & { all?: boolean }): Record<string, unknown> {
  return {
    ...(selection.snapshotIds ? { snapshotIds: selection.snapshotIds.length } : {}),
    ...(selection.clusterId ? { clusterId: selection.clusterId } : {}),
    ...(selection.since ? { since: selection.since.toISOString() } : {}),
    ...(selection.all ? { all: true } : {}),
  };
}

async function queueAll(
  queue: Queue,
  snapshots: { id: string; clusterId: string }[],
  retry: RetryPolicy,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), REQUEUE_TIMEOUT_MS)));
  const queueing = (async () => {
    for (const snapshot of snapshots) {
      await requeueSnapshot(queue, { snapshotId: snapshot.id, clusterId: snapshot.clusterId }, retry);
    }
    return true as const;
  })().catch(() => false as const);
  try {
    return await Promise.race([queueing, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
