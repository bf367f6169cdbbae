import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { RedisClient } from '@zw/queue';
import type { ApiConfig } from '../config.js';
import { API_REDIS, ApiRedisModule } from '../redis.provider.js';
import { TokenBuckets } from './token-buckets.js';
import { UnauthenticatedThrottle } from './unauthenticated-throttle.js';
import { WindowRateStorage } from './window-rate-storage.js';

/**
 * The API processes' shared rate-limit storage, in Redis, for every limiter: windows (the per-key limit of
 * ApiKeyRateLimitGuard, GraphQL's cost charges, the per-address throttle of refused credentials, and any
 * other: inject WindowRateStorage and name a limiter of your own) and token buckets (ingest).
 */
@Module({
  imports: [ApiRedisModule],
  providers: [
    {
      provide: WindowRateStorage,
      inject: [API_REDIS, ConfigService],
      useFactory: (redis: RedisClient, config: ConfigService<ApiConfig, true>) =>
        new WindowRateStorage(redis, config.get('QUEUE_PREFIX', { infer: true })),
    },
    { provide: TokenBuckets, inject: [API_REDIS], useFactory: (redis: RedisClient) => new TokenBuckets(redis) },
    UnauthenticatedThrottle,
  ],
  exports: [WindowRateStorage, TokenBuckets, UnauthenticatedThrottle],
})
export class RateStorageModule {}
