import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { ProblemException } from '../problem.js';
import { type CallerRequest, httpOf } from './caller.js';

/**
 * Rate limits per API key, over all routes together (ThrottlerGuard's default is per route and per IP).
 * Runs after ApiKeyGuard, so the key is known. Over the limit: 429 problem with Retry-After (seconds).
 *
 * Decision: counts live in each API process's memory (the throttler's default storage). With several API
 * replicas a key may make up to replicas × the limit; exact global limits would cost a Redis round trip
 * per request, which this API's latency target does not leave room for.
 */
@Injectable()
export class ApiKeyRateLimitGuard extends ThrottlerGuard {
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const caller = (request as unknown as CallerRequest).caller;
    return caller ? `key:${caller.keyId}` : `ip:${String(request.ip)}`;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `${name}:${tracker}`;
  }

  protected override getRequestResponse(context: ExecutionContext) {
    const { request, response } = httpOf(context);
    return { req: request as unknown as Record<string, unknown>, res: response as unknown as Record<string, unknown> };
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const retryAfter = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    throw new ProblemException(
      429,
      `rate limit exceeded: this API key may make ${detail.limit} requests per ${Math.round(detail.ttl / 1000)} s; retry in ${retryAfter} s`,
      { limit: detail.limit, windowSeconds: Math.round(detail.ttl / 1000), retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}
