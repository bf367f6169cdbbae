import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ReadDb, replicaOf } from '@zw/db';
import { replicaSettings } from './heavy-reads/heavy-read-db.provider.js';
import type { ApiConfig } from './config.js';

export const readDbProvider: Provider = {
  provide: ReadDb,
  inject: [ConfigService],
  useFactory: (config: ConfigService<ApiConfig, true>) =>
    new ReadDb({
      databaseUrl: config.get('DATABASE_URL', { infer: true }),
      poolMax: config.get('READ_POOL_MAX', { infer: true }),
      statementTimeoutMs: config.get('READ_STATEMENT_TIMEOUT_MS', { infer: true }),
      connectionTimeoutMs: config.get('READ_CONNECT_TIMEOUT_MS', { infer: true }),
    }),
};

/**
 * Reads that may be served a little stale (trends over a range): the read pool's settings on the replica
 * DATABASE_READ_URL names, falling back to the primary past DATABASE_READ_MAX_LAG_MS or while it is down.
 * Without DATABASE_READ_URL, the read pool itself. Every other read stays on the primary, where the
 * API's own writes are seen at once.
 */
export const REPLICA_READ_DB = Symbol('REPLICA_READ_DB');

export const replicaReadDbProvider: Provider = {
  provide: REPLICA_READ_DB,
  inject: [ConfigService, ReadDb],
  useFactory: (config: ConfigService<ApiConfig, true>, primary: ReadDb) => {
    const replica = replicaOf(replicaSettings(config));
    if (!replica) return primary;
    return new ReadDb({
      databaseUrl: config.get('DATABASE_URL', { infer: true }),
      poolMax: config.get('READ_POOL_MAX', { infer: true }),
      statementTimeoutMs: config.get('READ_STATEMENT_TIMEOUT_MS', { infer: true }),
      connectionTimeoutMs: config.get('READ_CONNECT_TIMEOUT_MS', { infer: true }),
      replica,
    });
  },
};

/** Closes the replica read pool (when it is not the read pool, which ReadDbCloser closes). */
@Injectable()
export class ReplicaReadDbCloser implements OnApplicationShutdown {
  constructor(
    @Inject(REPLICA_READ_DB) private readonly db: ReadDb,
    @Inject(ReadDb) private readonly primary: ReadDb,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.db !== this.primary) await this.db.end();
  }
}

/** Closes the read pool when the application shuts down. */
@Injectable()
export class ReadDbCloser implements OnApplicationShutdown {
  constructor(@Inject(ReadDb) private readonly db: ReadDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.end();
  }
}
