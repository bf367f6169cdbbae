import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Prisma, PrismaService, type ReadDb } from '@zw/db';
import { enqueueWebhookDelivery, REPORT_DELIVERIES_QUEUE, type ReportsConfig } from '@zw/queue';
import { buildReportDocument, renderCsv, renderHtml } from '@zw/reports';
import type { Queue } from 'bullmq';
import { readReportInput } from './report-content.js';
import { REPORTS_CONFIG, REPORTS_READ_DB } from './reports-worker.config.js';
import { ReadModelPublisher } from '../read-model-events.js';

export type GenerateOutcome =
  { made: true; reportId: string; deliveryId: string | null } | { made: false; reportId: string; reason: string };

/**
 * Makes one claimed report. The history is read and rendered outside any transaction; then one short
 * transaction locks the report's row, and only if it is still not ready stores the document, the
 * rendered formats and (when the schedule has a webhook) its delivery. A retry, or a second worker that
 * raced this one, finds it ready and stops: the report and its delivery exist once.
 */
@Injectable()
export class ReportGenerator {
  private readonly logger = new Logger('ReportGenerator');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(REPORTS_READ_DB) private readonly db: ReadDb,
    @InjectQueue(REPORT_DELIVERIES_QUEUE) private readonly deliveries: Queue,
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    @Inject(ReadModelPublisher) private readonly events: ReadModelPublisher,
  ) {}

  async generate(reportId: string, now = new Date()): Promise<GenerateOutcome> {
    const report = await this.prisma.report.findUnique({ where: { id: reportId }, include: { schedule: true } });
    if (!report) return { made: false, reportId, reason: 'deleted (with its schedule)' };
    if (report.status === 'ready') return { made: false, reportId, reason: 'already made' };
    await this.prisma.report.update({ where: { id: reportId }, data: { attempts: { increment: 1 } } });
    const { schedule } = report;
    const input = await readReportInput(
      this.db,
      schedule,
      {
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
      },
      now,
    );
    const document = buildReportDocument(input);
    const csv = report.formats.includes('csv') ? renderCsv(document) : null;
    const html = report.formats.includes('html') ? renderHtml(document) : null;
    const summary = {
      label: document.period.label,
      totals: document.totals,
      missedByReason: document.missedSavings.byReason,
    };
    const deliveryId = await this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ status: string }[]>`
        SELECT status::text FROM reports WHERE id = ${reportId}::uuid FOR UPDATE`;
      if (!row || row.status === 'ready') return undefined;
      await tx.report.update({
        where: { id: reportId },
        data: {
          status: 'ready',
          error: null,
          document: document as unknown as Prisma.InputJsonValue,
          summary: summary as unknown as Prisma.InputJsonValue,
          csv,
          html,
          generatedAt: now,
        },
      });
      if (!schedule.webhookUrl) return null;
      const delivery = await tx.webhookDelivery.create({ data: { reportId, url: schedule.webhookUrl } });
      return delivery.id;
    });
    if (deliveryId === undefined) return { made: false, reportId, reason: 'made meanwhile by another run' };
    this.events.liveEvent('report.ready', {
      organizationId: schedule.organizationId,
      reportId,
      scheduleId: schedule.id,
    });
    if (deliveryId !== null) {
      try {
        await enqueueWebhookDelivery(this.deliveries, deliveryId, this.config);
      } catch (error) {
        this.logger.warn(`could not enqueue delivery ${deliveryId} (the sweep will): ${String(error)}`);
      }
    }
    this.logger.log(`made report ${reportId} (${document.period.label}) of schedule ${schedule.id}`);
    return { made: true, reportId, deliveryId };
  }

  /** After the last attempt: the report says it failed, and why. */
  async markFailed(reportId: string, reason: string): Promise<void> {
    await this.prisma.report.updateMany({
      where: { id: reportId, status: 'pending' },
      data: { status: 'failed', error: reason.slice(0, 2000) },
    });
  }
}
