import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ServerResponse } from 'node:http';
import { rateLimitHeaders, type RateLimitStanding, tooManyRequests } from '../auth/rate-limit-headers.js';
import { type BucketShape, TokenBuckets } from '../auth/token-buckets.js';
import type { ApiConfig } from '../config.js';
import type { AgentRequest } from './agent-auth.guard.js';

/**
 * Pushes one agent token (one cluster) may make: INGEST_RATE_LIMIT_REQUESTS per
 * INGEST_RATE_LIMIT_WINDOW_MS spread evenly over the window, and at most INGEST_RATE_LIMIT_BURST back to
 * back (a token bucket held in Redis, so every API replica draws on the same bucket). Runs after
 * AgentAuthGuard and before the body is read, so a refused push costs nothing. Answers carry
 * `X-RateLimit-Limit` (the burst), `-Remaining` (pushes allowed at once now) and `-Reset` (seconds until
 * the whole burst is available again), `RateLimit-Policy` / `RateLimit` (the rate per window, with the
 * burst as `zw-burst`; `t` is the wait for the next push); a 429 also `Retry-After`, which the agent
 * honours.
 *
 * Decision: per cluster, not per organization: one misbehaving agent cannot use up the pushes of its
 * organization's other clusters.
 *
 * Decision (Redis unavailable): fail open to this process's own bucket of the same shape (N replicas then
 * allow up to N × the rate). Ingest keeps accepting snapshots while Redis is away (they wait in Postgres
 * and the sweeper queues them once it is back), and the rate limit must not be what refuses them.
 */
@Injectable()
export class IngestRateLimitGuard implements CanActivate {
  private readonly shape: BucketShape;
  private readonly keyPrefix: string;

  constructor(
    @Inject(TokenBuckets) private readonly buckets: TokenBuckets,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.shape = {
      rate: config.get('INGEST_RATE_LIMIT_REQUESTS', { infer: true }),
      periodMs: config.get('INGEST_RATE_LIMIT_WINDOW_MS', { infer: true }),
      burst: config.get('INGEST_RATE_LIMIT_BURST', { infer: true }),
    };
    this.keyPrefix = `${config.get('QUEUE_PREFIX', { infer: true })}:limits:ingest:cluster:`;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AgentRequest>();
    const response = context.switchToHttp().getResponse<ServerResponse>();
    const state = await this.buckets.take(`${this.keyPrefix}${request.agent!.clusterId}`, this.shape);
    const { rate, periodMs, burst } = this.shape;
    const windowSeconds = Math.round(periodMs / 1000);
    const standing: RateLimitStanding = {
      policy: 'agent-token',
      limit: rate,
      windowSeconds,
      policyParameters: { 'zw-burst': burst },
      remaining: state.remaining,
      resetSeconds: state.allowed ? state.secondsUntilNext : state.retryAfterSeconds,
      retryAfterSeconds: state.allowed ? null : state.retryAfterSeconds,
    };
    const headers = {
      ...rateLimitHeaders(standing),
      // The legacy fields keep their meaning: the burst, and the wait until all of it is back.
      'X-RateLimit-Limit': String(burst),
      'X-RateLimit-Reset': String(state.secondsUntilFull),
    };
    if (!state.allowed) {
      const refusal = tooManyRequests(
        standing,
        `rate limit exceeded: this agent token may push ${rate} snapshots per ${windowSeconds} s, at most ${burst} at once`,
        { windowSeconds, burst },
      );
      Object.assign(refusal.headers, headers);
      throw refusal;
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    return true;
  }
}
