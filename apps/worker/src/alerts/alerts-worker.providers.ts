import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule, Provider } from '@nestjs/common';
import { ALERTS_QUEUE, alertsEnvSchema, parseEnvironment, queueRegistration } from '@zw/queue';
import type { WorkerConfig } from '../config.js';
import { AlertDeliverer } from './alert-deliverer.service.js';
import { AlertEvaluator } from './alert-evaluator.service.js';
import { AlertsSchedules, configuredAlertsProcessor } from './alerts.processor.js';
import { ALERTS_CONFIG } from './alerts-config.token.js';

/** Alerts in the worker: the rules' evaluation (after each snapshot, and periodically) and the deliveries. */
export function alertsWorkerImports(config: WorkerConfig): DynamicModule[] {
  return [BullModule.registerQueue(queueRegistration(config.REDIS_URL, config.QUEUE_PREFIX, ALERTS_QUEUE))];
}

export function alertsWorkerProviders(config: WorkerConfig): Provider[] {
  return [
    // Read when the worker module is built: a bad ALERT_* or SMTP_* value stops the worker at boot.
    { provide: ALERTS_CONFIG, useFactory: () => parseEnvironment(alertsEnvSchema, process.env) },
    AlertEvaluator,
    AlertDeliverer,
    configuredAlertsProcessor(config),
    AlertsSchedules,
  ];
}
