import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ServerResponse } from 'node:http';
import type { ApiConfig } from '../config.js';
import { type CallerRequest, httpOf } from './caller.js';
import { rateLimitHeaders, type RateLimitStanding, tooManyRequests } from './rate-limit-headers.js';
import { clientAddressOf } from './unauthenticated-throttle.js';
import { type WindowLimiter, WindowRateStorage } from './window-rate-storage.js';

export { rateLimitHeaders, type RateLimitStanding } from './rate-limit-headers.js';

/**
 * Rate limits per API key, over all routes together and over every API process (the counts live in
 * Redis: N replicas enforce one limit). Runs after ApiKeyGuard, so the key is known. Every answer carries
 * `X-RateLimit-Limit`, `-Remaining`, `-Reset` (seconds until the window ends) and the IETF draft's
 * `RateLimit-Policy` / `RateLimit`; a 429 also `Retry-After`.
 *
 * Decision: one Redis round trip per request (an atomic INCRBY script, ~0.1 ms on a local Redis; see
 * bench/RESULTS.md), and none for a key already over its limit (refused from memory until its window
 * ends). While Redis is away, each process counts on its own (WindowLimiter's insurance).
 */
@Injectable()
export class ApiKeyRateLimitGuard implements CanActivate {
  private readonly limiter: WindowLimiter;

  constructor(
    @Inject(WindowRateStorage) storage: WindowRateStorage,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.limiter = storage.limiter(
      'api-key',
      config.get('RATE_LIMIT_REQUESTS', { infer: true }),
      config.get('RATE_LIMIT_WINDOW_MS', { infer: true }),
    );
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { request, response } = httpOf(context);
    const caller = (request as CallerRequest).caller;
    await this.charge(caller ? caller.principalId : `ip:${clientAddressOf(request)}`, 1, response);
    return true;
  }

  /**
   * Charges `units` requests' worth to a caller (`principalId`: an API key, a person, a token; GraphQL charges a query's computed cost): sets the
   * headers on `response`, throws the 429 problem when the key is over its limit.
   */
  async chargeKey(principalId: string, units: number, response: ServerResponse): Promise<void> {
    await this.charge(principalId, units, response);
  }

  private async charge(key: string, units: number, response: ServerResponse): Promise<void> {
    const state = await this.limiter.charge(key, units);
    const { limit, windowMs } = this.limiter;
    const windowSeconds = Math.round(windowMs / 1000);
    const standing: RateLimitStanding = {
      policy: 'api-key',
      limit,
      windowSeconds,
      remaining: Math.max(0, limit - state.totalHits),
      resetSeconds: state.resetSeconds,
      retryAfterSeconds: state.blocked ? state.resetSeconds : null,
    };
    if (state.blocked) {
      throw tooManyRequests(
        standing,
        `rate limit exceeded: this API key may make ${limit} requests per ${windowSeconds} s`,
        { windowSeconds },
      );
    }
    for (const [name, value] of Object.entries(rateLimitHeaders(standing))) response.setHeader(name, value);
  }
}
