import { Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerRequest } from '@nestjs/throttler';
import type { ServerResponse } from 'node:http';
import { ProblemException } from '../problem.js';
import { type CallerRequest, httpOf } from './caller.js';
import { type WindowState, type WindowRateStorage } from './window-rate-storage.js';

/** The `X-RateLimit-*` headers of an answer (and `Retry-After` when refused). */
export function rateLimitHeaders(limit: number, state: WindowState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - state.totalHits)),
    'X-RateLimit-Reset': String(state.timeToExpire),
    ...(state.isBlocked ? { 'Retry-After': String(Math.max(1, state.timeToBlockExpire)) } : {}),
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
    const tracker = caller ? `key:${caller.keyId}` : `ip:${String((request as CallerRequest & { ip?: string }).ip)}`;
    this.chargeTracker(`${throttler.name ?? 'default'}:${tracker}`, 1, limit, ttl, response);
    return true;
  }

  /**
   * Charges `units` requests' worth to an API key (GraphQL charges a query's computed cost): sets the
   * headers on `response`, throws the 429 problem when the key is over its limit.
   */
  chargeKey(keyId: string, units: number, response: ServerResponse): void {
    const [throttler] = this.throttlers;
    const limit = throttler.limit as number;
    const ttl = throttler.ttl as number;
    this.chargeTracker(`${throttler.name ?? 'default'}:key:${keyId}`, units, limit, ttl, response);
  }

  private chargeTracker(key: string, units: number, limit: number, ttl: number, response: ServerResponse): void {
    const storage = this.storageService as WindowRateStorage;
    const state = storage.charge(key, ttl, limit, units);
    const headers = rateLimitHeaders(limit, state);
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
