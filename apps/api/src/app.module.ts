import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { DbModule } from '@zw/db';
import { bullRootOptions } from '@zw/queue';
import { type ApiConfig, validateApiEnv } from './config.js';
import { IngestModule } from './ingest/ingest.module.js';
import { GraphQLApiModule } from './graphql/graphql-api.module.js';
import { QueryParametersGuard } from './http/validation.js';
import { QueryModule } from './query.module.js';
import { BullConnectionsCloser } from './redis.provider.js';
import { ReportsModule } from './reports/reports.module.js';
import { AlertsModule } from './alerts/alerts.module.js';
import { SsoModule } from './sso/sso.module.js';

@Module({})
export class AppModule {
  /** Reads and validates the environment when called, so a bad setting stops the process at boot. */
  static forRoot(): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, cache: true, ignoreEnvFile: true, validate: validateApiEnv }),
        DbModule.forRootAsync({
          inject: [ConfigService],
          useFactory: (config: ConfigService<ApiConfig, true>) => ({
            databaseUrl: config.get('DATABASE_URL', { infer: true }),
            poolMax: config.get('DB_POOL_MAX', { infer: true }),
          }),
        }),
        BullModule.forRootAsync({
          inject: [ConfigService],
          useFactory: (config: ConfigService<ApiConfig, true>) =>
            bullRootOptions(config.get('REDIS_URL', { infer: true }), config.get('QUEUE_PREFIX', { infer: true })),
        }),
        IngestModule,
        QueryModule,
        GraphQLApiModule,
        ReportsModule,
        AlertsModule,
        SsoModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: QueryParametersGuard }, BullConnectionsCloser],
    };
  }
}
