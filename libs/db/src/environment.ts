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
