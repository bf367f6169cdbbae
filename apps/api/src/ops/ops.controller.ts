import { Controller, Get, Inject, type OnApplicationBootstrap, type OnModuleDestroy, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { pingDatabase, ReadDb } from '@zw/db';
import type { Redis } from 'ioredis';
import type { ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ApiConfig } from '../config.js';
import { HeavyReadBudget } from '../heavy-reads/heavy-read-budget.js';
import { HEAVY_READ_DB } from '../heavy-reads/heavy-read-db.provider.js';
import { API_REDIS } from '../redis.provider.js';

const CHECK_TIMEOUT_MS = 2000;

class CheckTimeout extends Error {}

/** Node's socket and resolver errors, as /readyz words them. */
const SOCKET_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name not resolved',
  EPIPE: 'connection closed',
};

/** PostgreSQL's SQLSTATEs (and classes) a readiness check meets, as /readyz words them. */
const POSTGRES_REASONS: [RegExp, string][] = [
  [/^28/, 'authentication refused'],
  [/^3D000$/, 'database does not exist'],
  [/^57P0[123]$/, 'server starting up or shutting down'],
  [/^53300$/, 'too many connections'],
  [/^08/, 'connection failed'],
];

/** ioredis' own messages for a command without a connection (they carry no address). */
const REDIS_NOT_CONNECTED = /Connection is closed|Stream isn't writeable|enableOfflineQueue|max retries per request/i;

/**
 * Why a dependency's check failed, in words of a fixed list: /readyz answers without authentication, so
 * it names the dependency and the kind of failure, never the error's own message, which carries the
 * server's address (`connect ECONNREFUSED 10.0.3.7:5432`), its host name or its user.
 */
export function readinessReason(error: unknown): string {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 10) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (current instanceof CheckTimeout) return `no answer within ${CHECK_TIMEOUT_MS} ms`;
    const { code, name, message, cause, errors } = current as {
      code?: unknown;
      name?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof code === 'string') {
      if (Object.hasOwn(SOCKET_REASONS, code)) return SOCKET_REASONS[code]!;
      const postgres = POSTGRES_REASONS.find(([pattern]) => pattern.test(code));
      if (postgres) return postgres[1];
    }
    if (name === 'MaxRetriesPerRequestError' || (typeof message === 'string' && REDIS_NOT_CONNECTED.test(message)))
      return 'not connected';
    queue.push(cause, ...(Array.isArray(errors) ? errors : []));
  }
  return 'unavailable';
}

async function check(work: () => Promise<unknown>): Promise<{ ok: boolean; error?: string; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new CheckTimeout()), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, error: readinessReason(error), ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

const DELAY_WINDOW_MS = 5000;

/**
 * The event loop's delay, as the p99 of the last few seconds: the histogram is read and reset every
 * DELAY_WINDOW_MS, and the worse of the last window and the current one is reported.
 *
 * It starts once the application has booted: the boot's own synchronous work (building the GraphQL
 * schema, wiring modules) holds the loop for hundreds of milliseconds once, which says nothing about
 * whether the serving process is saturated, and would answer the first /readyz 503.
 */
class EventLoopDelay {
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });
  private lastWindowMs = 0;
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    this.histogram.enable();
    this.timer = setInterval(() => {
      this.lastWindowMs = this.histogram.percentile(99) / 1e6;
      this.histogram.reset();
    }, DELAY_WINDOW_MS);
    this.timer.unref();
  }

  p99Ms(): number {
    const current = this.histogram.count > 0 ? this.histogram.percentile(99) / 1e6 : 0;
    return Math.round(Math.max(this.lastWindowMs, current));
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

/**
 * Liveness and readiness: unauthenticated, for orchestrators. Prometheus metrics are on a port of their
 * own (MetricsServer, METRICS_PORT), not here.
 */
@ApiTags('operations')
@Controller()
export class OpsController implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly eventLoop = new EventLoopDelay();
  private readonly maxPoolWaiting: number;
  private readonly maxEventLoopDelayMs: number;

  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(HEAVY_READ_DB) private readonly heavyDb: ReadDb,
    @Inject(HeavyReadBudget) private readonly heavyReads: HeavyReadBudget,
    @Inject(API_REDIS) private readonly redis: Redis,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.maxPoolWaiting = config.get('READY_MAX_POOL_WAITING', { infer: true });
    this.maxEventLoopDelayMs = config.get('READY_MAX_EVENT_LOOP_DELAY_MS', { infer: true });
  }

  onApplicationBootstrap(): void {
    this.eventLoop.start();
  }

  onModuleDestroy(): void {
    this.eventLoop.stop();
  }

  @Get('healthz')
  @ApiOperation({ summary: 'Liveness: the process answers', security: [] })
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness: Postgres and Redis both answer, and the process is not saturated (requests waiting for a
   * read-pool connection, event-loop delay); 503 (problem+json, naming what failed) otherwise.
   */
  @Get('readyz')
  @ApiOperation({
    summary: 'Readiness: PostgreSQL and Redis reachable and the process not saturated (503 otherwise)',
    security: [],
  })
  @ApiResponse({ status: 200, description: 'both answer, with how long each took, and the load figures' })
  @ApiResponse({
    status: 503,
    description: 'PostgreSQL or Redis does not answer, or the process is saturated; `detail` names which',
  })
  async readyz(@Res() response: ServerResponse): Promise<void> {
    // The saturation figures are read before the checks, whose own queries would wait in the same line.
    const saturation = this.saturation();
    const [postgres, redis] = await Promise.all([check(() => pingDatabase(this.db)), check(() => this.redis.ping())]);
    const checks = { postgres, redis };
    const failed = [
      ...Object.entries(checks)
        .filter(([, result]) => !result.ok)
        .map(([name, result]) => `${name} (${result.error})`),
      ...saturation.problems,
    ];
    const load = saturation.load;
    if (failed.length) {
      response.statusCode = 503;
      response.setHeader('Content-Type', 'application/problem+json');
      response.setHeader('Retry-After', '5');
      response.end(
        JSON.stringify({
          type: 'about:blank',
          title: 'Service Unavailable',
          status: 503,
          detail: `not ready: ${failed.join(', ')}`,
          checks,
          load,
        }),
      );
      return;
    }
    response.statusCode = 200;
    response.setHeader('Content-Type', 'application/json');
    response.end(JSON.stringify({ status: 'ready', checks, load }));
  }

  private saturation() {
    const load = {
      readPool: this.db.load(),
      heavyReadPool: this.heavyDb.load(),
      heavyReads: this.heavyReads.load(),
      eventLoopDelayMs: this.eventLoop.p99Ms(),
    };
    const problems: string[] = [];
    if (load.readPool.waiting > this.maxPoolWaiting) {
      problems.push(
        `saturated: ${load.readPool.waiting} requests wait for a read-pool connection (READY_MAX_POOL_WAITING ${this.maxPoolWaiting})`,
      );
    }
    if (load.eventLoopDelayMs > this.maxEventLoopDelayMs) {
      problems.push(
        `saturated: event-loop delay ${load.eventLoopDelayMs} ms (READY_MAX_EVENT_LOOP_DELAY_MS ${this.maxEventLoopDelayMs})`,
      );
    }
    return { load, problems };
  }
}
