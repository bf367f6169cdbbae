import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCluster,
  addReportSchedule,
  repositoryDatabase,
  type RepositoryDatabase,
} from '../../../test/support/repositories.js';
import {
  claimReportPeriod,
  countOwnedClusters,
  createReportSchedule,
  deleteReportSchedule,
  hasReportSchedule,
  ownedClusterIds,
  reportDownload,
  reportScheduleNameOf,
  reportScheduleOf,
  reportViewOf,
  reportViewsOf,
  retryFailedReport,
  scheduleViewOf,
  scheduleViewsOf,
  updateReportSchedule,
} from '../src/index.js';

/** The reports API's reads: an organization's schedules and reports, never another organization's. */
let db: RepositoryDatabase;
let organizationId: string;
let otherOrganizationId: string;
let scheduleId: string;
let otherScheduleId: string;
let foreignScheduleId: string;

const day = (n: number) => new Date(Date.UTC(2026, 0, n));

/** The report of the schedule's day `n` (manual, JSON), in `status`; its id. */
async function report(schedule: string, organization: string, n: number, status: 'pending' | 'ready' | 'failed') {
  const { report } = await claimReportPeriod(db.prisma, {
    organizationId: organization,
    scheduleId: schedule,
    periodStart: day(n),
    periodEnd: day(n + 1),
    trigger: 'manual',
    partial: false,
    formats: ['json'],
  });
  await db.prisma.report.update({
    where: { id: report.id },
    data: {
      status,
      ...(status === 'ready'
        ? { documentJson: JSON.stringify({ day: n }), generatedAt: day(n + 1) }
        : { error: status === 'failed' ? 'x' : null }),
    },
  });
  return report.id;
}

beforeAll(async () => {
  db = await repositoryDatabase('repo_report_settings');
  ({ organizationId } = await addCluster(db.prisma, { organizationSlug: 'reported', name: 'a' }));
  ({ organizationId: otherOrganizationId } = await addCluster(db.prisma, { organizationSlug: 'other', name: 'b' }));
  scheduleId = await addReportSchedule(db.prisma, organizationId, {
    name: 'daily',
    createdAt: day(1),
    webhookSecret: 'zws_secret',
  });
  otherScheduleId = await addReportSchedule(db.prisma, organizationId, { name: 'weekly', createdAt: day(2) });
  foreignScheduleId = await addReportSchedule(db.prisma, otherOrganizationId, { name: 'theirs', createdAt: day(1) });
});

afterAll(async () => {
  await db?.drop();
});

describe('report reads', () => {
  it("page through the organization's reports, newest period first, by schedule and status", async () => {
    const first = await report(scheduleId, organizationId, 1, 'ready');
    const second = await report(scheduleId, organizationId, 2, 'failed');
    const weekly = await report(otherScheduleId, organizationId, 3, 'pending');
    const foreign = await report(foreignScheduleId, otherOrganizationId, 4, 'ready');
    const ids = async (page: Parameters<typeof reportViewsOf>[2]) =>
      (await reportViewsOf(db.prisma, organizationId, page)).map((row) => row.id);

    expect(await ids({ take: 10 })).toEqual([weekly, second, first]);
    expect(await ids({ scheduleId, take: 10 })).toEqual([second, first]);
    expect(await ids({ status: 'ready', take: 10 })).toEqual([first]);
    expect(await ids({ after: { periodEnd: day(3), id: second }, take: 10 })).toEqual([first]);
    expect(await ids({ take: 1 })).toEqual([weekly]);
    expect(await ids({ scheduleId: foreignScheduleId, take: 10 })).toEqual([]);

    expect(await reportViewOf(db.prisma, organizationId, first)).toMatchObject({
      id: first,
      status: 'ready',
      schedule: { id: scheduleId, name: 'daily', timeZone: 'UTC' },
      delivery: null,
    });
    expect(await reportViewOf(db.prisma, organizationId, foreign)).toBeNull();
  });

  it('download reads the rendering asked for alone, and only from the organization', async () => {
    const id = await report(scheduleId, organizationId, 10, 'ready');

    const json = await reportDownload(db.prisma, organizationId, id, 'json');
    expect(json).toEqual({
      status: 'ready',
      formats: ['json'],
      periodStart: day(10),
      generatedAt: day(11),
      documentJson: '{"day":10}',
      document: null,
      schedule: { name: 'daily' },
    });
    expect(await reportDownload(db.prisma, organizationId, id, 'csv')).toEqual({
      status: 'ready',
      formats: ['json'],
      periodStart: day(10),
      generatedAt: day(11),
      csv: null,
      schedule: { name: 'daily' },
    });
    expect(await reportDownload(db.prisma, otherOrganizationId, id, 'json')).toBeNull();
  });

  it('retryFailedReport sets a failed report pending again, and nothing else', async () => {
    const failed = await report(scheduleId, organizationId, 20, 'failed');
    const ready = await report(scheduleId, organizationId, 21, 'ready');

    expect(await retryFailedReport(db.prisma, failed)).toBe(true);
    expect(await retryFailedReport(db.prisma, failed)).toBe(false);
    expect(await retryFailedReport(db.prisma, ready)).toBe(false);
    const rows = await db.prisma.report.findMany({
      where: { id: { in: [failed, ready] } },
      orderBy: { periodEnd: 'asc' },
    });
    expect(rows.map((row) => [row.status, row.error])).toEqual([
      ['pending', null],
      ['ready', null],
    ]);
  });
});

