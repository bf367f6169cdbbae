import type { DefaultJobOptions, Queue } from 'bullmq';

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

export interface RedisConnection {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  tls?: Record<string, never>;
  /** Required by BullMQ workers' blocking connections; harmless for producers. */
  maxRetriesPerRequest: null;
  /** Wait before reconnect number `times` (ioredis' reconnect schedule). */
  retryStrategy: (times: number) => number;
}

/** Longest wait between two reconnects to Redis. */
export const REDIS_RECONNECT_MAX_MS = 2000;

/**
 * Decision: reconnect to Redis at most REDIS_RECONNECT_MAX_MS apart, however long it has been away.
 * BullMQ's own schedule grows to 20 s, so work resumed up to 20 s after Redis was back; a connect
 * attempt every 2 s costs nothing.
 */
export function redisReconnectDelayMs(times: number): number {
  return Math.min(200 * Math.max(1, times), REDIS_RECONNECT_MAX_MS);
}

/** ioredis options for a `redis://[user:password@]host[:port][/db]` or `rediss://` URL. */
export function redisConnectionFromUrl(url: string): RedisConnection {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error(`REDIS_URL must start with redis:// or rediss://, got ${parsed.protocol}`);
  }
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined;
  if (db !== undefined && !Number.isInteger(db)) throw new Error(`REDIS_URL database must be a number: ${url}`);
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db !== undefined ? { db } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: redisReconnectDelayMs,
  };
}
