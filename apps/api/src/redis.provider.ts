import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { redisConnectionFromUrl } from '@zw/queue';
import { Redis } from 'ioredis';
import type { ApiConfig } from './config.js';

/** The API's own Redis connection for readiness checks and metrics (BullMQ keeps its own). */
export const API_REDIS = Symbol('API_REDIS');

export const apiRedisProvider: Provider = {
  provide: API_REDIS,
  inject: [ConfigService],
  useFactory: (config: ConfigService<ApiConfig, true>) =>
    new Redis({
      ...redisConnectionFromUrl(config.get('REDIS_URL', { infer: true })),
      // Fail fast while Redis is down, so /readyz answers 503 instead of waiting for a reconnect.
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    }).on('error', () => undefined),
};

@Injectable()
export class ApiRedisCloser implements OnApplicationShutdown {
  constructor(@Inject(API_REDIS) private readonly redis: Redis) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
