import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ReadDb, replicaOf } from '@zw/db';
import type { ApiConfig } from '../config.js';

/**
 * The heavy reads' own pg pool (savings over a range): a few connections with a short statement timeout,
 * apart from the read pool of every other route, so a burst of heavy reads queues here and never makes
 * a Services list or a zones page wait for a connection.
 *
 * Decision: no parallel workers. The per-organization budget counts statements, each meant to hold one
 * database core; a parallel plan (Postgres picks one for a 30-day savings statement of 1,000 Services)
 * took three processes for one statement and, on a busy 2-core server, ran twice as long as the plain one.
 *
 * With DATABASE_READ_URL, heavy reads go to that replica while it is within DATABASE_READ_MAX_LAG_MS of
 * the primary, and to the primary otherwise (ReadDb measures the lag).
 */
export const HEAVY_READ_DB = Symbol('HEAVY_READ_DB');

export const heavyReadDbProvider: Provider = {
  provide: HEAVY_READ_DB,
  inject: [ConfigService],
  useFactory: (config: ConfigService<ApiConfig, true>) =>
    new ReadDb({
      databaseUrl: config.get('DATABASE_URL', { infer: true }),
      poolMax: config.get('HEAVY_READ_POOL_MAX', { infer: true }),
      statementTimeoutMs: config.get('HEAVY_READ_STATEMENT_TIMEOUT_MS', { infer: true }),
      connectionTimeoutMs: config.get('READ_CONNECT_TIMEOUT_MS', { infer: true }),
      oneCorePerStatement: true,
      preparedStatements: true,
      replica: replicaOf(replicaSettings(config)),
    }),
};

@Injectable()
export class HeavyReadDbCloser implements OnApplicationShutdown {
  constructor(@Inject(HEAVY_READ_DB) private readonly db: ReadDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.end();
  }
}

/** The read-replica settings of the API's configuration. */
export function replicaSettings(
  config: ConfigService<ApiConfig, true>,
): Pick<ApiConfig, 'DATABASE_READ_URL' | 'DATABASE_READ_MAX_LAG_MS'> {
  return {
    DATABASE_READ_URL: config.get('DATABASE_READ_URL', { infer: true }),
    DATABASE_READ_MAX_LAG_MS: config.get('DATABASE_READ_MAX_LAG_MS', { infer: true }),
  };
}
