import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  countReportAttempt,
  markReportFailed,
  PrismaService,
  type ReadDb,
  reportToMake,
  storeMadeReport,
  type StoredReport,
} from '@zw/db';
import {
  ALERTS_QUEUE,
  type AlertsConfig,
  enqueueAlertDelivery,
  enqueueWebhookDelivery,
  REPORT_DELIVERIES_QUEUE,
  type ReportsConfig,
} from '@zw/queue';
import { buildReportDocument, type ReportBodies, reportBodies } from '@zw/reports';
import type { Queue } from 'bullmq';
import { readReportInput } from './report-content.js';
import { REPORTS_CONFIG, REPORTS_READ_DB } from './reports-worker.config.js';
import { ReadModelPublisher } from '../read-model-events.js';
import { ALERTS_CONFIG } from '../alerts/alerts-config.token.js';

/** A claimed report with its schedule, as the worker reads it to make it. */
type ReportToMake = NonNullable<Awaited<ReturnType<typeof reportToMake>>>;

export type GenerateOutcome =
  { made: true; reportId: string; deliveryId: string | null } | { made: false; reportId: string; reason: string };

/**
 * Makes one claimed report. The history is read and rendered outside any transaction; then one short
 * transaction locks the report's row, and only if it is still not ready stores the document, the
 * rendered formats and its deliveries (the schedule's signed webhook, one per alert channel it names). A
 * retry, or a second worker that raced this one, finds it ready and stops: the report and each delivery
 * exist once.
 */
@Injectable()
export class ReportGenerator {
  private readonly logger = new Logger('ReportGenerator');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(REPORTS_READ_DB) private readonly db: ReadDb,
    @InjectQueue(REPORT_DELIVERIES_QUEUE) private readonly deliveries: Queue,
    @InjectQueue(ALERTS_QUEUE) private readonly alerts: Queue,
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    @Inject(ALERTS_CONFIG) private readonly alertsConfig: AlertsConfig,
    @Inject(ReadModelPublisher) private readonly events: ReadModelPublisher,
  ) {}

  async generate(reportId: string, now = new Date()): Promise<GenerateOutcome> {
    const report = await reportToMake(this.prisma, reportId);
    if (!report) return { made: false, reportId, reason: 'deleted (with its schedule)' };
    if (report.status === 'ready') return { made: false, reportId, reason: 'already made' };
    await countReportAttempt(this.prisma, reportId);
    const { schedule } = report;
    const bodies = await this.bodiesOf(report, now);
    const stored = await storeMadeReport(this.prisma.pool, {
      reportId,
      organizationId: schedule.organizationId,
      documentJson: bodies.documentJson,
      summaryJson: bodies.summaryJson,
      csv: bodies.csv,
      html: bodies.html,
      generatedAt: now,
      webhookUrl: schedule.webhookUrl,
      channelIds: schedule.channelIds,
    });
    if (stored === null) return { made: false, reportId, reason: 'made meanwhile by another run' };
    this.events.liveEvent('report.ready', {
      organizationId: schedule.organizationId,
      reportId,
      scheduleId: schedule.id,
    });
    await this.enqueueDeliveries(stored);
    this.logger.log(`made report ${reportId} (${bodies.label}) of schedule ${schedule.id}`);
    return { made: true, reportId, deliveryId: stored.webhookDeliveryId };
  }

  /**
   * The report's bodies, read and rendered: its input and document are garbage once this returns, so they
   * are not held while the bodies are stored (reportBodies says why).
   */
  private async bodiesOf(report: ReportToMake, now: Date): Promise<ReportBodies> {
    const { schedule } = report;
    const meta = {
      id: report.id,
      schedule: {
        id: schedule.id,
        name: schedule.name,
        cadence: schedule.cadence,
        cron: schedule.cronExpression,
        timeZone: schedule.timeZone,
      },
      period: { start: report.periodStart, end: report.periodEnd },
      partial: report.partial,
      trigger: report.trigger,
      generatedAt: now,
    };
    const input = await readReportInput(this.db, schedule, meta, now, this.config.REPORT_MAX_SERVICES);
    return reportBodies(buildReportDocument(input), report.formats);
  }

  /** Enqueued after the commit; a delivery whose enqueue fails is re-enqueued by its queue's sweep. */
  private async enqueueDeliveries(stored: StoredReport): Promise<void> {
    try {
      if (stored.webhookDeliveryId !== null) {
        await enqueueWebhookDelivery(this.deliveries, stored.webhookDeliveryId, this.config);
      }
      for (const delivery of stored.channelDeliveries) {
        await enqueueAlertDelivery(this.alerts, delivery, this.alertsConfig);
      }
    } catch (error) {
      this.logger.warn(`could not enqueue a report delivery (the sweep will): ${String(error)}`);
    }
  }

  /** After the last attempt: the report says it failed, and why. */
  async markFailed(reportId: string, reason: string): Promise<void> {
    await markReportFailed(this.prisma, reportId, reason);
  }
}
