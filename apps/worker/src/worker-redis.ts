import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { closeBullConnections, createRedisClient, type RedisClient } from '@zw/queue';
import type { WorkerConfig } from './config.js';
import { WORKER_CONFIG } from './worker-config.token.js';

/** The worker's own Redis connection (BullMQ keeps its own): job metrics and live events. */
export const WORKER_REDIS = Symbol('WORKER_REDIS');

export const workerRedisProvider: Provider = {
  provide: WORKER_REDIS,
  inject: [WORKER_CONFIG],
  useFactory: (config: WorkerConfig) =>
    // BullMQ's own connections report Redis outages; failures here are logged where they matter.
    createRedisClient(config.REDIS_URL, { maxRetriesPerRequest: 1 }).on('error', () => undefined),
};

@Injectable()
export class WorkerRedisCloser implements OnApplicationShutdown {
  constructor(@Inject(WORKER_REDIS) private readonly redis: RedisClient) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}

/** Closes the cluster clients BullMQ shared (in the root module: after the queues and workers closed). */
@Injectable()
export class BullConnectionsCloser implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await closeBullConnections();
  }
}
