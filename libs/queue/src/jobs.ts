import type { DefaultJobOptions, Queue } from 'bullmq';
import { parseRedisUrl, redisReconnectDelayMs } from './redis-target.js';

/**
 * The queues and jobs api and worker share. Both import these names from here and nowhere else, so a
 * producer and its consumer cannot drift apart.
 */
export const SNAPSHOTS_QUEUE = 'snapshots';
/** Housekeeping lives in its own queue so it never waits behind a backlog of snapshots. */
export const MAINTENANCE_QUEUE = 'maintenance';

export const ANALYZE_SNAPSHOT_JOB = 'analyze-snapshot';
export const SWEEP_JOB = 'sweep';
export const RETENTION_JOB = 'retention';

/** Payload of ANALYZE_SNAPSHOT_JOB; the snapshot itself stays in Postgres. Job id = snapshot id. */
export interface AnalyzeSnapshotJobData {
  snapshotId: string;
  clusterId: string;
}

export interface RetryPolicy {
  /** Total tries of a job, the first included. */
  attempts: number;
  /** Delay before the first retry; doubles each retry. */
  backoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 5, backoffMs: 1000 };

/**
 * Options of every snapshot job. Finished jobs are dropped from Redis soon (Postgres holds the outcome),
 * which keeps Redis small with hundreds of clusters pushing.
 */
export function snapshotJobOptions(retry: RetryPolicy = DEFAULT_RETRY_POLICY): DefaultJobOptions {
  return {
    attempts: retry.attempts,
    backoff: { type: 'exponential', delay: retry.backoffMs },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  };
}

/**
 * Enqueues analysis of a stored snapshot. The job id is the snapshot id, so enqueuing the same snapshot
 * again while its job is still known to Redis is a no-op.
 */
export async function enqueueSnapshot(
  queue: Queue,
  data: AnalyzeSnapshotJobData,
  retry: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<void> {
  await queue.add(ANALYZE_SNAPSHOT_JOB, data, { ...snapshotJobOptions(retry), jobId: data.snapshotId });
}

/**
 * Queues a snapshot's analysis again, after its snapshot was put back in line in Postgres (a re-drive, or
 * the sweeper finding its job gone or finished). A finished job of the same id (kept a while in Redis)
 * would make the add a no-op, so it is removed first; a job still waiting, delayed or running is left as
 * it is: the snapshot is in hand already.
 */
export async function requeueSnapshot(
  queue: Queue,
  data: AnalyzeSnapshotJobData,
  retry: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<void> {
  const job = await queue.getJob(data.snapshotId);
  if (job) {
    const state = await job.getState();
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return;
    await job.remove();
  }
  await enqueueSnapshot(queue, data, retry);
}

/** ioredis options for a `redis://[user:password@]host[:port][/db]` or `rediss://` URL (one server). */
export function redisConnectionFromUrl(url: string) {
  const target = parseRedisUrl(url);
  if (target.cluster) throw new Error('REDIS_URL names a Redis Cluster: use createRedisClient or bullConnection');
  const [node] = target.nodes;
  return {
    host: node.host,
    port: node.port,
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.db !== undefined ? { db: target.db } : {}),
    ...(target.tls ? { tls: {} } : {}),
    /** Required by BullMQ workers' blocking connections; harmless for producers. */
    maxRetriesPerRequest: null,
    retryStrategy: redisReconnectDelayMs,
  };
}
