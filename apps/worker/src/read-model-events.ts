import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  isClusterUrl,
  legacyLiveEventKeys,
  LIVE_EVENTS_KEPT,
  liveEventsGuardKey,
  liveEventsStreamKey,
  type LiveEventSubject,
  type LiveEventType,
  type RedisClient,
} from '@zw/queue';
import type { WorkerConfig } from './config.js';
import { WORKER_CONFIG } from './worker-config.token.js';
import { WORKER_REDIS } from './worker-redis.js';

export type { LiveEventType } from '@zw/queue';

/** The guard hashes beside the stream (AgentStalenessService's). */
export const LIVE_EVENT_GUARDS = ['zw-stale-clusters'] as const;

/**
 * Flips a field of a guard hash to the wanted state (present or absent) and appends the event, in one
 * atomic step; nothing when the field already is in that state. So however many workers see the same
 * transition, and whenever they restart, it is announced once. Both keys share the `{events}` hash tag
 * (one cluster slot).
 */
const TRANSITION_SCRIPT = `
local present = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
local wanted = ARGV[2] == '1'
if present == wanted then return 0 end
if wanted then redis.call('HSET', KEYS[1], ARGV[1], ARGV[6]) else redis.call('HDEL', KEYS[1], ARGV[1]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'type', ARGV[4], 'data', ARGV[5])
return 1`;

/**
 * Appends live events to the deployment's Redis stream (`<QUEUE_PREFIX>:{events}:stream`): the ones
 * clients see on `GET /v1/events`, and `read-model.changed`, by which every API process drops what it
 * cached about a cluster (a recorded snapshot's `snapshot.recorded` does the same). The API processes read
 * the stream from where they were, so a change is not lost while one reconnects. Best effort: a lost
 * append only delays a refresh (the cache's TTL bounds it).
 */
@Injectable()
export class ReadModelPublisher implements OnModuleInit {
  private readonly logger = new Logger('ReadModelEvents');
  private readonly stream: string;
  private readonly prefix: string;
  private readonly cluster: boolean;

  constructor(
    @Inject(WORKER_REDIS) private readonly redis: RedisClient,
    @Inject(WORKER_CONFIG) config: WorkerConfig,
  ) {
    this.prefix = config.QUEUE_PREFIX;
    this.stream = liveEventsStreamKey(config.QUEUE_PREFIX);
    this.cluster = isClusterUrl(config.REDIS_URL);
  }

  /**
   * Keys of a deployment from before the stream's hash tag are renamed once (single server only; a
   * cluster deployment never had them): clients keep their Last-Event-ID, stale clusters stay announced.
   */
  async onModuleInit(): Promise<void> {
    if (this.cluster) return;
    for (const [legacy, current] of legacyLiveEventKeys(this.prefix, LIVE_EVENT_GUARDS)) {
      await this.redis.renamenx(legacy, current).catch((error: unknown) => {
        if (!/no such key/i.test(String(error))) this.logger.warn(`could not rename ${legacy}: ${String(error)}`);
      });
    }
  }

  /**
   * An event for clients watching their organization. The stream keeps about the newest LIVE_EVENTS_KEPT
   * entries. Best effort: a lost one only delays a refresh.
   */
  liveEvent(type: LiveEventType, fields: LiveEventSubject & Record<string, string>): void {
    this.redis
      .xadd(this.stream, 'MAXLEN', '~', String(LIVE_EVENTS_KEPT), '*', 'type', type, 'data', JSON.stringify(fields))
      .catch((error: unknown) => this.logger.warn(`could not publish a live event: ${String(error)}`));
  }

  /**
   * A live event for a state change, appended only by the caller that records the change: `field` of the
   * guard hash is set (`entered` true) or removed, atomically with the append. Resolves true when this
   * call announced it. Unlike liveEvent, a failure rejects (the caller retries at its next round).
   */
  async liveEventOnTransition(
    guard: string,
    field: string,
    entered: boolean,
    type: LiveEventType,
    fields: LiveEventSubject & Record<string, string | number>,
  ): Promise<boolean> {
    const announced = await this.redis.eval(
      TRANSITION_SCRIPT,
      2,
      liveEventsGuardKey(this.prefix, guard),
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
    return this.redis.hkeys(liveEventsGuardKey(this.prefix, guard));
  }

  /** Forgets fields of a guard hash (their subject is gone) without announcing anything. */
  async forgetTransitions(guard: string, fields: readonly string[]): Promise<void> {
    if (fields.length > 0) await this.redis.hdel(liveEventsGuardKey(this.prefix, guard), ...fields);
  }

  /** A cluster's read model changed (history pruned, traffic measured): every API process drops its answers. */
  clusterChanged(clusterId: string): void {
    this.liveEvent('read-model.changed', { clusterId });
  }
}