describe('schedule reads', () => {
  it("read the organization's schedules, oldest first, with their newest report; never another's", async () => {
    expect(await hasReportSchedule(db.prisma, organizationId, scheduleId)).toBe(true);
    expect(await hasReportSchedule(db.prisma, organizationId, foreignScheduleId)).toBe(false);

    const views = await scheduleViewsOf(db.prisma, organizationId, { take: 10 });
    expect(views.map((row) => row.name)).toEqual(['daily', 'weekly']);
    expect(views[0]).not.toHaveProperty('webhookSecret');
    expect(
      await scheduleViewsOf(db.prisma, organizationId, { after: { createdAt: day(1), id: scheduleId }, take: 10 }),
    ).toHaveLength(1);

    await report(scheduleId, organizationId, 29, 'ready');
    const newest = await report(scheduleId, organizationId, 30, 'pending');
    expect((await scheduleViewOf(db.prisma, organizationId, scheduleId))?.reports).toEqual([
      { id: newest, periodStart: day(30), periodEnd: day(31), status: 'pending' },
    ]);
    expect(await scheduleViewOf(db.prisma, organizationId, foreignScheduleId)).toBeNull();

    expect(await reportScheduleOf(db.prisma, organizationId, scheduleId)).toMatchObject({
      webhookSecret: 'zws_secret',
    });
    expect(await reportScheduleOf(db.prisma, otherOrganizationId, scheduleId)).toBeNull();
  });
});

describe('ownedClusterIds and countOwnedClusters', () => {
  it("keeps the organization's clusters among those asked about", async () => {
    const { clusterId: mine } = await addCluster(db.prisma, { organizationSlug: 'reported', name: 'mine' });
    const { clusterId: theirs } = await addCluster(db.prisma, { organizationSlug: 'other', name: 'theirs' });

    expect(await ownedClusterIds(db.prisma, organizationId, [mine, theirs])).toEqual([mine]);
    expect(await ownedClusterIds(db.prisma, otherOrganizationId, [mine, theirs])).toEqual([theirs]);
    expect(await ownedClusterIds(db.prisma, organizationId, [])).toEqual([]);
    expect(await countOwnedClusters(db.prisma, organizationId, [mine, theirs])).toBe(1);
    expect(await countOwnedClusters(db.prisma, otherOrganizationId, [theirs])).toBe(1);
  });
});

describe('schedule writes', () => {
  it('create, change and delete a schedule (with its reports), its name found only in its organization', async () => {
    const id = await createReportSchedule(db.prisma, {
      organizationId,
      name: 'monthly',
      cadence: 'monthly',
      cronExpression: '0 0 1 * *',
      timeZone: 'Europe/Paris',
      formats: ['csv'],
      anchorAt: day(1),
    });
    expect(await reportScheduleNameOf(db.prisma, organizationId, id)).toBe('monthly');
    expect(await reportScheduleNameOf(db.prisma, otherOrganizationId, id)).toBeNull();

    await updateReportSchedule(db.prisma, id, { name: 'month-end', enabled: false });
    expect(await reportScheduleOf(db.prisma, organizationId, id)).toMatchObject({
      name: 'month-end',
      enabled: false,
      timeZone: 'Europe/Paris',
    });

    const made = await report(id, organizationId, 40, 'ready');
    await deleteReportSchedule(db.prisma, id);
    expect(await reportScheduleNameOf(db.prisma, organizationId, id)).toBeNull();
    expect(await reportViewOf(db.prisma, organizationId, made)).toBeNull();
    expect(await scheduleViewOf(db.prisma, organizationId, scheduleId)).not.toBeNull();
  });
});
