import { dbEnvSchema } from '@zw/db';
import { parseEnvironment, queueEnvSchema } from '@zw/queue';
import { z } from 'zod';

export const apiEnvSchema = dbEnvSchema.extend(queueEnvSchema.shape).extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Largest snapshot accepted, measured uncompressed (a gzip body is limited by what it inflates to). */
  INGEST_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
});

export type ApiConfig = z.output<typeof apiEnvSchema>;

/** ConfigModule's `validate`: a bad setting stops the API at boot with one line per problem. */
export function validateApiEnv(env: Record<string, unknown>): ApiConfig {
  return parseEnvironment(apiEnvSchema, env);
}
