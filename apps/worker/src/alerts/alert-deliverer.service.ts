import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  alertsOfGroup,
  claimDelivery,
  clearChannelFailing,
  deliveryToSend,
  type DeliveryToSend,
  finishAttempt,
  heldCounterpart,
  openChannelSecrets,
  organizationNames,
  PrismaService,
  raiseChannelFailing,
  skipDelivery,
} from '@zw/db';
import {
  type AlertEvent,
  alertGroupMessage,
  type AlertKind,
  alertMessage,
  type ChannelKind,
  type ChannelMessage,
  reportMessage,
  type ReportEvent,
  sendChannelMessage,
  type SignatureScheme,
  type WebhookPostResult,
} from '@zw/notify';
import type { AlertsConfig } from '@zw/queue';
import { WebhookSecretKeys } from '../reports/webhook-secret-sealer.service.js';
import { ALERTS_CONFIG } from './alerts-config.token.js';
import { AlertEvaluator } from './alert-evaluator.service.js';

type Organization = { slug: string; name: string };

export type AlertDeliveryOutcome =
  | { sent: true; statusCode: number | null; resent: boolean }
  | { sent: false; skipped: string }
  | { sent: false; error: string; final: boolean };

/**
 * Sends one delivery, at most once per attempt and never again once it succeeded:
 *
 * 1. the row is claimed (`pending`/`sending` → `sending`, attempts + 1) before anything leaves;
 * 2. the message is sent, carrying the delivery id as its idempotency key (Standard Webhooks'
 *    `webhook-id`, the email's Message-ID);
 * 3. the outcome is recorded (`succeeded`, or back to `pending` for BullMQ's retry with backoff, or
 *    `failed` after the last attempt, which raises the channel's own `channel-failing` alert).
 *
 * A worker killed between 1 and 3 leaves the row `sending`; BullMQ hands the stalled job to another
 * worker, which sends again under the same id (a message whose receipt is unknown is resent rather than
 * lost), so a receiver that keeps the ids it saw, as Standard Webhooks asks, acts on it once.
 */
