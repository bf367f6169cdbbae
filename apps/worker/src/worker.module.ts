import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { logOptions } from '@zw/core';
import { DbModule } from '@zw/db';
import { LoggerModule } from 'nestjs-pino';
import { bullRootOptions, MAINTENANCE_QUEUE, queueRegistration, SNAPSHOTS_QUEUE } from '@zw/queue';
import { AgentStalenessService } from './agent-staleness.service.js';
import { alertsWorkerImports, alertsWorkerProviders } from './alerts/alerts-worker.providers.js';
import { ANALYSIS_THREAD_FILE, AnalysisPool, COMPILED_ANALYSIS_THREAD_FILE } from './analysis-pool.js';
import { COMMIT_HOOKS, type CommitHooks } from './commit-hooks.js';
import type { WorkerConfig } from './config.js';
import { DependencyOutages } from './dependency-outages.js';
import { JobMetricsRecorder } from './job-metrics.js';
import { MaintenanceProcessor, MaintenanceSchedules } from './maintenance.processor.js';
import { ReadModelPublisher } from './read-model-events.js';
import { reportsWorkerImports, reportsWorkerProviders } from './reports/reports-worker.providers.js';
import { RetentionService } from './retention.service.js';
import { configuredSnapshotProcessor } from './snapshot.processor.js';
import { SweeperService } from './sweeper.service.js';
import { trafficWorkerImports, trafficWorkerProviders } from './traffic/traffic-worker.providers.js';
import { WORKER_CONFIG } from './worker-config.token.js';
import { BullConnectionsCloser, WorkerRedisCloser, workerRedisProvider } from './worker-redis.js';

export interface WorkerModuleOptions {
  /** The analysis threads' script; the compiled one next to this module by default. */
  analysisThreadFile?: string;
  /** What runs around each snapshot's commit (nothing by default; test support stalls or kills there). */
  commitHooks?: CommitHooks;
  /** Log JSON lines through pino at LOG_LEVEL (what `main` runs); tests pass a Nest logger instead. */
  jsonLogs?: boolean;
}

@Module({})
export class WorkerModule {
  static forRoot(config: WorkerConfig, options: WorkerModuleOptions = {}): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        DbModule.forRoot({ databaseUrl: config.DATABASE_URL, poolMax: config.DB_POOL_MAX }),
        BullModule.forRoot(bullRootOptions(config.REDIS_URL, config.QUEUE_PREFIX)),
        BullModule.registerQueue(
          ...[SNAPSHOTS_QUEUE, MAINTENANCE_QUEUE].map((name) =>
            queueRegistration(config.REDIS_URL, config.QUEUE_PREFIX, name),
          ),
        ),
        ...reportsWorkerImports(config),
        ...trafficWorkerImports(config),
        ...alertsWorkerImports(config),
        ...(options.jsonLogs
          ? [LoggerModule.forRoot({ pinoHttp: logOptions('zonewise-worker', config.LOG_LEVEL) })]
          : []),
      ],
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        { provide: COMMIT_HOOKS, useValue: options.commitHooks ?? {} },
        { provide: ANALYSIS_THREAD_FILE, useValue: options.analysisThreadFile ?? COMPILED_ANALYSIS_THREAD_FILE },
        AnalysisPool,
        DependencyOutages,
        configuredSnapshotProcessor(config),
        MaintenanceProcessor,
        MaintenanceSchedules,
        SweeperService,
        AgentStalenessService,
        RetentionService,
        JobMetricsRecorder,
        ReadModelPublisher,
        workerRedisProvider,
        WorkerRedisCloser,
        BullConnectionsCloser,
        ...reportsWorkerProviders,
        ...trafficWorkerProviders,
        ...alertsWorkerProviders(config),
      ],
    };
  }
}
