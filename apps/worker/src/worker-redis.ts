import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { redisConnectionFromUrl } from '@zw/queue';
import { Redis } from 'ioredis';
import type { WorkerConfig } from './config.js';
import { WORKER_CONFIG } from './worker-config.token.js';

/** The worker's own Redis connection (BullMQ keeps its own): job metrics and read-model change events. */
export const WORKER_REDIS = Symbol('WORKER_REDIS');

export const workerRedisProvider: Provider = {
  provide: WORKER_REDIS,
  inject: [WORKER_CONFIG],
  useFactory: (config: WorkerConfig) =>
    // BullMQ's own connections report Redis outages; failures here are logged where they matter.
    new Redis({ ...redisConnectionFromUrl(config.REDIS_URL), maxRetriesPerRequest: 1 }).on('error', () => undefined),
};

@Injectable()
export class WorkerRedisCloser implements OnApplicationShutdown {
  constructor(@Inject(WORKER_REDIS) private readonly redis: Redis) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
