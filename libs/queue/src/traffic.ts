import type { DefaultJobOptions, Queue } from 'bullmq';
import { outboundUrlProblem } from '@zw/reports';
import type { SecretKeyring } from '@zw/secrets';
import { z } from 'zod';
import { parseEnvironment } from './environment.js';
import { reportsEnvSchema, secretKeyringOf } from './reports.js';

/**
 * Measured traffic: the queue, jobs and settings api and worker share.
 *
 * Postgres holds each cluster's traffic source (`traffic_sources`); the worker alone owns the BullMQ job
 * schedulers, one per configured cluster, firing every `interval_seconds`. The API never touches a
 * scheduler: after a change it asks the worker to sync that cluster (which also measures at once).
 * Measurement runs in its own queue, so a slow or unreachable Prometheus never holds up snapshots.
 */
export const TRAFFIC_QUEUE = 'traffic';

/** Query the cluster's Prometheus once and store the volumes (fired by the cluster's job scheduler). */
export const MEASURE_TRAFFIC_JOB = 'measure-traffic';
/** The cluster's traffic source was created, changed or deleted: bring its scheduler in line, measure now. */
export const SYNC_TRAFFIC_SOURCE_JOB = 'sync-traffic-source';

export interface TrafficJobData {
  clusterId: string;
}

/** The job scheduler of a cluster's traffic source. */
export function trafficSchedulerId(clusterId: string): string {
  return `traffic-source-${clusterId}`;
}

const flag = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((value) => value === 'true' || value === '1');

/** Environment both api and worker read for traffic sources. */
export const trafficEnvSchema = z.object({
  /**
   * Lets traffic sources use loopback, private, link-local and other non-public addresses. Off in
   * production: a tenant's Prometheus URL must not reach the deployment's own network (SSRF). Set it
   * where the Prometheus is on a private network you trust (and in tests and the demo).
   */
  TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: flag,
  /** Longest one Prometheus query may take (sent as its `timeout` too). */
  TRAFFIC_SOURCE_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  /** Tries of one measurement, and the delay before the first retry (doubling after). */
  TRAFFIC_SOURCE_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(4),
  TRAFFIC_SOURCE_BACKOFF_MS: z.coerce.number().int().min(0).default(10_000),
  /** Shortest window a source may measure over (a window must span several scrapes to give a rate). */
  TRAFFIC_SOURCE_MIN_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  /** Shortest interval a cluster may ask to be measured at. */
  TRAFFIC_SOURCE_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(60),
  /**
   * The key that encrypted Prometheus Authorization headers before the deployment's keyring sealed them
   * (SECRET_ENCRYPTION_KEYS): kept to open the headers it sealed, which the API re-seals with the keyring
   * on the source's next write. It is in the traffic sources' keyring as key `traffic-sources`, the
   * current one when SECRET_ENCRYPTION_KEYS (and REPORT_WEBHOOK_ENCRYPTION_KEYS) is unset
   * ({@link trafficSourceKeyringOf}).
   */
  TRAFFIC_SOURCES_ENCRYPTION_KEY: z.string().min(16).optional(),
  /** Largest Prometheus answer read, in bytes (10,000 Services' series fit in a few MB). */
  TRAFFIC_SOURCE_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
});

export type TrafficConfig = z.output<typeof trafficEnvSchema>;

/** The id TRAFFIC_SOURCES_ENCRYPTION_KEY has in the traffic sources' keyring. */
export const TRAFFIC_SOURCES_KEY_ID = 'traffic-sources';

/**
 * The keyring traffic sources' auth headers are sealed with: the deployment's (SECRET_ENCRYPTION_KEYS, else
 * REPORT_WEBHOOK_ENCRYPTION_KEYS). TRAFFIC_SOURCES_ENCRYPTION_KEY, the setting from before the keyring,
 * opens the headers it sealed (the keyring's headerless form) and is in the ring as key `traffic-sources`:
 * the current key when the deployment has no keyring, so a deployment that set only it keeps storing
 * headers, and they still open once SECRET_ENCRYPTION_KEYS is set. Null when neither is set.
 */
export function trafficSourceKeyringOf(env: Record<string, unknown>): SecretKeyring | null {
  const keyring = secretKeyringOf(parseEnvironment(reportsEnvSchema, env));
  const legacy = parseEnvironment(trafficEnvSchema, env).TRAFFIC_SOURCES_ENCRYPTION_KEY;
  if (legacy === undefined) return keyring;
  const keys = new Map([[TRAFFIC_SOURCES_KEY_ID, legacy], ...(keyring?.keys ?? [])]);
  return { currentId: keyring?.currentId ?? TRAFFIC_SOURCES_KEY_ID, keys, headerlessKey: legacy };
}

export function measureJobOptions(
  config: Pick<TrafficConfig, 'TRAFFIC_SOURCE_ATTEMPTS' | 'TRAFFIC_SOURCE_BACKOFF_MS'>,
): DefaultJobOptions {
  return {
    attempts: config.TRAFFIC_SOURCE_ATTEMPTS,
    backoff: { type: 'exponential', delay: config.TRAFFIC_SOURCE_BACKOFF_MS },
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: 24 * 3600, count: 1000 },
  };
}

/** Asks the worker to sync one cluster's scheduler with Postgres and measure at once. */
export async function enqueueTrafficSourceSync(queue: Queue, clusterId: string, config: TrafficConfig): Promise<void> {
  await queue.add(SYNC_TRAFFIC_SOURCE_JOB, { clusterId } satisfies TrafficJobData, measureJobOptions(config));
}

/**
 * Why a Prometheus base URL is refused, or null: the deployment's rules for tenant-given URLs (https,
 * public addresses unless TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES), and no credentials or query in the URL
 * (the Authorization header is its own, write-only field).
 */
export function prometheusUrlProblem(text: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (url.username || url.password) return 'must not carry credentials (set authHeader instead)';
  if (url.search) return 'must not have a ?query (give the base URL; /api/v1/query is appended)';
  if (text.length > 2048) return 'longer than 2048 characters';
  return outboundUrlProblem(text, allowPrivate);
}

/** `<base>/api/v1/query` (a base already ending in `/api/v1` is accepted as is). */
export function prometheusQueryEndpoint(base: string): URL {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/api/v1') ? `${path}/query` : `${path}/api/v1/query`;
  return url;
}
