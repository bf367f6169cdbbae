import { Inject, Injectable, Module, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { closeBullConnections, createRedisClient, type RedisClient } from '@zw/queue';
import type { ApiConfig } from './config.js';

/**
 * The API's own Redis connection (BullMQ keeps its own): readiness checks, metrics, the shared rate
 * limits, stream caps and heavy-read budget. A single server's or a cluster's (REDIS_URL).
 */
export const API_REDIS = Symbol('API_REDIS');

export const apiRedisProvider: Provider = {
  provide: API_REDIS,
  inject: [ConfigService],
  useFactory: (config: ConfigService<ApiConfig, true>) =>
    createRedisClient(config.get('REDIS_URL', { infer: true }), {
      // Fail fast while Redis is down, so /readyz answers 503 instead of waiting for a reconnect.
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    }).on('error', () => undefined),
};

@Injectable()
export class ApiRedisCloser implements OnApplicationShutdown {
  constructor(@Inject(API_REDIS) private readonly redis: RedisClient) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}

/** One API Redis connection per process, for every module that needs it. */
@Module({ providers: [apiRedisProvider, ApiRedisCloser], exports: [API_REDIS] })
export class ApiRedisModule {}

/** Closes the cluster clients BullMQ shared (in the root module: after the queues closed). */
@Injectable()
export class BullConnectionsCloser implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await closeBullConnections();
  }
}
