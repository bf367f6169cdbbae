import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { PrismaService, readWebhookSecret, recordWebhookAttempt, webhookDeliveryToSend } from '@zw/db';
import { type DeliverWebhookJobData, REPORT_DELIVERIES_QUEUE, type ReportsConfig } from '@zw/queue';
import {
  storedReportJson,
  signWebhook,
  WEBHOOK_ATTEMPT_HEADER,
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookPayload,
} from '@zw/reports';
import type { Job } from 'bullmq';
import { JobMetricsRecorder } from '../job-metrics.js';
import { REPORTS_CONFIG } from './reports-worker.config.js';
import { postWebhook, type WebhookPostResult } from '@zw/notify';
import { WebhookSecretKeys } from './webhook-secret-sealer.service.js';

export type DeliveryOutcome = { delivered: boolean; skipped?: string; statusCode?: number | null };

class DeliveryAttemptFailed extends Error {
  override name = 'DeliveryAttemptFailed';
}

/**
 * POSTs each report to its schedule's webhook, signed, and records every attempt on the delivery row
 * (visible through the API). A failed attempt throws, so BullMQ retries it with exponential backoff; the
 * last one marks the delivery failed.
 *
 * Decision: every failure is retried (no answer, timeout, any non-2xx status, 4xx included): a receiver
 * being redeployed answers 404 or 401 for a while, and giving up then would lose the report for good.
 * Delivery is at least once: a worker that dies after the receiver answered but before recording it
 * sends the same delivery again, under the same `Zonewise-Delivery` id, for receivers to deduplicate.
 */
@Processor(REPORT_DELIVERIES_QUEUE, { concurrency: 4 })
export class WebhookDeliveryProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger('WebhookDelivery');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    @Inject(JobMetricsRecorder) private readonly metrics: JobMetricsRecorder,
    @Inject(WebhookSecretKeys) private readonly secrets: WebhookSecretKeys,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.metrics.attach(this.worker, REPORT_DELIVERIES_QUEUE);
  }

  async process(job: Job<DeliverWebhookJobData>): Promise<DeliveryOutcome> {
    const { deliveryId } = job.data;
    const delivery = await webhookDeliveryToSend(this.prisma, deliveryId);
    if (!delivery) return { delivered: false, skipped: 'deleted (with its report)' };
    if (delivery.status !== 'pending') return { delivered: delivery.status === 'succeeded', skipped: delivery.status };
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const { report } = delivery;
    const { schedule } = report;
    const now = new Date();
    let result: WebhookPostResult;
    if (!schedule.webhookUrl || (!schedule.webhookSecret && !schedule.webhookSecretSealed)) {
      result = { ok: false, statusCode: null, error: 'the schedule no longer has a webhook', durationMs: 0 };
      await this.record(deliveryId, schedule.webhookUrl ?? delivery.url, now, result, true);
      return { delivered: false, skipped: 'webhook removed' };
    }
    const secret = readWebhookSecret(this.secrets.keyring, schedule);
    if (secret.secret === null) {
      // Retried like any failure: an operator may restore the missing key meanwhile.
      result = { ok: false, statusCode: null, error: secret.problem, durationMs: 0 };
      await this.record(deliveryId, schedule.webhookUrl, now, result, final, job.attemptsMade + 1);
      throw new DeliveryAttemptFailed(secret.problem);
    }
    const body = webhookPayload({
      deliveryId,
      report: { id: report.id, url: `/v1/reports/${report.id}` },
      documentJson: storedReportJson(report)!,
      formats: report.formats,
      csv: report.csv,
      html: report.html,
    });
    const timestamp = Math.floor(now.getTime() / 1000);
    result = await postWebhook(
      schedule.webhookUrl,
      body,
      {
        'content-type': 'application/json',
        'user-agent': 'zonewise-webhooks/1',
        [WEBHOOK_EVENT_HEADER]: WEBHOOK_EVENT,
        [WEBHOOK_DELIVERY_HEADER]: deliveryId,
        [WEBHOOK_ATTEMPT_HEADER]: String(job.attemptsMade + 1),
        [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret.secret, timestamp, body),
      },
      { timeoutMs: this.config.REPORT_WEBHOOK_TIMEOUT_MS, allowPrivate: this.config.REPORT_WEBHOOK_ALLOW_PRIVATE },
    );
    await this.record(deliveryId, schedule.webhookUrl, now, result, final, job.attemptsMade + 1);
    if (result.ok) return { delivered: true, statusCode: result.statusCode };
    if (final) this.logger.warn(`delivery ${deliveryId} of report ${report.id} failed for good: ${result.error}`);
    throw new DeliveryAttemptFailed(result.error ?? 'delivery failed');
  }

  /** Appends the attempt to the delivery's log and sets its status (and when the next attempt is due). */
  private async record(
    deliveryId: string,
    url: string,
    at: Date,
    result: WebhookPostResult,
    final: boolean,
    attempt = 1,
  ): Promise<void> {
    const retryInMs = this.config.REPORT_WEBHOOK_BACKOFF_MS * 2 ** (attempt - 1);
    await recordWebhookAttempt(this.prisma, deliveryId, {
      ...result,
      attempt,
      url,
      at,
      final,
      nextAttemptAt: new Date(at.getTime() + result.durationMs + retryInMs),
    });
  }
}