@Injectable()
export class AlertDeliverer {
  private readonly logger = new Logger('AlertDeliverer');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ALERTS_CONFIG) private readonly config: AlertsConfig,
    @Inject(WebhookSecretKeys) private readonly secrets: WebhookSecretKeys,
    @Inject(AlertEvaluator) private readonly evaluator: AlertEvaluator,
  ) {}

  async deliver(
    deliveryId: string,
    attempt: number,
    attempts: number,
    now = new Date(),
  ): Promise<AlertDeliveryOutcome> {
    const delivery = await deliveryToSend(this.prisma, deliveryId);
    if (!delivery) return { sent: false, skipped: 'deleted (with its channel, alert or report)' };
    if (!['pending', 'sending'].includes(delivery.status)) return { sent: false, skipped: delivery.status };
    const { channel, alert } = delivery;
    if (!channel.enabled) return this.finish(deliveryId, 'the channel is disabled');
    // An alert that opened and cleared within the quiet hours: neither message is worth sending. Both
    // jobs wake at the window's end and may run at once, in either order, so each checks for the other.
    if (isAlertEvent(delivery.event) && alert?.resolvedAt && delivery.notBefore) {
      const other = await heldCounterpart(this.prisma, alert.id, channel.id, delivery.event);
      if (other) {
        await this.finish(other.id, 'opened and cleared during quiet hours');
        return this.finish(deliveryId, 'opened and cleared during quiet hours');
      }
    }
    const opened = openChannelSecrets(this.secrets.keyring, channel);
    const organization = await organizationNames(this.prisma, delivery.organizationId);
    if (!(await claimDelivery(this.prisma, deliveryId, now))) return { sent: false, skipped: 'finished meanwhile' };
    const resent = delivery.status === 'sending';
    if (resent)
      this.logger.warn(`delivery ${deliveryId}: an earlier attempt was interrupted; sending again under the same id`);
    const result: WebhookPostResult =
      'problem' in opened
        ? { ok: false, statusCode: null, error: opened.problem, durationMs: 0 }
        : await sendChannelMessage(
            {
              kind: channel.kind as ChannelKind,
              target: opened.target,
              secret: opened.secret,
              signature: channel.signature as SignatureScheme | null,
            },
            await this.message(delivery, organization, now),
            {
              timeoutMs: this.config.ALERT_DELIVERY_TIMEOUT_MS,
              allowPrivate: this.config.ALERT_ALLOW_PRIVATE,
              smtp: this.config.SMTP_URL ? { url: this.config.SMTP_URL, from: this.config.SMTP_FROM } : null,
            },
            now,
          );
    const final = attempt >= attempts;
    await finishAttempt(this.prisma, deliveryId, { ...result, final, at: new Date() });
    const owner = { id: channel.id, organizationId: channel.organizationId, name: channel.name };
    if (result.ok) {
      await this.evaluator.enqueue(await clearChannelFailing(this.prisma, owner, new Date()));
      return { sent: true, statusCode: result.statusCode, resent };
    }
    if (final) {
      this.logger.warn(`delivery ${deliveryId} to channel ${channel.id} failed for good: ${result.error}`);
      await this.evaluator.enqueue(await raiseChannelFailing(this.prisma, owner, result.error ?? 'failed', new Date()));
    }
    return { sent: false, error: result.error ?? 'failed', final };
  }

  /** What the delivery says: its report, its alert (or group of alerts) opening or resolving, or a test. */
  private async message(delivery: DeliveryToSend, organization: Organization, now: Date): Promise<ChannelMessage> {
    const { channel, alert, report } = delivery;
    if (report) return reportMessage(reportEvent(delivery.id, report, organization, this.config.PUBLIC_URL, now));
    if (delivery.alertIds.length > 0) {
      const alerts = await alertsOfGroup(this.prisma, delivery.alertIds);
      return alertGroupMessage({
        deliveryId: delivery.id,
        type: delivery.event as 'opened' | 'resolved',
        ruleName: alerts[0]?.rule?.name ?? null,
        alerts: alerts.map(alertView),
        organization,
        link: `${this.config.PUBLIC_URL}/alerts`,
        at: now.toISOString(),
      });
    }
    return alertMessage({
      deliveryId: delivery.id,
      type: delivery.event as 'opened' | 'resolved' | 'test',
      alert: alert
        ? alertView(alert)
        : {
            id: null,
            kind: 'test',
            subject: `channel:${channel.id}`,
            summary: `A test message from zonewise: alerts of ${organization.name} reach the channel "${channel.name}".`,
            ruleName: null,
            openedAt: delivery.createdAt.toISOString(),
            resolvedAt: null,
            details: {},
          },
      organization,
      link: `${this.config.PUBLIC_URL}${alert?.path ?? '/alerts'}`,
      at: now.toISOString(),
    });
  }

  private async finish(id: string, why: string): Promise<AlertDeliveryOutcome> {
    await skipDelivery(this.prisma, id, why);
    return { sent: false, skipped: why };
  }
}

function isAlertEvent(event: string): event is 'opened' | 'resolved' {
  return event === 'opened' || event === 'resolved';
}

function alertView(alert: NonNullable<DeliveryToSend['alert']>): AlertEvent['alert'] {
  return {
    id: alert.id,
    kind: alert.kind as AlertKind,
    subject: alert.subject,
    summary: alert.summary,
    ruleName: alert.rule?.name ?? null,
    openedAt: alert.openedAt.toISOString(),
    resolvedAt: alert.resolvedAt?.toISOString() ?? null,
    details: alert.details as Record<string, unknown>,
  };
}

/** The report's summary (the document's label and totals, stored when it was made) as a channel event. */
function reportEvent(
  deliveryId: string,
  report: NonNullable<DeliveryToSend['report']>,
  organization: Organization,
  publicUrl: string,
  now: Date,
): ReportEvent {
  const summary = report.summary as unknown as { label: string; totals: ReportEvent['totals'] };
  return {
    deliveryId,
    report: {
      id: report.id,
      scheduleName: report.schedule.name,
      periodLabel: summary.label,
      periodStart: report.periodStart.toISOString(),
      periodEnd: report.periodEnd.toISOString(),
      partial: report.partial,
      generatedAt: (report.generatedAt ?? now).toISOString(),
    },
    totals: summary.totals,
    organization,
    link: `${publicUrl}/reports?scheduleId=${report.schedule.id}`,
    html: report.html,
    csv: report.csv,
    at: now.toISOString(),
  };
}
