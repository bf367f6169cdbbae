import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ReadDb } from '@zw/db';
import type { Redis } from 'ioredis';
import type { ServerResponse } from 'node:http';
import { API_REDIS } from '../redis.provider.js';
import { MetricsService } from './metrics.service.js';

const CHECK_TIMEOUT_MS = 2000;

async function check(work: () => Promise<unknown>): Promise<{ ok: boolean; error?: string; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      ms: Math.round(performance.now() - started),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness, readiness and Prometheus metrics: unauthenticated, for orchestrators and scrapers. */
@ApiTags('operations')
@Controller()
export class OpsController {
  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(API_REDIS) private readonly redis: Redis,
    @Inject(MetricsService) private readonly metrics: MetricsService,
  ) {}

  @Get('healthz')
  @ApiOperation({ summary: 'Liveness: the process answers', security: [] })
  healthz() {
    return { status: 'ok' };
  }

  /** Readiness: Postgres and Redis both answer; 503 (problem+json, naming what failed) otherwise. */
  @Get('readyz')
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis reachable (503 otherwise)', security: [] })
  @ApiResponse({ status: 200, description: 'both answer, with how long each took' })
  @ApiResponse({ status: 503, description: 'PostgreSQL or Redis does not answer; `detail` names which' })
  async readyz(@Res() response: ServerResponse): Promise<void> {
    const [postgres, redis] = await Promise.all([
      check(() => this.db.query('SELECT 1')),
      check(() => this.redis.ping()),
    ]);
    const checks = { postgres, redis };
    const failed = Object.entries(checks).filter(([, result]) => !result.ok);
    response.statusCode = failed.length ? 503 : 200;
    if (failed.length) {
      response.setHeader('Content-Type', 'application/problem+json');
      response.end(
        JSON.stringify({
          type: 'about:blank',
          title: 'Service Unavailable',
          status: 503,
          detail: `not ready: ${failed.map(([name, result]) => `${name} (${result.error})`).join(', ')}`,
          checks,
        }),
      );
      return;
    }
    response.setHeader('Content-Type', 'application/json');
    response.end(JSON.stringify({ status: 'ready', checks }));
  }

  @Get('metrics')
  @ApiOperation({ summary: 'Prometheus metrics (text exposition format)', security: [] })
  @ApiProduces('text/plain')
  @ApiResponse({ status: 200, description: 'every metric', content: { 'text/plain': { schema: { type: 'string' } } } })
  @Header('Cache-Control', 'no-store')
  async metricsText(@Res() response: ServerResponse): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    response.setHeader('Content-Type', contentType);
    response.end(body);
  }
}
