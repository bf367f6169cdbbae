import { lockCluster, type PrismaClient } from '@zw/db';
import { createHash } from 'node:crypto';
import { recordSnapshot, type SnapshotRecord } from '../../src/history/history-writer.js';

/**
 * Records analysed states at `at` as the worker does, in one transaction under the cluster's lock, after
 * storing the snapshot row the summary references (its content hash unique per cluster and instant).
 */
export async function recordAt(
  prisma: PrismaClient,
  clusterId: string,
  at: Date,
  analyzed: Pick<SnapshotRecord, 'services' | 'aggregates'>,
) {
  const snapshot = await prisma.snapshot.create({
    data: {
      clusterId,
      capturedAt: at,
      contentHash: new Uint8Array(createHash('sha256').update(`${clusterId}${at.toISOString()}`).digest()),
      sizeBytes: 0,
      status: 'processing',
    },
  });
  return prisma.$transaction(async (tx) => {
    await lockCluster(tx, clusterId, 10_000);
    return recordSnapshot(tx, { clusterId, snapshotId: snapshot.id, capturedAt: at, analyzer: 'test', ...analyzed });
  });
}
