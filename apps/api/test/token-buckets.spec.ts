import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../src/auth/token-buckets.js';

/** A limit shaped as ingest's: 120 a minute (one every 0.5 s), here 10 back to back. */
const SHAPE = { rate: 120, periodMs: 60_000, burst: 10 };
const T0 = 1_800_000_000_000;

function takeMany(buckets: TokenBuckets, key: string, count: number, now: number) {
  return Array.from({ length: count }, () => buckets.take(key, SHAPE, now));
}

describe('TokenBuckets', () => {
  it('allows the burst back to back, then refuses with the wait until the next token', () => {
    const buckets = new TokenBuckets(60_000);
    const states = takeMany(buckets, 'a', 12, T0);
    expect(states.map((state) => state.allowed)).toEqual([...Array<boolean>(10).fill(true), false, false]);
    expect(states.map((state) => state.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0]);
    expect(states[10]).toEqual({ allowed: false, remaining: 0, secondsUntilFull: 5, retryAfterSeconds: 1 });
  });

  it('gives one token back every period / rate, never more than the burst', () => {
    const buckets = new TokenBuckets(60_000);
    takeMany(buckets, 'a', 10, T0);
    expect(buckets.take('a', SHAPE, T0 + 498).allowed).toBe(false);
    expect(buckets.take('a', SHAPE, T0 + 500).allowed).toBe(true);
    expect(buckets.take('a', SHAPE, T0 + 500).allowed).toBe(false);
    // An hour idle fills the bucket to the burst, not to 120 pushes.
    const later = takeMany(buckets, 'a', 11, T0 + 3600_000);
    expect(later.filter((state) => state.allowed)).toHaveLength(10);
  });

  it('holds a minute of steady pushes to the rate: 10 at once and one every 0.5 s, 129 in all', () => {
    const buckets = new TokenBuckets(60_000);
    let allowed = 0;
    for (let ms = 0; ms < 60_000; ms += 10) if (buckets.take('a', SHAPE, T0 + ms).allowed) allowed++;
    expect(allowed).toBe(10 + 119);
  });

  it('keeps keys apart', () => {
    const buckets = new TokenBuckets(60_000);
    takeMany(buckets, 'a', 10, T0);
    expect(buckets.take('a', SHAPE, T0).allowed).toBe(false);
    expect(buckets.take('b', SHAPE, T0)).toEqual({
      allowed: true,
      remaining: 9,
      secondsUntilFull: 1,
      retryAfterSeconds: 0,
    });
  });

  it('counts exactly when period / rate is no binary fraction', () => {
    const buckets = new TokenBuckets(60_000);
    const shape = { rate: 7, periodMs: 1000, burst: 3 };
    const first = Array.from({ length: 4 }, () => buckets.take('a', shape, T0).allowed);
    expect(first).toEqual([true, true, true, false]);
    let allowed = 0;
    for (let n = 1; n <= 700; n++) if (buckets.take('a', shape, T0 + (n * 1000) / 7).allowed) allowed++;
    expect(allowed).toBe(700);
  });
});
