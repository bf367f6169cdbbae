import type { RedisClient } from '@zw/queue';

/** Where a key stands after a request was counted or refused. */
export interface BucketState {
  allowed: boolean;
  /** Requests the key could make at once now. */
  remaining: number;
  /** Seconds until the bucket is full again (every request allowed at once). */
  secondsUntilFull: number;
  /** Seconds until the next token drips in (0 when the bucket is full). */
  secondsUntilNext: number;
  /** When refused: seconds until the next request is allowed (at least 1). */
  retryAfterSeconds: number;
}

export interface BucketShape {
  /** Requests allowed per `periodMs` over time. */
  rate: number;
  periodMs: number;
  /** Requests allowed back to back from a full bucket. */
  burst: number;
}

/**
 * Slack for instants summed from a period / rate that binary fractions cannot hold exactly (a double
 * count of milliseconds since 1970 keeps about 0.0002 ms, and the error adds up over a key's pushes):
 * one millisecond. It moves the threshold only; each request still owes its whole interval, so the
 * slack never adds up to more requests.
 */
const ROUNDING_MS = 1;
/** Buckets one process keeps while Redis is away (full ones are forgotten first). */
const MAX_LOCAL_BUCKETS = 100_000;

/**
 * The generic cell rate algorithm on one Redis key per bucket: the key holds the instant (ms, Redis's
 * clock, so every API process agrees) at which the bucket is full again. A request is allowed when
 * owing one more interval keeps that instant within the burst's span of now. Returns the instant before
 * and after, and now, as strings (Lua's own number formatting keeps 14 digits, too few for ms since 1970).
 * ARGV[4], when given, is "now" (tests replay a schedule of instants).
 */
const GCRA_SCRIPT = `
local now
if ARGV[4] and ARGV[4] ~= '' then now = tonumber(ARGV[4]) else
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local interval = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local fullAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if fullAt < now then fullAt = now end
local after = fullAt + interval
local allowed = 0
if after - now <= capacity + tonumber(ARGV[3]) then
  allowed = 1
  redis.call('SET', KEYS[1], string.format('%.4f', after), 'PX', math.ceil(after - now) + 1000)
end
return { allowed, string.format('%.4f', fullAt), string.format('%.4f', after), string.format('%.4f', now) }`;

interface GcraCommander {
  zwGcraTake(key: string, intervalMs: string, capacityMs: string, roundingMs: string, now: string): Promise<unknown>;
}

/**
 * Token buckets per key, shared by every API process: one Redis key and one script call per request.
 *
 * Decision: not rate-limiter-flexible, whose limiters count fixed windows of whole seconds. Its closest
 * shape, a RateLimiterUnion of a rate window and a burst window, was measured against this bucket on the
 * real Redis (12 pushes per 6 s, burst 5, a client retrying every 10 ms for 12 s): the union let 10 pushes
 * through, since each refused attempt also counts against both windows (RLF counts before it refuses),
 * where the bucket let 28 (5 at once, then one per 0.5 s); and the burst's 2.5 s span must round to a
 * whole-second window. For ingest, where each request is a snapshot the worker analyses and writes, a
 * limit that spreads the allowance over the period and bounds the burst is the point, hence this script.
 */
export class TokenBuckets {
  /** While Redis is away: per key, the instant (ms) at which this process's bucket is full again. */
  private readonly fullAtHere = new Map<string, number>();

  constructor(private readonly redis: RedisClient) {
    redis.defineCommand('zwGcraTake', { numberOfKeys: 1, lua: GCRA_SCRIPT });
  }

  /**
   * Takes one request from `key`'s bucket when it holds one. While Redis does not answer, this process's
   * own bucket of the same shape decides (see IngestRateLimitGuard).
   */
  async take(key: string, shape: BucketShape, now?: number): Promise<BucketState> {
    const interval = shape.periodMs / shape.rate;
    const capacityMs = shape.burst * interval;
    let instants: { allowed: boolean; fullAt: number; after: number; at: number };
    try {
      const reply = (await (this.redis as unknown as GcraCommander).zwGcraTake(
        key,
        String(interval),
        String(capacityMs),
        String(ROUNDING_MS),
        now === undefined ? '' : String(now),
      )) as [number, string, string, string];
      instants = { allowed: reply[0] === 1, fullAt: Number(reply[1]), after: Number(reply[2]), at: Number(reply[3]) };
    } catch {
      instants = this.takeHere(key, interval, capacityMs, now ?? Date.now());
    }
    return stateOf(instants, interval, capacityMs);
  }

  /** The same algorithm on this process's memory (while Redis is away). */
  private takeHere(key: string, interval: number, capacityMs: number, at: number) {
    const fullAt = Math.max(this.fullAtHere.get(key) ?? at, at);
    const after = fullAt + interval;
    const allowed = after - at <= capacityMs + ROUNDING_MS;
    if (allowed) {
      if (this.fullAtHere.size >= MAX_LOCAL_BUCKETS) this.forgetFullBuckets(at);
      this.fullAtHere.set(key, after);
    }
    return { allowed, fullAt, after, at };
  }

  private forgetFullBuckets(now: number): void {
    for (const [key, fullAt] of this.fullAtHere) if (fullAt <= now) this.fullAtHere.delete(key);
    if (this.fullAtHere.size >= MAX_LOCAL_BUCKETS) this.fullAtHere.clear();
  }
}

function stateOf(
  { allowed, fullAt, after, at }: { allowed: boolean; fullAt: number; after: number; at: number },
  interval: number,
  capacityMs: number,
): BucketState {
  const owed = (allowed ? after : fullAt) - at;
  return {
    allowed,
    remaining: Math.max(0, Math.floor((capacityMs - owed + ROUNDING_MS) / interval)),
    secondsUntilFull: Math.ceil(owed / 1000),
    secondsUntilNext: owed <= 0 ? 0 : Math.ceil((owed % interval || interval) / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((after - capacityMs - at) / 1000)),
  };
}
