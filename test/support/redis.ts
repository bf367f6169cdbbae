import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A BullMQ prefix no other test file (or run) uses, so files can share one Redis. */
export function uniquePrefix(tag: string): string {
  return `zwtest-${tag}-${process.pid}-${Date.now().toString(36)}`;
}

/** Deletes every key of one prefix: what a Redis restart without persistence does to a deployment. */
export async function deletePrefixKeys(prefix: string): Promise<number> {
  const redis = new Redis(TEST_REDIS_URL);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}
