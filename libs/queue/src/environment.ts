import { LOG_LEVELS } from '@zw/core';
import { z } from 'zod';
import { DEFAULT_RETRY_POLICY } from './jobs.js';
import { redisUrlProblem } from './redis-target.js';

/** Environment both api and worker read to reach the queues: they must agree on all of it. */
export const queueEnvSchema = z.object({
  /**
   * One server (`redis://`, `rediss://` for TLS, optional `/db`), or a Redis Cluster by one or more seed
   * nodes (`redis+cluster://host1:6379,host2:6379`, `rediss+cluster://` for TLS).
   */
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .superRefine((url, context) => {
      const problem = redisUrlProblem(url);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  /** Namespace of every BullMQ key; separate deployments (or test runs) sharing a Redis use different ones. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('zw'),
  JOB_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(DEFAULT_RETRY_POLICY.attempts),
  JOB_BACKOFF_MS: z.coerce.number().int().min(0).default(DEFAULT_RETRY_POLICY.backoffMs),
});

/** The api's and the worker's log level (JSON lines on stdout; the agent's is its --log-level flag). */
export const logLevelSetting = {
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
};

/**
 * Parses the environment against a schema, failing with one line per bad or missing variable so a
 * misconfigured deployment stops at boot with a message that says what to fix.
 */
export function parseEnvironment<S extends z.ZodType>(schema: S, env: Record<string, unknown>): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`);
  throw new Error(`Invalid environment:\n${problems.join('\n')}`);
}
