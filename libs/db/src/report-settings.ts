/**
 * What the reports API reads: an organization's report schedules and reports. Every read takes the
 * organization: another organization's id finds nothing.
 */
import type { Db } from './db-client.js';
import type { Prisma, ReportFormat, ReportStatus } from './generated/prisma/client.js';

/** The columns a report view needs: never the document or the rendered files. */
export const REPORT_VIEW_COLUMNS = {
  id: true,
  periodStart: true,
  periodEnd: true,
  partial: true,
  trigger: true,
  status: true,
  error: true,
  attempts: true,
  formats: true,
  summary: true,
  createdAt: true,
  generatedAt: true,
  schedule: { select: { id: true, name: true, timeZone: true } },
  delivery: true,
} satisfies Prisma.ReportSelect;

export type ReportViewRow = Prisma.ReportGetPayload<{ select: typeof REPORT_VIEW_COLUMNS }>;

/** A schedule's columns as its view shows them (never its webhook secret), with its newest report. */
export const SCHEDULE_VIEW_COLUMNS = {
  id: true,
  organizationId: true,
  name: true,
  cadence: true,
  cronExpression: true,
  timeZone: true,
  clusterIds: true,
  formats: true,
  webhookUrl: true,
  webhookSecretPrefix: true,
  channelIds: true,
  enabled: true,
  anchorAt: true,
  createdAt: true,
  updatedAt: true,
  reports: {
    select: { id: true, periodStart: true, periodEnd: true, status: true },
    orderBy: [{ periodEnd: 'desc' }, { id: 'desc' }],
    take: 1,
  },
} satisfies Prisma.ReportScheduleSelect;

export type ScheduleViewRow = Prisma.ReportScheduleGetPayload<{ select: typeof SCHEDULE_VIEW_COLUMNS }>;

export interface ReportPage {
  scheduleId?: string;
  status?: ReportStatus;
  /** The last report of the previous page: the page starts after it. */
  after?: { periodEnd: Date; id: string } | null;
  take: number;
}

/** Whether the organization has this report schedule. */
export async function hasReportSchedule(db: Db, organizationId: string, scheduleId: string): Promise<boolean> {
  return (await db.reportSchedule.count({ where: { id: scheduleId, organizationId } })) > 0;
}

/** The organization's reports (of one schedule, in one status), newest period first (ties by id). */
export function reportViewsOf(db: Db, organizationId: string, page: ReportPage) {
  const { scheduleId, status, after } = page;
  return db.report.findMany({
    where: {
      organizationId,
      ...(scheduleId ? { scheduleId } : {}),
      ...(status ? { status } : {}),
      ...(after
        ? { OR: [{ periodEnd: { lt: after.periodEnd } }, { periodEnd: after.periodEnd, id: { lt: after.id } }] }
        : {}),
    },
    orderBy: [{ periodEnd: 'desc' }, { id: 'desc' }],
    take: page.take,
    select: REPORT_VIEW_COLUMNS,
  });
}

export function reportViewOf(db: Db, organizationId: string, id: string) {
  return db.report.findFirst({ where: { id, organizationId }, select: REPORT_VIEW_COLUMNS });
}

/** A report's status, formats and period with the one rendering asked for (the JSON document, CSV or HTML). */
export function reportDownload(db: Db, organizationId: string, id: string, format: ReportFormat) {
  return db.report.findFirst({
    where: { id, organizationId },
    select: {
      status: true,
      formats: true,
      periodStart: true,
      generatedAt: true,
      documentJson: format === 'json',
      document: format === 'json',
      csv: format === 'csv',
      html: format === 'html',
      schedule: { select: { name: true } },
    },
  });
}

/** Sets a failed report pending again, to be made anew; false when it is not failed (any more). */
export async function retryFailedReport(db: Db, reportId: string): Promise<boolean> {
  const { count } = await db.report.updateMany({
    where: { id: reportId, status: 'failed' },
    data: { status: 'pending', error: null },
  });
  return count === 1;
}

/** The organization's schedules, oldest first (ties by id), each with its newest report. */
export function scheduleViewsOf(
  db: Db,
  organizationId: string,
  page: { after?: { createdAt: Date; id: string } | null; take: number },
) {
  const { after } = page;
  return db.reportSchedule.findMany({
    where: {
      organizationId,
      ...(after
        ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: page.take,
    select: SCHEDULE_VIEW_COLUMNS,
  });
}

export function scheduleViewOf(db: Db, organizationId: string, id: string) {
  return db.reportSchedule.findFirst({ where: { id, organizationId }, select: SCHEDULE_VIEW_COLUMNS });
}

/** The organization's schedule with every column (its webhook secret too, sealed), or null. */
export function reportScheduleOf(db: Db, organizationId: string, id: string) {
  return db.reportSchedule.findFirst({ where: { id, organizationId } });
}

/** Creates a report schedule; its id. */
export async function createReportSchedule(
  db: Db,
  schedule: Prisma.ReportScheduleUncheckedCreateInput,
): Promise<string> {
  const { id } = await db.reportSchedule.create({ data: schedule, select: { id: true } });
  return id;
}

/** Changes a schedule's columns (the caller found it the organization's). */
export async function updateReportSchedule(
  db: Db,
  id: string,
  changes: Prisma.ReportScheduleUpdateInput,
): Promise<void> {
  await db.reportSchedule.update({ where: { id }, data: changes });
}

/** The name of the organization's schedule, or null when it has no such schedule. */
export async function reportScheduleNameOf(db: Db, organizationId: string, id: string): Promise<string | null> {
  const schedule = await db.reportSchedule.findFirst({ where: { id, organizationId }, select: { name: true } });
  return schedule?.name ?? null;
}

/** Deletes a schedule with its reports and deliveries (foreign keys cascade). */
export async function deleteReportSchedule(db: Db, id: string): Promise<void> {
  await db.reportSchedule.delete({ where: { id } });
}
