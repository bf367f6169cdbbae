import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ServerResponse } from 'node:http';
import { rateLimitHeaders } from '../auth/rate-limit.guard.js';
import { WindowRateStorage } from '../auth/window-rate-storage.js';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import type { AgentRequest } from './agent-auth.guard.js';

/**
 * Pushes one agent token (one cluster) may make per INGEST_RATE_LIMIT_WINDOW_MS, counted in the API's
 * shared window storage under keys of its own. Runs after AgentAuthGuard and before the body is read, so
 * a refused push costs nothing. Answers carry `X-RateLimit-*` like the rest of the API; a 429 also
 * `Retry-After`, which the agent honours.
 *
 * Decision: per cluster, not per organization: one misbehaving agent cannot use up the pushes of its
 * organization's other clusters. Counts are per API process, as for API keys.
 */
@Injectable()
export class IngestRateLimitGuard implements CanActivate {
  private readonly limit: number;
  private readonly windowMs: number;

  constructor(
    @Inject(WindowRateStorage) private readonly storage: WindowRateStorage,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.limit = config.get('INGEST_RATE_LIMIT_REQUESTS', { infer: true });
    this.windowMs = config.get('INGEST_RATE_LIMIT_WINDOW_MS', { infer: true });
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AgentRequest>();
    const response = context.switchToHttp().getResponse<ServerResponse>();
    const state = this.storage.charge(`ingest:cluster:${request.agent!.clusterId}`, this.windowMs, this.limit, 1);
    const headers = rateLimitHeaders(this.limit, state);
    if (state.isBlocked) {
      const windowSeconds = Math.round(this.windowMs / 1000);
      throw new ProblemException(
        429,
        `rate limit exceeded: this agent token may push ${this.limit} snapshots per ${windowSeconds} s; retry in ${headers['Retry-After']} s`,
        { limit: this.limit, windowSeconds, retryAfterSeconds: Number(headers['Retry-After']) },
        headers,
      );
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    return true;
  }
}
