import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type RedisClient, taggedKey } from '@zw/queue';
import { randomUUID } from 'node:crypto';
import { type RateLimitStanding, tooManyRequests } from '../auth/rate-limit-headers.js';
import type { Caller } from '../auth/caller.js';
import type { ApiConfig } from '../config.js';
import { DependencyUnavailable } from '../http/dependency-outage.js';
import { API_REDIS } from '../redis.provider.js';

/** How long a stream's place is held without renewal: a process that died frees its places within it. */
const LEASE_MS = 30_000;
/** How often a process renews the places of its open streams. */
const RENEW_EVERY_MS = 10_000;
/** What a refused client is asked to wait: long enough for one of the open streams to end, or a lease. */
const RETRY_AFTER_SECONDS = 30;

/**
 * Takes a place for one stream in the organization's set and the key's set at once, or none: drops
 * expired places (their process stopped renewing), refuses when either set is full, else adds the stream
 * to both with its lease's end. Returns {1} or {0, 'key'|'organization', open streams of that set}.
 * Both keys carry the organization's hash tag (one cluster slot).
 */
const ACQUIRE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local byKey = redis.call('ZCARD', KEYS[2])
if byKey >= tonumber(ARGV[3]) then return {0, 'key', byKey} end
local byOrganization = redis.call('ZCARD', KEYS[1])
if byOrganization >= tonumber(ARGV[2]) then return {0, 'organization', byOrganization} end
local lease = tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease)
redis.call('PEXPIRE', KEYS[2], lease)
return {1}`;

/** Extends the lease of one stream's place in both sets (re-adding it if it had expired meanwhile). */
const RENEW_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[2])
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now + lease, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], lease)
end
return 1`;

interface StreamCapsCommander {
  zwStreamAcquire(
    orgKey: string,
    keyKey: string,
    member: string,
    ...limits: string[]
  ): Promise<[number, string?, number?]>;
  zwStreamRenew(orgKey: string, keyKey: string, member: string, leaseMs: string): Promise<number>;
}

/** One open stream's place, to give back when it ends. */
export interface StreamPlace {
  release(): Promise<void>;
}

/**
 * Caps on concurrent SSE streams (`GET /v1/events`) per caller (an API key, a signed-in person, a bearer
 * token: its principal) and per organization, over every API process: each open stream holds a place,
 * with a lease its process renews, in two Redis sorted sets (`<QUEUE_PREFIX>:{sse:<organization>}:organization`
 * and `…:caller:<principal>`). Past either cap the request
 * is answered 429 with `Retry-After` and the rate-limit fields, before anything is streamed.
 *
 * Decision: a place is a lease (LEASE_MS, renewed every RENEW_EVERY_MS by one timer per process for all
 * its streams), so the places of a process that died free themselves. Not a library: rate-limiter-flexible
 * counts requests per window, not requests open at once, and redis-semaphore renews each lock on a timer
 * of its own (two per stream here); one script takes both places atomically.
 *
 * Decision (Redis unavailable): fail closed (503, as the stream itself needs Redis).
 */
@Injectable()
export class StreamCaps implements OnApplicationShutdown {
  private readonly prefix: string;
  readonly perKey: number;
  readonly perOrganization: number;
  /** This process's open streams: member → its two sets. */
  private readonly open = new Map<string, [string, string]>();
  private readonly renewer: NodeJS.Timeout;

  constructor(
    @Inject(API_REDIS) private readonly redis: RedisClient,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.prefix = config.get('QUEUE_PREFIX', { infer: true });
    this.perKey = config.get('EVENTS_MAX_STREAMS_PER_KEY', { infer: true });
    this.perOrganization = config.get('EVENTS_MAX_STREAMS_PER_ORGANIZATION', { infer: true });
    redis.defineCommand('zwStreamAcquire', { numberOfKeys: 2, lua: ACQUIRE_SCRIPT });
    redis.defineCommand('zwStreamRenew', { numberOfKeys: 2, lua: RENEW_SCRIPT });
    this.renewer = setInterval(() => void this.renewAll(), RENEW_EVERY_MS);
    this.renewer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.renewer);
  }

  /** A place for one more stream of `caller`, or the 429 problem naming the cap reached. */
  async acquire(caller: Caller): Promise<StreamPlace> {
    const sets = this.setsOf(caller);
    const member = randomUUID();
    let reply: [number, string?, number?];
    try {
      reply = await this.commands.zwStreamAcquire(
        ...sets,
        member,
        String(this.perOrganization),
        String(this.perKey),
        String(LEASE_MS),
      );
    } catch (error) {
      throw new DependencyUnavailable('queue', `stream caps cannot be read from Redis: ${String(error)}`);
    }
    if (reply[0] !== 1) throw this.refusal(reply[1] === 'key' ? 'key' : 'organization');
    this.open.set(member, sets);
    return {
      release: async () => {
        if (!this.open.delete(member)) return;
        await Promise.all(sets.map((set) => this.redis.zrem(set, member))).catch(() => undefined);
      },
    };
  }

  private get commands(): StreamCapsCommander {
    return this.redis as unknown as StreamCapsCommander;
  }

  private setsOf(caller: Caller): [string, string] {
    const group = `sse:${caller.organizationId}`;
    return [taggedKey(this.prefix, group, 'organization'), taggedKey(this.prefix, group, 'caller', caller.principalId)];
  }

  private async renewAll(): Promise<void> {
    await Promise.all(
      [...this.open].map(([member, sets]) =>
        this.commands.zwStreamRenew(...sets, member, String(LEASE_MS)).catch(() => undefined),
      ),
    );
  }

  private refusal(cap: 'key' | 'organization') {
    const limit = cap === 'key' ? this.perKey : this.perOrganization;
    const standing: RateLimitStanding = {
      policy: cap === 'key' ? 'event-streams-per-key' : 'event-streams-per-organization',
      limit,
      concurrent: true,
      remaining: 0,
      resetSeconds: RETRY_AFTER_SECONDS,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    };
    const variable = cap === 'key' ? 'EVENTS_MAX_STREAMS_PER_KEY' : 'EVENTS_MAX_STREAMS_PER_ORGANIZATION';
    return tooManyRequests(
      standing,
      `too many open event streams: this ${cap === 'key' ? 'API key' : 'organization'} may hold ${limit} open together, set by ${variable}; close one first`,
      { concurrentLimit: limit, cap },
    );
  }
}
