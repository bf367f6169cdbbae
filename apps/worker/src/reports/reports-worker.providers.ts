import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule, Provider } from '@nestjs/common';
import { queueRegistration, REPORT_DELIVERIES_QUEUE, REPORTS_QUEUE } from '@zw/queue';
import type { WorkerConfig } from '../config.js';
import { ReportGenerator } from './report-generator.service.js';
import { ReportScheduler } from './report-scheduler.service.js';
import { ReportsProcessor } from './reports.processor.js';
import {
  reportsConfigProvider,
  ReportsReadDbCloser,
  reportsReadDbProvider,
  ReportsRedisCloser,
  reportsRedisProvider,
} from './reports-worker.config.js';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor.js';
import { WebhookSecretKeys } from './webhook-secret-sealer.service.js';

/**
 * Scheduled reports in the worker: the schedules' job schedulers, report generation and webhook
 * deliveries. They share WorkerModule's WORKER_CONFIG and JobMetricsRecorder, so WorkerModule spreads
 * these into its own imports and providers rather than importing a module of their own.
 */
export function reportsWorkerImports(config: WorkerConfig): DynamicModule[] {
  return [
    BullModule.registerQueue(
      ...[REPORTS_QUEUE, REPORT_DELIVERIES_QUEUE].map((name) =>
        queueRegistration(config.REDIS_URL, config.QUEUE_PREFIX, name),
      ),
    ),
  ];
}

export const reportsWorkerProviders: Provider[] = [
  reportsConfigProvider,
  reportsReadDbProvider,
  ReportsReadDbCloser,
  reportsRedisProvider,
  ReportsRedisCloser,
  ReportScheduler,
  ReportGenerator,
  ReportsProcessor,
  WebhookDeliveryProcessor,
  WebhookSecretKeys,
];
