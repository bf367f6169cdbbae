import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { DbModule } from '@zw/db';
import { bullRootOptions } from '@zw/queue';
import { type ApiConfig, validateApiEnv } from './config.js';
import { AdminModule } from './admin/admin.module.js';
import { AuditModule } from './audit/audit.module.js';
import { ClustersModule } from './clusters/clusters.module.js';
import { EventsModule } from './events/events.module.js';
import { FleetModule } from './fleet/fleet.module.js';
import { IngestModule } from './ingest/ingest.module.js';
import { OpsModule } from './ops/ops.module.js';
import { RecommendationsModule } from './recommendations/recommendations.module.js';
import { PricingModule } from './pricing/pricing.module.js';
import { SavingsModule } from './savings/savings.module.js';
import { ServicesModule } from './services/services.module.js';
import { SimulateModule } from './simulate/simulate.module.js';
import { TrafficSourcesModule } from './traffic-sources/traffic-sources.module.js';
import { TrendsModule } from './trends/trends.module.js';
import { GraphQLApiModule } from './graphql/graphql-api.module.js';
import { jsonLogsModule } from './http/request-logs.js';
import { QueryParametersGuard } from './http/validation.js';
import { BullConnectionsCloser } from './redis.provider.js';
import { ReportsModule } from './reports/reports.module.js';
import { AlertsModule } from './alerts/alerts.module.js';
import { SsoModule } from './sso/sso.module.js';

@Module({})
export class AppModule {
  /**
   * Reads and validates the environment when called, so a bad setting stops the process at boot.
   * `jsonLogs`: log through pino (what `main` runs); tests pass a Nest logger of their own instead.
   */
  static forRoot(options: { jsonLogs?: boolean } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, cache: true, ignoreEnvFile: true, validate: validateApiEnv }),
        ...(options.jsonLogs ? [jsonLogsModule()] : []),
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
        OpsModule,
        FleetModule,
        ClustersModule,
        ServicesModule,
        SavingsModule,
        PricingModule,
        TrendsModule,
        RecommendationsModule,
        SimulateModule,
        TrafficSourcesModule,
        EventsModule,
        AuditModule,
        AdminModule,
        GraphQLApiModule,
        ReportsModule,
        AlertsModule,
        SsoModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: QueryParametersGuard }, BullConnectionsCloser],
    };
  }
}
