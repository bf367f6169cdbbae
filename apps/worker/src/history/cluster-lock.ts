import type { Prisma } from '@zw/db';

/**
 * Serializes every history write of one cluster (worker transactions, retention) until the transaction
 * ends. Clusters are independent, so different clusters never wait for each other (hash collisions aside).
 * Waiting is bounded: past `waitMs` Postgres raises lock_not_available, the transaction fails and the job
 * is retried later (with backoff) instead of holding a worker slot and a connection indefinitely.
 */
export async function lockCluster(tx: Prisma.TransactionClient, clusterId: string, waitMs: number): Promise<void> {
  // One round trip: the FROM subquery (the timeout) is evaluated before the lock is requested.
  await tx.$executeRaw`
    SELECT pg_advisory_xact_lock(hashtextextended(${clusterId}, 0))
      FROM (SELECT set_config('lock_timeout', ${`${Math.max(1, Math.round(waitMs))}ms`}, true)) AS timeout`;
}
