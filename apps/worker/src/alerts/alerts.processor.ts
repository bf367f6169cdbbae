import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type Type } from '@nestjs/common';
import {
  ALERTS_QUEUE,
  ALERTS_SWEEP_JOB,
  type AlertsConfig,
  DELIVER_ALERT_JOB,
  type DeliverAlertJobData,
  EVALUATE_ALERTS_JOB,
  type EvaluateAlertsJobData,
} from '@zw/queue';
import type { Job, Queue } from 'bullmq';
import type { WorkerConfig } from '../config.js';
import { JobMetricsRecorder } from '../job-metrics.js';
import { lockRenewTime } from '../snapshot.processor.js';
import { AlertDeliverer } from './alert-deliverer.service.js';
import { AlertEvaluator } from './alert-evaluator.service.js';
import { ALERTS_CONFIG } from './alerts-config.token.js';

class DeliveryAttemptFailed extends Error {
  override name = 'DeliveryAttemptFailed';
}

/** The alerts queue's jobs: evaluations (after a snapshot), the periodic sweep, and deliveries. */
@Injectable()
export class AlertsProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    @Inject(AlertEvaluator) private readonly evaluator: AlertEvaluator,
    @Inject(AlertDeliverer) private readonly deliverer: AlertDeliverer,
    @Inject(JobMetricsRecorder) private readonly metrics: JobMetricsRecorder,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.metrics.attach(this.worker, ALERTS_QUEUE);
  }

  async process(job: Job): Promise<unknown> {
    switch (job.name) {
      case EVALUATE_ALERTS_JOB:
        return this.evaluator.afterSnapshot((job.data as EvaluateAlertsJobData).clusterId);
      case ALERTS_SWEEP_JOB:
        return this.evaluator.sweep();
      case DELIVER_ALERT_JOB: {
        const outcome = await this.deliverer.deliver(
          (job.data as DeliverAlertJobData).deliveryId,
          job.attemptsMade + 1,
          job.opts.attempts ?? 1,
        );
        // A failed attempt throws, so BullMQ retries it with exponential backoff.
        if ('error' in outcome) throw new DeliveryAttemptFailed(outcome.error);
        return outcome;
      }
      default:
        return { skipped: `unknown job ${job.name}` };
    }
  }
}

/** With the worker's lock settings: a killed worker's delivery is taken back like a snapshot job. */
export function configuredAlertsProcessor(config: WorkerConfig): Type<AlertsProcessor> {
  @Processor(ALERTS_QUEUE, {
    concurrency: 4,
    lockDuration: config.WORKER_LOCK_DURATION_MS,
    lockRenewTime: lockRenewTime(config.WORKER_LOCK_DURATION_MS),
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
  })
  class ConfiguredAlertsProcessor extends AlertsProcessor {}
  return ConfiguredAlertsProcessor;
}

/** The periodic sweep's job scheduler, and one sweep at boot. */
@Injectable()
export class AlertsSchedules implements OnApplicationBootstrap {
  private readonly logger = new Logger('AlertsSchedules');

  constructor(
    @InjectQueue(ALERTS_QUEUE) private readonly queue: Queue,
    @Inject(ALERTS_CONFIG) private readonly config: AlertsConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.queue.upsertJobScheduler(
        ALERTS_SWEEP_JOB,
        { every: this.config.ALERT_SWEEP_EVERY_MS },
        { name: ALERTS_SWEEP_JOB, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
      );
    } catch (error) {
      this.logger.warn(`could not schedule the alerts sweep (the next start will): ${String(error)}`);
    }
  }
}
