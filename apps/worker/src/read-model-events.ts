import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { WorkerConfig } from './config.js';
import { WORKER_CONFIG } from './worker-config.token.js';
import { WORKER_REDIS } from './worker-redis.js';

/**
 * Tells the API processes that a cluster's read model changed (a snapshot was recorded, history pruned),
 * so they drop what they cached about it. Channel `<QUEUE_PREFIX>:zw-read-model`, message
 * `{"clusterId": "…"}`; apps/api/src/cache/read-model-events.ts listens on the same (the cache test checks
 * the two agree, end to end). Best effort: a lost message is bounded by the API cache's TTL.
 */
const LIVE_EVENTS_KEPT = 10_000;

export type LiveEventType = 'snapshot.recorded' | 'report.ready' | 'cluster.stale' | 'cluster.fresh';

/**
 * Flips a field of a guard hash to the wanted state (present or absent) and appends the event, in one
 * atomic step; nothing when the field already is in that state. So however many workers see the same
 * transition, and whenever they restart, it is announced once.
 */
const TRANSITION_SCRIPT = `
local present = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
local wanted = ARGV[2] == '1'
if present == wanted then return 0 end
if wanted then redis.call('HSET', KEYS[1], ARGV[1], ARGV[6]) else redis.call('HDEL', KEYS[1], ARGV[1]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'type', ARGV[4], 'data', ARGV[5])
return 1`;

@Injectable()
export class ReadModelPublisher {
  private readonly logger = new Logger('ReadModelEvents');
  private readonly channel: string;
  private readonly stream: string;
  private readonly prefix: string;

  constructor(
    @Inject(WORKER_REDIS) private readonly redis: Redis,
    @Inject(WORKER_CONFIG) config: WorkerConfig,
  ) {
    this.prefix = config.QUEUE_PREFIX;
    this.channel = `${config.QUEUE_PREFIX}:zw-read-model`;
    this.stream = `${config.QUEUE_PREFIX}:zw-events`;
  }

  /**
   * An event for clients watching their organization (`GET /v1/events` reads this Redis stream, so a
   * client that reconnects with Last-Event-ID gets what it missed). The stream keeps about the newest
   * LIVE_EVENTS_KEPT entries. Best effort, like the cache messages: a lost one only delays a refresh.
   */
  liveEvent(
    type: LiveEventType,
    fields: { clusterId?: string; organizationId?: string } & Record<string, string>,
  ): void {
    this.redis
      .xadd(this.stream, 'MAXLEN', '~', String(LIVE_EVENTS_KEPT), '*', 'type', type, 'data', JSON.stringify(fields))
      .catch((error: unknown) => this.logger.warn(`could not publish a live event: ${String(error)}`));
  }

  /**
   * A live event for a state change, appended only by the caller that records the change: `field` of the
   * guard hash `<QUEUE_PREFIX>:<guard>` is set (`entered` true) or removed, atomically with the append.
   * Resolves true when this call announced it. Unlike liveEvent, a failure rejects (the caller retries
   * at its next round).
   */
  async liveEventOnTransition(
    guard: string,
    field: string,
    entered: boolean,
    type: LiveEventType,
    fields: { clusterId?: string; organizationId?: string } & Record<string, string | number>,
  ): Promise<boolean> {
    const announced = await this.redis.eval(
      TRANSITION_SCRIPT,
      2,
      this.guardKey(guard),
      this.stream,
      field,
      entered ? '1' : '0',
      String(LIVE_EVENTS_KEPT),
      type,
      JSON.stringify(fields),
      new Date().toISOString(),
    );
    return announced === 1;
  }

  /** The fields of a guard hash: what is in the entered state now. */
  async transitionFields(guard: string): Promise<string[]> {
    return this.redis.hkeys(this.guardKey(guard));
  }

  /** Forgets fields of a guard hash (their subject is gone) without announcing anything. */
  async forgetTransitions(guard: string, fields: readonly string[]): Promise<void> {
    if (fields.length > 0) await this.redis.hdel(this.guardKey(guard), ...fields);
  }

  private guardKey(guard: string): string {
    return `${this.prefix}:${guard}`;
  }

  clusterChanged(clusterId: string): void {
    this.redis
      .publish(this.channel, JSON.stringify({ clusterId }))
      .catch((error: unknown) => this.logger.warn(`could not publish a read-model change: ${String(error)}`));
  }
}
