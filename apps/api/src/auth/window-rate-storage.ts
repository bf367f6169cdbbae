import type { RedisClient } from '@zw/queue';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** Where a key stands in its window after a charge (or a look). */
export interface WindowState {
  /** Units counted in the window so far (refused ones included). */
  totalHits: number;
  /** Seconds until the window ends (at least 1). */
  resetSeconds: number;
  /** The charge took the key past its limit. */
  blocked: boolean;
}

/**
 * One fixed-window limit shared by every API process: rate-limiter-flexible's RateLimiterRedis (one
 * atomic INCRBY-and-PTTL script per charge, on a key of its own: cluster-safe), with a RateLimiterMemory
 * of the same shape as its insurance.
 *
 * Decision (Redis unavailable): fail open to this process's own count. While Redis is away each API
 * process enforces the limit by itself (N replicas allow up to N × the limit), as every replica did
 * before limits were shared; refusing every request instead would turn a Redis outage into an outage of
 * the whole query API, which needs Redis for nothing else.
 */
export class WindowLimiter {
  private readonly redisLimiter: RateLimiterRedis;

  constructor(
    redis: RedisClient,
    keyPrefix: string,
    readonly limit: number,
    readonly windowMs: number,
  ) {
    const duration = windowMs / 1000;
    this.redisLimiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points: limit,
      duration,
      // Fail over at once while the connection is down, not after ioredis' retries.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: limit, duration }),
      // A key past its limit is refused from this process's memory until its window ends: a flood of
      // refused requests costs no Redis round trips.
      inMemoryBlockOnConsumed: limit + 1,
    });
  }

  /** Counts `units` against `key`'s window. */
  async charge(key: string, units: number): Promise<WindowState> {
    try {
      return this.stateOf(await this.redisLimiter.consume(key, units), false);
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return this.stateOf(refusal, true);
      throw refusal;
    }
  }

  /** Counts `units` against `key`'s window without refusing anything. */
  async add(key: string, units: number): Promise<WindowState> {
    const result = await this.redisLimiter.penalty(key, units);
    return this.stateOf(result, result.consumedPoints > this.limit);
  }

  /** Where `key` stands now, counting nothing. */
  async peek(key: string): Promise<WindowState> {
    const result = await this.redisLimiter.get(key);
    if (!result) return { totalHits: 0, resetSeconds: Math.ceil(this.windowMs / 1000), blocked: false };
    return this.stateOf(result, result.consumedPoints > this.limit);
  }

  private stateOf(result: RateLimiterRes, blocked: boolean): WindowState {
    return {
      // A refusal from the in-memory block reports no count: the key is past its limit.
      totalHits: blocked ? Math.max(result.consumedPoints, this.limit + 1) : result.consumedPoints,
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
      blocked,
    };
  }
}

/**
 * The API processes' shared rate-limit storage, for every limiter that counts requests in windows (the
 * per-key limit of ApiKeyRateLimitGuard, GraphQL's cost charges, the per-address throttle of refused
 * credentials): keys live in Redis under `<QUEUE_PREFIX>:limits:<limiter>:<shape>:<key>`, each a slot of its own
 * in a cluster (no hash tag: every command touches one key).
 */
export class WindowRateStorage {
  private readonly limiters = new Map<string, WindowLimiter>();

  constructor(
    private readonly redis: RedisClient,
    private readonly queuePrefix: string,
  ) {}

  /**
   * The limiter named `name` of this shape. Its counters' keys name the shape too, so windows of another
   * shape never share a count (processes of a rolling update that changes a limit count apart until the
   * old ones are gone, each against its own limit).
   */
  limiter(name: string, limit: number, windowMs: number): WindowLimiter {
    const keyPrefix = `${this.queuePrefix}:limits:${name}:${limit}/${windowMs / 1000}s`;
    let limiter = this.limiters.get(keyPrefix);
    if (!limiter) {
      limiter = new WindowLimiter(this.redis, keyPrefix, limit, windowMs);
      this.limiters.set(keyPrefix, limiter);
    }
    return limiter;
  }
}
