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

@Injectable()
export class ReadModelPublisher {
  private readonly logger = new Logger('ReadModelEvents');
  private readonly channel: string;
  private readonly stream: string;

  constructor(
    @Inject(WORKER_REDIS) private readonly redis: Redis,
    @Inject(WORKER_CONFIG) config: WorkerConfig,
  ) {
    this.channel = `${config.QUEUE_PREFIX}:zw-read-model`;
    this.stream = `${config.QUEUE_PREFIX}:zw-events`;
  }

  /**
   * An event for clients watching their organization (`GET /v1/events` reads this Redis stream, so a
   * client that reconnects with Last-Event-ID gets what it missed). The stream keeps about the newest
   * LIVE_EVENTS_KEPT entries. Best effort, like the cache messages: a lost one only delays a refresh.
   */
  liveEvent(
    type: 'snapshot.recorded' | 'report.ready',
    fields: { clusterId?: string; organizationId?: string } & Record<string, string>,
  ): void {
    this.redis
      .xadd(this.stream, 'MAXLEN', '~', String(LIVE_EVENTS_KEPT), '*', 'type', type, 'data', JSON.stringify(fields))
      .catch((error: unknown) => this.logger.warn(`could not publish a live event: ${String(error)}`));
  }

  clusterChanged(clusterId: string): void {
    this.redis
      .publish(this.channel, JSON.stringify({ clusterId }))
      .catch((error: unknown) => this.logger.warn(`could not publish a read-model change: ${String(error)}`));
  }
}
