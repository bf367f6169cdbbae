import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ApiConfig } from '../config.js';
import { UnauthenticatedThrottle } from './unauthenticated-throttle.js';
import { WindowRateStorage } from './window-rate-storage.js';

/**
 * The API process's one rate-limit storage, for every limiter that counts requests in windows (the
 * per-key limit of ApiKeyRateLimitGuard, GraphQL's cost charges, the per-address throttle of requests
 * without a valid credential, and any other limiter): inject WindowRateStorage and use keys of your own.
 */
@Module({
  providers: [
    {
      provide: WindowRateStorage,
      inject: [ConfigService],
      useFactory: (config: ConfigService<ApiConfig, true>) =>
        new WindowRateStorage(config.get('RATE_LIMIT_WINDOW_MS', { infer: true })),
    },
    UnauthenticatedThrottle,
  ],
  exports: [WindowRateStorage, UnauthenticatedThrottle],
})
export class RateStorageModule {}
