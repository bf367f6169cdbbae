/** Where a key stands after a request was counted or refused. */
export interface BucketState {
  allowed: boolean;
  /** Requests the key could make at once now. */
  remaining: number;
  /** Seconds until the bucket is full again (every request allowed at once). */
  secondsUntilFull: number;
  /** When refused: seconds until the next request is allowed (at least 1). */
  retryAfterSeconds: number;
}

interface BucketShape {
  /** Requests allowed per `periodMs` over time. */
  rate: number;
  periodMs: number;
  /** Requests allowed back to back from a full bucket. */
  burst: number;
}

/**
 * Slack for instants summed from a period / rate that binary fractions cannot hold exactly (a float8
 * count of milliseconds since 1970 keeps about 0.0002 ms, and the error adds up over a key's pushes):
 * one millisecond, Date.now()'s resolution. It moves the threshold only; each request still owes its
 * whole interval, so the slack never adds up to more requests.
 */
const ROUNDING_MS = 1;

/**
 * Token buckets per key, as the generic cell rate algorithm keeps them: one instant per key (when the
 * bucket is next full), so a request costs one map lookup and a comparison.
 *
 * Decision: a fixed window (WindowRateStorage) lets a key make its whole minute's allowance in the
 * minute's first second, and twice it across a window's edge; for ingest, where each request is a
 * snapshot the worker then analyses and writes, that burst is what one tenant's agents could use to take
 * the machine from another's reads. A bucket spreads the same allowance over the period and bounds the
 * burst. @nestjs/throttler and rate-limiter-flexible count fixed windows only, hence these few lines.
 */
export class TokenBuckets {
  /** Per key: the instant (ms) at which its bucket is full again. */
  private readonly fullAt = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs: number) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  /** Takes one request from `key`'s bucket when it holds one. */
  take(key: string, { rate, periodMs, burst }: BucketShape, now = Date.now()): BucketState {
    const interval = periodMs / rate;
    const capacityMs = burst * interval;
    const fullAt = Math.max(this.fullAt.get(key) ?? now, now);
    const after = fullAt + interval;
    const allowed = after - now <= capacityMs + ROUNDING_MS;
    if (allowed) this.fullAt.set(key, after);
    const owed = (allowed ? after : fullAt) - now;
    return {
      allowed,
      remaining: Math.max(0, Math.floor((capacityMs - owed + ROUNDING_MS) / interval)),
      secondsUntilFull: Math.ceil(owed / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((after - capacityMs - now) / 1000)),
    };
  }

  /** Forgets keys whose bucket is full (keys that stopped calling). */
  private sweep(): void {
    const now = Date.now();
    for (const [key, fullAt] of this.fullAt) if (fullAt <= now) this.fullAt.delete(key);
  }
}
