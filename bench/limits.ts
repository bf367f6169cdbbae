import { Redis } from 'ioredis';
import { join } from 'node:path';
import { deleteKeys, REDIS_URL, ROOT } from './local-stack.js';

/** The API's compiled limiters (the bench project cannot import the app's sources). */
interface Limiters {
  WindowRateStorage: new (
    redis: Redis,
    prefix: string,
  ) => {
    limiter(name: string, limit: number, windowMs: number): { charge(key: string, units: number): Promise<unknown> };
  };
  TokenBuckets: new (redis: Redis) => {
    take(key: string, shape: { rate: number; periodMs: number; burst: number }): Promise<unknown>;
  };
}

function compiled<T>(file: string): T {
  return require(join(ROOT, 'dist', 'apps', 'api', 'auth', file)) as T; // eslint-disable-line @typescript-eslint/no-require-imports
}

const SAMPLES = 5000;
const WARM_UP = 500;

/** Median of `samples` calls of `call`, in ms, after a warm-up. */
async function medianMs(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

/**
 * What the limits shared through Redis add to a request: the per-key window (rate-limiter-flexible's
 * script) and the ingest bucket (the GCRA script), against a PING on the same connection as the floor.
 */
export async function runLimitsBench(): Promise<string[]> {
  const redis = new Redis(REDIS_URL, { enableOfflineQueue: false });
  await new Promise((resolve) => redis.once('ready', resolve));
  const prefix = `zwbench-limits-${process.pid}`;
  const { WindowRateStorage } = compiled<Pick<Limiters, 'WindowRateStorage'>>('window-rate-storage.js');
  const { TokenBuckets } = compiled<Pick<Limiters, 'TokenBuckets'>>('token-buckets.js');
  try {
    const window = new WindowRateStorage(redis, prefix).limiter('api-key', 1_000_000_000, 60_000);
    const buckets = new TokenBuckets(redis);
    const shape = { rate: 1_000_000_000, periodMs: 60_000, burst: 1_000_000_000 };
    const ping = await medianMs(() => redis.ping());
    const charge = await medianMs(() => window.charge('key:bench', 1));
    const take = await medianMs(() => buckets.take(`${prefix}:bucket`, shape));
    return [
      `limits: median of ${SAMPLES} sequential calls on one connection: PING (floor) ${ping.toFixed(3)} ms`,
      `limits: per-key window charge ${charge.toFixed(3)} ms (${(charge / ping).toFixed(2)}x PING); ingest bucket take ${take.toFixed(3)} ms (${(take / ping).toFixed(2)}x PING)`,
    ];
  } finally {
    redis.disconnect();
    await deleteKeys(prefix);
  }
}
