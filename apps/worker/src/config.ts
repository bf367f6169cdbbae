import { dbEnvSchema, historyRetentionSetting, readReplicaSettings } from '@zw/db';
import {
  alertsEnvSchema,
  logLevelSetting,
  parseEnvironment,
  queueEnvSchema,
  reportsEnvSchema,
  trafficEnvSchema,
} from '@zw/queue';
import { z } from 'zod';

export const workerEnvSchema = dbEnvSchema
  .extend(queueEnvSchema.shape)
  .extend({
    /**
     * Nice value of every thread of the worker (0 to 19; a higher one yields the CPU sooner). Snapshots
     * wait durably in the queue, readers of the API do not: where the worker shares cores with the API,
     * its analyses take the CPU the API's requests leave. 0 runs it at the API's priority.
     */
    WORKER_CPU_NICE: z.coerce.number().int().min(0).max(19).default(10),
    /** Snapshot jobs one worker process runs at once (analysis is CPU-bound; more overlaps the I/O). */
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    /**
     * Threads that analyse snapshots off the event loop. Default: WORKER_CONCURRENCY, at most one less
     * than the machine's cores (at least 1).
     */
    WORKER_ANALYSIS_THREADS: z.coerce.number().int().min(1).max(64).optional(),
    /**
     * How long a job's lock lasts without renewal; the worker renews it every quarter of this. A worker
     * killed mid-job leaves its snapshot locked this long, after which another worker takes it back within
     * two WORKER_STALLED_INTERVAL_MS. Renewals run on the event loop, which the analysis (in its own
     * threads) does not block, so a long analysis keeps its lock.
     */
    WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1000).default(10_000),
    /** How often a worker looks for jobs whose worker died (lock expired) and takes them back. */
    WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(5_000),
    /** Times a job may be recovered from a dead worker before it fails. */
    WORKER_MAX_STALLED_COUNT: z.coerce.number().int().min(0).default(3),
    /**
     * While Postgres or Redis is unreachable, a snapshot's job waits and retries (no attempt counted):
     * first after this long, then twice as long each time, up to WORKER_OUTAGE_RETRY_MAX_MS, which also
     * bounds how long after an outage ends the backlog resumes.
     */
    WORKER_OUTAGE_RETRY_MS: z.coerce.number().int().min(10).default(500),
    WORKER_OUTAGE_RETRY_MAX_MS: z.coerce.number().int().min(10).default(10_000),
    /**
     * Longest a snapshot waits for its cluster's lock (another snapshot of the same cluster being written)
     * before the attempt fails and is retried with backoff.
     */
    WORKER_LOCK_WAIT_MS: z.coerce.number().int().min(1).default(60_000),
    /** Longest a snapshot's write transaction (including the wait for its cluster's lock) may take. */
    WORKER_TX_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
    /** Sweeper period, and how long a snapshot may wait before the sweeper checks that its job exists. */
    SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(30_000),
    SWEEP_GRACE_MS: z.coerce.number().int().min(0).default(120_000),
    RETENTION_EVERY_MS: z.coerce.number().int().min(1000).default(3600_000),
    /**
     * A cluster whose newest snapshot is older than this is stale (its agent stopped pushing): the API's
     * fleet view reads the same variable, and the sweeper announces each crossing as a live event.
     */
    STALE_AFTER_SECONDS: z.coerce.number().int().min(1).default(900),
    /** Deployment defaults; an organization may override them (organizations.*_retention_days). */
    PAYLOAD_RETENTION_DAYS: z.coerce.number().min(0).default(7),
    ...historyRetentionSetting,
    ...readReplicaSettings,
    ...logLevelSetting,
    /** Days the audit log (who changed keys, clusters, prices, schedules) is kept. */
    AUDIT_LOG_RETENTION_DAYS: z.coerce.number().min(1).default(365),
    /**
     * Days a made report is kept after its period ended (each schedule's newest scheduled report stays
     * whatever its age). Thirteen months: a report can be set beside the same period a year before.
     */
    REPORT_RETENTION_DAYS: z.coerce.number().min(1).default(400),
    /**
     * When set, the worker rewrites this file each SWEEP_EVERY_MS after talking to Redis successfully:
     * a container healthcheck can test its age (docker-compose.yml does).
     */
    WORKER_HEARTBEAT_FILE: z.string().min(1).optional(),
  })
  .refine((config) => config.WORKER_OUTAGE_RETRY_MAX_MS >= config.WORKER_OUTAGE_RETRY_MS, {
    path: ['WORKER_OUTAGE_RETRY_MAX_MS'],
    message: 'must be at least WORKER_OUTAGE_RETRY_MS',
  })
  .refine((config) => config.WORKER_TX_TIMEOUT_MS > config.WORKER_LOCK_WAIT_MS, {
    path: ['WORKER_TX_TIMEOUT_MS'],
    message: 'must be longer than WORKER_LOCK_WAIT_MS (the wait for the cluster lock happens inside the transaction)',
  });

export type WorkerConfig = z.output<typeof workerEnvSchema>;

export function loadWorkerConfig(env: Record<string, unknown> = process.env): WorkerConfig {
  return parseEnvironment(workerEnvSchema, env);
}

/**
 * Every schema the worker reads its environment with: its own at boot, and the features' (traffic, reports,
 * alerts) when their providers start. The chart's and compose's tests derive the settings they pass from it.
 */
export const WORKER_SETTING_SCHEMAS = [workerEnvSchema, trafficEnvSchema, reportsEnvSchema, alertsEnvSchema] as const;
