import pg from 'pg';
import type { SqlClient } from './sql-client.js';

/**
 * Serializes every history write of one cluster (worker transactions, retention) until the transaction
 * ends. Clusters are independent, so different clusters never wait for each other (hash collisions aside).
 * Waiting is bounded: past `waitMs` Postgres raises lock_not_available, the transaction fails and the job
 * is retried later (with backoff) instead of holding a worker slot and a connection indefinitely.
 */
export async function lockCluster(tx: SqlClient, clusterId: string, waitMs: number): Promise<void> {
  const timeoutMs = Math.max(1, Math.round(waitMs));
  try {
    // One round trip: the FROM subquery (the timeout) is evaluated before the lock is requested.
    await tx.$executeRaw`
      SELECT pg_advisory_xact_lock(hashtextextended(${clusterId}, 0))
        FROM (SELECT set_config('lock_timeout', ${`${timeoutMs}ms`}, true)) AS timeout`;
  } catch (error) {
    if (sqlStateOf(error) === LOCK_NOT_AVAILABLE) throw new ClusterBusyError(timeoutMs);
    throw error;
  }
}

/** Postgres' lock_not_available: the lock timeout passed. */
const LOCK_NOT_AVAILABLE = '55P03';

/** The cluster's history stayed locked by another write for the whole wait. */
export class ClusterBusyError extends Error {
  override name = 'ClusterBusyError';
  constructor(readonly waitedMs: number) {
    super(`another write held the cluster's history for longer than the ${waitedMs} ms a snapshot waits for it`);
  }
}

/**
 * The SQLSTATE of a raw query's failure: pg's own error, or as Prisma reports it through its pg driver
 * adapter (`P2010`, the state in `meta.driverAdapterError.cause.code`).
 */
function sqlStateOf(error: unknown): string | null {
  if (error instanceof pg.DatabaseError) return error.code ?? null;
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { code?: unknown } } } } | null)?.meta;
  const code = meta?.driverAdapterError?.cause?.code;
  return typeof code === 'string' ? code : null;
}
