import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { type BucketShape, TokenBuckets } from '../src/auth/token-buckets.js';

/** A limit shaped as ingest's: 120 a minute (one every 0.5 s), here 10 back to back. */
const SHAPE = { rate: 120, periodMs: 60_000, burst: 10 };
const T0 = 1_800_000_000_000;

let redis: Redis;
let buckets: TokenBuckets;
let prefix: string;
let keys = 0;
/** A key no other case uses (the buckets live in the real Redis). */
const freshKey = () => `${prefix}:bucket-${++keys}`;

beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL);
  buckets = new TokenBuckets(redis);
  prefix = uniquePrefix('buckets');
});

afterAll(async () => {
  await deletePrefixKeys(prefix);
  redis.disconnect();
});

async function takeMany(key: string, count: number, now: number, shape: BucketShape = SHAPE) {
  const states = [];
  for (let i = 0; i < count; i++) states.push(await buckets.take(key, shape, now));
  return states;
}

describe('TokenBuckets (the generic cell rate algorithm, held in Redis)', () => {
  it('allows the burst back to back, then refuses with the wait until the next token', async () => {
    const states = await takeMany(freshKey(), 12, T0);
    expect(states.map((state) => state.allowed)).toEqual([...Array<boolean>(10).fill(true), false, false]);
    expect(states.map((state) => state.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0]);
    expect(states[10]).toEqual({
      allowed: false,
      remaining: 0,
      secondsUntilFull: 5,
      secondsUntilNext: 1,
      retryAfterSeconds: 1,
    });
  });

  it('gives one token back every period / rate, never more than the burst', async () => {
    const key = freshKey();
    await takeMany(key, 10, T0);
    expect((await buckets.take(key, SHAPE, T0 + 498)).allowed).toBe(false);
    expect((await buckets.take(key, SHAPE, T0 + 500)).allowed).toBe(true);
    expect((await buckets.take(key, SHAPE, T0 + 500)).allowed).toBe(false);
    // An hour idle fills the bucket to the burst, not to 120 pushes.
    const later = await takeMany(key, 11, T0 + 3600_000);
    expect(later.filter((state) => state.allowed)).toHaveLength(10);
  });

  it('holds a minute of steady pushes to the rate: 10 at once and one every 0.5 s, 129 in all', async () => {
    const key = freshKey();
    let allowed = 0;
    for (let ms = 0; ms < 60_000; ms += 10) if ((await buckets.take(key, SHAPE, T0 + ms)).allowed) allowed++;
    expect(allowed).toBe(10 + 119);
  });

  it('keeps keys apart', async () => {
    const [a, b] = [freshKey(), freshKey()];
    await takeMany(a, 10, T0);
    expect((await buckets.take(a, SHAPE, T0)).allowed).toBe(false);
    expect(await buckets.take(b, SHAPE, T0)).toEqual({
      allowed: true,
      remaining: 9,
      secondsUntilFull: 1,
      secondsUntilNext: 1,
      retryAfterSeconds: 0,
    });
  });

  it('counts exactly when period / rate is no binary fraction', async () => {
    const key = freshKey();
    const shape = { rate: 7, periodMs: 1000, burst: 3 };
    const first = await takeMany(key, 4, T0, shape);
    expect(first.map((state) => state.allowed)).toEqual([true, true, true, false]);
    let allowed = 0;
    for (let n = 1; n <= 700; n++) if ((await buckets.take(key, shape, T0 + (n * 1000) / 7)).allowed) allowed++;
    expect(allowed).toBe(700);
  });

  it("is one bucket for every client of the same Redis (two API processes' connections)", async () => {
    const other = new Redis(TEST_REDIS_URL);
    try {
      const elsewhere = new TokenBuckets(other);
      const key = freshKey();
      const here = await takeMany(key, 5, T0);
      const there = [];
      for (let i = 0; i < 6; i++) there.push(await elsewhere.take(key, SHAPE, T0));
      expect([...here, ...there].filter((state) => state.allowed)).toHaveLength(10);
      expect(there.at(-1)!.allowed).toBe(false);
    } finally {
      other.disconnect();
    }
  });

  it("uses Redis's clock when no instant is given: a refused take says when to retry", async () => {
    const key = freshKey();
    const shape = { rate: 1, periodMs: 60_000, burst: 1 };
    expect((await buckets.take(key, shape)).allowed).toBe(true);
    const refused = await buckets.take(key, shape);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
  });
});
