import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  claimReportPeriod,
  hasReportSchedule,
  PrismaService,
  reportDownload,
  type ReportFormat,
  reportViewOf,
  reportViewsOf,
  retryFailedReport,
} from '@zw/db';
import { enqueueReportGeneration, REPORTS_QUEUE, type ReportsConfig } from '@zw/queue';
import { storedReportJson } from '@zw/reports';
import type { Queue } from 'bullmq';
import type { z } from 'zod';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import { QueueAvailability } from '../http/queue-availability.js';
import { notFound, ProblemException } from '../problem.js';
import { reportView } from './report-views.js';
import { REPORTS_CONFIG } from './reports-config.js';
import type { ListReportsQuery, ReportListView, ReportView, RunView } from './reports.schemas.js';

const CONTENT_TYPES: Record<ReportFormat, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/**
 * An HTML report served from the API's origin may only style itself: no script, no fetch, no frame,
 * whatever a cluster or schedule name might smuggle in (they are escaped anyway).
 */
const HTML_SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
  'X-Content-Type-Options': 'nosniff',
};

export interface Download {
  headers: Record<string, string>;
  body: string;
}

/**
 * A ready report's file never changes once made, so its id, format and making time name its bytes.
 * Decision: set here rather than left to Express, which hashed the whole body for it (a 174 MB JSON
 * document for an organization of 200,000 Services).
 */
function downloadTag(id: string, format: ReportFormat, generatedAt: Date | null): string {
  return `"${id}.${format}.${generatedAt?.getTime() ?? 0}"`;
}

export function reportNotFound(id: string): ProblemException {
  return notFound(`no report ${id} in your organization`);
}

/** Reports of one organization: listing, detail, downloads, and claiming a period for a manual run. */
@Injectable()
export class ReportsService {
  private readonly logger = new Logger('Reports');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(REPORTS_QUEUE) private readonly queue: Queue,
    @Inject(QueueAvailability) private readonly queueAvailability: QueueAvailability,
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
  ) {}

  async list(organizationId: string, query: z.output<typeof ListReportsQuery>): Promise<ReportListView> {
    if (query.scheduleId) {
      const owned = await hasReportSchedule(this.prisma, organizationId, query.scheduleId);
      if (!owned) throw notFound(`no report schedule ${query.scheduleId} in your organization`);
    }
    const print = fingerprint(['reports', query.scheduleId ?? null, query.status ?? null]);
    const after = decodeCursor(query.cursor, print);
    const rows = await reportViewsOf(this.prisma, organizationId, {
      scheduleId: query.scheduleId,
      status: query.status,
      after: after ? { periodEnd: new Date(String(after.k[0])), id: String(after.k[1]) } : null,
      take: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      reports: page.map(reportView),
      nextCursor:
        rows.length > query.limit ? encodeCursor({ f: print, k: [last.periodEnd.toISOString(), last.id] }) : null,
    };
  }

  async get(organizationId: string, id: string): Promise<ReportView> {
    const row = await reportViewOf(this.prisma, organizationId, id);
    if (!row) throw reportNotFound(id);
    return reportView(row);
  }

  async download(organizationId: string, id: string, format: ReportFormat): Promise<Download> {
    const row = await reportDownload(this.prisma, organizationId, id, format);
    if (!row) throw reportNotFound(id);
    if (row.status !== 'ready') {
      throw new ProblemException(409, `report ${id} is ${row.status}: it can be downloaded once its status is ready`, {
        reportStatus: row.status,
      });
    }
    const body =
      format === 'json'
        ? storedReportJson({ documentJson: row.documentJson ?? null, document: row.document ?? null })
        : format === 'csv'
          ? row.csv
          : row.html;
    if (!row.formats.includes(format) || body === null || body === undefined) {
      throw notFound(`report ${id} was made as ${row.formats.join(', ')}, not ${format}`);
    }
    const slug =
      row.schedule.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'report';
    const filename = `zonewise-${slug}-${row.periodStart.toISOString().slice(0, 10)}.${format}`;
    return {
      headers: {
        'Content-Type': CONTENT_TYPES[format],
        ETag: downloadTag(id, format, row.generatedAt),
        'Content-Disposition': `attachment; filename="${filename}"`,
        ...(format === 'html' ? HTML_SECURITY_HEADERS : { 'X-Content-Type-Options': 'nosniff' }),
      },
      body,
    };
  }

  /**
   * Claims a period of a schedule and has the worker make it. Answers the report and whether it was made
   * by this call (`accepted`: the worker makes it now) or already existed (answered as it is; a failed
   * one is made again).
   */
  async claimAndEnqueue(input: {
    organizationId: string;
    scheduleId: string;
    periodStart: Date;
    periodEnd: Date;
    partial: boolean;
    formats: ReportFormat[];
  }): Promise<RunView> {
    const { report, created } = await claimReportPeriod(this.prisma, { ...input, trigger: 'manual' });
    let accepted = created;
    if (!created && report.status === 'failed') {
      accepted = await retryFailedReport(this.prisma, report.id);
    }
    if (accepted) await this.enqueue(report.id);
    return {
      accepted: accepted || report.status === 'pending',
      report: await this.get(input.organizationId, report.id),
    };
  }

  private async enqueue(reportId: string): Promise<void> {
    try {
      // Redis away: BullMQ would hold the request for the whole outage; the sweep enqueues it later.
      await this.queueAvailability.assertAvailable();
      await enqueueReportGeneration(this.queue, reportId, this.config);
    } catch (error) {
      // The row is claimed: the worker's sweep finds pending reports without a job and enqueues them.
      this.logger.warn(`could not enqueue report ${reportId} (the worker's sweep will): ${String(error)}`);
    }
  }
}
