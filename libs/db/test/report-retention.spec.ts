import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import { createOrganization, pruneReports } from '../src/index.js';

/**
 * Report retention on real Postgres: reports whose period ended before the cutoff go with their
 * deliveries; those still being made stay, and so does each schedule's newest scheduled report, whatever
 * its age, since the scheduler claims the periods after it.
 */
const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 29);
const CUTOFF = new Date(NOW - 400 * DAY_MS);

let db: RepositoryDatabase;
let organizationId: string;

async function schedule(name: string): Promise<string> {
  const row = await db.prisma.reportSchedule.create({
    data: {
      organizationId,
      name,
      cadence: 'daily',
      cronExpression: '0 0 * * *',
      timeZone: 'UTC',
      formats: ['json'],
      anchorAt: new Date(NOW - 900 * DAY_MS),
    },
  });
  return row.id;
}

/** A report of the day `daysAgo` days before NOW (its period ends at that day's end). */
async function report(
  scheduleId: string,
  daysAgo: number,
  options: { trigger?: 'schedule' | 'manual'; status?: 'pending' | 'ready' | 'failed'; delivery?: boolean } = {},
): Promise<string> {
  const start = new Date(NOW - (daysAgo + 1) * DAY_MS);
  const row = await db.prisma.report.create({
    data: {
      organizationId,
      scheduleId,
      periodStart: start,
      periodEnd: new Date(start.getTime() + DAY_MS),
      trigger: options.trigger ?? 'schedule',
      status: options.status ?? 'ready',
      formats: ['json'],
      documentJson: '{}',
      ...(options.delivery
        ? { delivery: { create: { url: 'https://receiver.example/hook', status: 'succeeded' } } }
        : {}),
    },
  });
  return row.id;
}

const remaining = async () => new Set((await db.prisma.report.findMany({ select: { id: true } })).map((r) => r.id));

beforeAll(async () => {
  db = await repositoryDatabase('repo_report_retention');
  organizationId = (await createOrganization(db.prisma, { slug: 'acme' })).id;
}, 120_000);

afterAll(async () => {
  await db?.drop();
});

describe('pruneReports', () => {
  it('deletes reports whose period ended before the cutoff, with their deliveries, in batches', async () => {
    const daily = await schedule('daily');
    const old = [await report(daily, 700, { delivery: true }), await report(daily, 500), await report(daily, 401)];
    const oldManual = await report(daily, 450, { trigger: 'manual', status: 'failed' });
    const kept = [await report(daily, 399), await report(daily, 2), await report(daily, 30, { trigger: 'manual' })];

    expect(await pruneReports(db.prisma, CUTOFF, 2)).toBe(4);

    const left = await remaining();
    for (const id of [...old, oldManual]) expect(left.has(id)).toBe(false);
    for (const id of kept) expect(left.has(id)).toBe(true);
    expect(await db.prisma.webhookDelivery.count({ where: { reportId: old[0] } })).toBe(0);
    expect(await pruneReports(db.prisma, CUTOFF)).toBe(0);
  });

  it("keeps each schedule's newest scheduled report and what is still being made, whatever their age", async () => {
    const paused = await schedule('paused a year ago');
    const older = await report(paused, 520);
    const newest = await report(paused, 500);
    const manualAfter = await report(paused, 450, { trigger: 'manual' });
    const making = await report(paused, 480, { trigger: 'manual', status: 'pending' });

    expect(await pruneReports(db.prisma, CUTOFF)).toBe(2);

    const left = await remaining();
    expect(left.has(older)).toBe(false);
    expect(left.has(manualAfter)).toBe(false);
    expect(left.has(newest)).toBe(true);
    expect(left.has(making)).toBe(true);
  });
});
