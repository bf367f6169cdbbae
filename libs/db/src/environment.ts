import { z } from 'zod';

/** Environment every process that talks to Postgres reads. */
export const dbEnvSchema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\/[^/]/, 'must be a postgresql:// URL'),
  /** Most Postgres connections one process opens. */
  DB_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
});

/**
 * Days of history kept (an organization may override it: organizations.history_retention_days). The
 * worker prunes history past it; the API refuses snapshots captured before it (they could never be placed).
 */
export const historyRetentionSetting = {
  HISTORY_RETENTION_DAYS: z.coerce.number().min(0).default(90),
};

/**
 * A streaming replica for heavy reads (savings, trends, reports): DATABASE_READ_URL names it; reads go
 * there while it is at most DATABASE_READ_MAX_LAG_MS behind the primary, else (or while it is down) to
 * DATABASE_URL. Unset: every read goes to DATABASE_URL.
 */
export const readReplicaSettings = {
  DATABASE_READ_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/[^/]/, 'must be a postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** The staleness bound of reads from DATABASE_READ_URL (its lag is measured at most once a second). */
  DATABASE_READ_MAX_LAG_MS: z.coerce.number().int().min(0).default(10_000),
};

/** ReadDb's `replica` option from the settings above (undefined without DATABASE_READ_URL). */
export function replicaOf(config: { DATABASE_READ_URL?: string; DATABASE_READ_MAX_LAG_MS: number }) {
  return config.DATABASE_READ_URL
    ? { databaseUrl: config.DATABASE_READ_URL, maxLagMs: config.DATABASE_READ_MAX_LAG_MS }
    : undefined;
}
