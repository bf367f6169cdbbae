import { Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerRequest } from '@nestjs/throttler';
import type { ServerResponse } from 'node:http';
import { ProblemException } from '../problem.js';
import { type CallerRequest, httpOf } from './caller.js';
import { type WindowState, type WindowRateStorage } from './window-rate-storage.js';

/** Where a caller stands against a limit, as every limiter's answers report it. */
export interface RateLimitStanding {
  limit: number;
  remaining: number;
  /** Seconds until the whole limit is available again. */
  resetSeconds: number;
  /** Seconds to wait when refused; null when allowed. */
  retryAfterSeconds: number | null;
}

/** The `X-RateLimit-*` headers of an answer (and `Retry-After` when refused). */
export function rateLimitHeaders(standing: RateLimitStanding): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(standing.limit),
    'X-RateLimit-Remaining': String(standing.remaining),
    'X-RateLimit-Reset': String(standing.resetSeconds),
    ...(standing.retryAfterSeconds === null ? {} : { 'Retry-After': String(standing.retryAfterSeconds) }),
  };
}

/** A window's count as a standing against `limit`. */
function windowStanding(limit: number, state: WindowState): RateLimitStanding {
  return {
    limit,
    remaining: Math.max(0, limit - state.totalHits),
    resetSeconds: state.timeToExpire,
    retryAfterSeconds: state.isBlocked ? Math.max(1, state.timeToBlockExpire) : null,
  };
}

/**
 * Rate limits per API key, over all routes together (ThrottlerGuard's default is per route and per IP).
 * Runs after ApiKeyGuard, so the key is known. Every answer carries `X-RateLimit-Limit`, `-Remaining` and
 * `-Reset` (seconds until the window ends), a 429 too, plus `Retry-After`.
 *
 * Decision: counts live in each API process's memory (WindowRateStorage). With several API replicas a
 * key may make up to replicas × the limit; exact global limits would cost a Redis round trip per
 * request, which this API's latency target does not leave room for.
 */
@Injectable()
export class ApiKeyRateLimitGuard extends ThrottlerGuard {
  protected override async handleRequest({ context, limit, ttl, throttler }: ThrottlerRequest): Promise<boolean> {
    const { request, response } = httpOf(context);
    const caller = request.caller;
    const tracker = caller ? caller.principalId : `ip:${String((request as CallerRequest & { ip?: string }).ip)}`;
    this.chargeTracker(`${throttler.name ?? 'default'}:${tracker}`, 1, limit, ttl, response);
    return true;
  }

  /**
   * Charges `units` requests' worth to an API key (GraphQL charges a query's computed cost): sets the
   * headers on `response`, throws the 429 problem when the key is over its limit.
   */
  chargeKey(principalId: string, units: number, response: ServerResponse): void {
    const [throttler] = this.throttlers;
    const limit = throttler.limit as number;
    const ttl = throttler.ttl as number;
    this.chargeTracker(`${throttler.name ?? 'default'}:${principalId}`, units, limit, ttl, response);
  }

  private chargeTracker(key: string, units: number, limit: number, ttl: number, response: ServerResponse): void {
    const storage = this.storageService as WindowRateStorage;
    const state = storage.charge(key, ttl, limit, units);
    const headers = rateLimitHeaders(windowStanding(limit, state));
    if (state.isBlocked) {
      const windowSeconds = Math.round(ttl / 1000);
      throw new ProblemException(
        429,
        `rate limit exceeded: this API key may make ${limit} requests per ${windowSeconds} s; retry in ${headers['Retry-After']} s`,
        { limit, windowSeconds, retryAfterSeconds: Number(headers['Retry-After']) },
        headers,
      );
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  }
}
