import { z } from 'zod';

/** The demo's settings, from the environment; a bad one stops it before anything starts. */
export const demoEnvSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** The API's Prometheus port (0: any free port, not printed). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  ZONEWISE_DEMO_API_KEY: z
    .string()
    .min(16, 'must be at least 16 characters')
    .regex(/^\S+$/, 'must not contain white space')
    .optional(),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/zonewise_demo'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z.string().min(1).default('zwdemo'),
  /** Wall-clock time between two snapshots of each demo cluster. */
  ZONEWISE_DEMO_INTERVAL: z.string().default('20s'),
});

export type DemoConfig = z.output<typeof demoEnvSchema>;

export function loadDemoConfig(env: NodeJS.ProcessEnv): DemoConfig {
  const parsed = demoEnvSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new DemoConfigError(problems.join('; '));
}

export class DemoConfigError extends Error {
  override name = 'DemoConfigError';
}
