import type { Prisma } from '@zw/db';

/**
 * Serializes every history write of one cluster (worker transactions, retention) until the transaction
 * ends. Clusters are independent, so different clusters never wait for each other (hash collisions aside).
 */
export async function lockCluster(tx: Prisma.TransactionClient, clusterId: string): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM pg_advisory_xact_lock(hashtextextended(${clusterId}, 0))`;
}
