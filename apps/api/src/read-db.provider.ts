import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ReadDb } from '@zw/db';
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

/** Closes the read pool when the application shuts down. */
@Injectable()
export class ReadDbCloser implements OnApplicationShutdown {
  constructor(@Inject(ReadDb) private readonly db: ReadDb) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.end();
  }
}
