import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ServerResponse } from 'node:http';
import { rateLimitHeaders } from '../auth/rate-limit.guard.js';
import { TokenBuckets } from '../auth/token-buckets.js';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import type { AgentRequest } from './agent-auth.guard.js';

/**
 * Pushes one agent token (one cluster) may make: INGEST_RATE_LIMIT_REQUESTS per
 * INGEST_RATE_LIMIT_WINDOW_MS spread evenly over the window, and at most INGEST_RATE_LIMIT_BURST back to
 * back (a token bucket). Runs after AgentAuthGuard and before the body is read, so a refused push costs
 * nothing. Answers carry `X-RateLimit-Limit` (the burst), `-Remaining` (pushes allowed at once now) and
 * `-Reset` (seconds until the whole burst is available again); a 429 also `Retry-After`, which the agent
 * honours.
 *
 * Decision: per cluster, not per organization: one misbehaving agent cannot use up the pushes of its
 * organization's other clusters. Counts are per API process, as for API keys.
 */
@Injectable()
export class IngestRateLimitGuard implements CanActivate {
  private readonly shape: { rate: number; periodMs: number; burst: number };

  constructor(
    @Inject(TokenBuckets) private readonly buckets: TokenBuckets,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.shape = {
      rate: config.get('INGEST_RATE_LIMIT_REQUESTS', { infer: true }),
      periodMs: config.get('INGEST_RATE_LIMIT_WINDOW_MS', { infer: true }),
      burst: config.get('INGEST_RATE_LIMIT_BURST', { infer: true }),
    };
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AgentRequest>();
    const response = context.switchToHttp().getResponse<ServerResponse>();
    const state = this.buckets.take(`ingest:cluster:${request.agent!.clusterId}`, this.shape);
    const headers = rateLimitHeaders({
      limit: this.shape.burst,
      remaining: state.remaining,
      resetSeconds: state.secondsUntilFull,
      retryAfterSeconds: state.allowed ? null : state.retryAfterSeconds,
    });
    if (!state.allowed) {
      const { rate, periodMs, burst } = this.shape;
      const windowSeconds = Math.round(periodMs / 1000);
      throw new ProblemException(
        429,
        `rate limit exceeded: this agent token may push ${rate} snapshots per ${windowSeconds} s, at most ${burst} at once; retry in ${state.retryAfterSeconds} s`,
        { limit: rate, windowSeconds, burst, retryAfterSeconds: state.retryAfterSeconds },
        headers,
      );
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    return true;
  }
}
