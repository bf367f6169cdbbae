import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { ReadDb, replicaOf } from '@zw/db';
import { createRedisClient, parseEnvironment, type RedisClient, reportsEnvSchema } from '@zw/queue';

import type { WorkerConfig } from '../config.js';
import { WORKER_CONFIG } from '../worker-config.token.js';

/** Injection token of the validated REPORT_* settings (the same schema the API reads). */
export const REPORTS_CONFIG = Symbol('REPORTS_CONFIG');

/** Read when the worker module is built: a bad REPORT_* value stops the worker at boot. */
export const reportsConfigProvider: Provider = {
  provide: REPORTS_CONFIG,
  useFactory: () => parseEnvironment(reportsEnvSchema, process.env),
};

/**
 * The report reader's own small pg pool: reports read history with the query API's hand-written SQL, from
 * the replica DATABASE_READ_URL names while it is within DATABASE_READ_MAX_LAG_MS of the primary.
 */
export const REPORTS_READ_DB = Symbol('REPORTS_READ_DB');

export const reportsReadDbProvider: Provider = {
  provide: REPORTS_READ_DB,
  inject: [WORKER_CONFIG],
  useFactory: (config: WorkerConfig) =>
    new ReadDb({
      databaseUrl: config.DATABASE_URL,
      poolMax: 3,
      statementTimeoutMs: 120_000,
      replica: replicaOf(config),
    }),
};

@Injectable()
export class ReportsReadDbCloser implements OnApplicationShutdown {
  private closed = false;

  constructor(@Inject(REPORTS_READ_DB) private readonly db: ReadDb) {}

  /** Once, even when the application is closed twice. */
  async onApplicationShutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.end();
  }
}

/** A small Redis connection of the reports' own (BullMQ keeps its own): the sweep's lock. */
export const REPORTS_REDIS = Symbol('REPORTS_REDIS');

export const reportsRedisProvider: Provider = {
  provide: REPORTS_REDIS,
  inject: [WORKER_CONFIG],
  useFactory: (config: WorkerConfig) =>
    // BullMQ's connections report Redis outages; a failed sweep logs its own error.
    createRedisClient(config.REDIS_URL, { maxRetriesPerRequest: 1 }).on('error', () => undefined),
};

@Injectable()
export class ReportsRedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REPORTS_REDIS) private readonly redis: RedisClient) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
