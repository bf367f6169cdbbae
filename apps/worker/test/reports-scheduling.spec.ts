import type { INestApplicationContext } from '@nestjs/common';
import { roundCents } from '@zw/core';
import {
  redisConnectionFromUrl,
  REPORT_TICK_JOB,
  reportSchedulerId,
  REPORTS_QUEUE,
  SYNC_REPORT_SCHEDULE_JOB,
} from '@zw/queue';
import { verifyWebhook } from '@zw/reports';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { TEST_REDIS_URL } from '../../../test/support/redis.js';
import {
  awsPrice,
  dayOfHistory,
  expectedReport,
  madeDocument,
  type HistoryPoint,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../test/support/reports.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { ReportScheduler } from '../src/reports/report-scheduler.service.js';
import { startInProcessWorker } from '../../../test/support/worker.js';

/**
 * The worker's side of scheduled reports, on real Postgres and Redis with history pushed through the
 * ingest route: schedules fire through their BullMQ job schedulers; a period's report is made once
 * whatever fires it and however many workers run; periods missed while the worker was down are made once
 * when it comes back; webhooks are signed, retried with backoff and then marked failed.
 */

const DAY = 24 * 3_600_000;
const quiet = { logger: ['error' as const] };

let stack: QueryStack;
let tenant: Tenant;
let clusterId: string;
let history: HistoryPoint[];
let receiver: WebhookReceiver;
let queue: Queue;
/** The worker started again after the downtime test (the stack closes only the one it started). */
let restarted: INestApplicationContext | undefined;
/** Yesterday (UTC): the period of the daily schedule's report. */
const periodEnd = new Date(Math.floor(Date.now() / DAY) * DAY);
const periodStart = new Date(periodEnd.getTime() - DAY);

async function startWorker(): Promise<INestApplicationContext> {
  return startInProcessWorker(stack.env, quiet);
}

async function reportsOf(scheduleId: string) {
  return stack.prisma.report.findMany({
    where: { scheduleId },
    orderBy: { periodEnd: 'asc' },
    include: { delivery: true },
  });
}

function closeTo(actual: number, expected: number) {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
}

/** A stored report's money: the exact figure, in whole cents as its download serves it. */
function inCents(actual: number, expected: number) {
  expect(actual).toBe(roundCents(actual));
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(0.005 + 1e-9 * Math.max(1, Math.abs(expected)));
}

beforeAll(async () => {
  stack = await startQueryStack('rsched', {
    REPORT_MIN_INTERVAL_SECONDS: '1',
    REPORT_WEBHOOK_ALLOW_PRIVATE: 'true',
    REPORT_WEBHOOK_ATTEMPTS: '3',
    REPORT_WEBHOOK_BACKOFF_MS: '300',
    REPORT_WEBHOOK_TIMEOUT_MS: '3000',
    REPORT_JOB_BACKOFF_MS: '100',
    // Only boot sweeps in this file: what fires a schedule here is its job scheduler (or a test's tick).
    REPORT_SWEEP_EVERY_MS: '600000',
    REPORT_SWEEP_GRACE_MS: '0',
  });
  tenant = await createTenant(stack.prisma, 'reports-sched');
  const cluster = await createCluster(stack.prisma, tenant, 'prod-us', { cloud: 'aws', region: 'us-east-1' });
  clusterId = cluster.id;
  history = dayOfHistory(periodStart);
  const ids: string[] = [];
  for (const point of history) ids.push(await pushSnapshot(stack.url, cluster.token, point.list));
  await waitProcessed(stack.prisma, ids);
  receiver = await startWebhookReceiver();
  queue = new Queue(REPORTS_QUEUE, { connection: redisConnectionFromUrl(TEST_REDIS_URL), prefix: stack.prefix });
}, 120_000);

afterAll(async () => {
  await restarted?.close();
  await queue?.close();
  await receiver?.close();
  await stack?.stop();
});

describe('a daily schedule over a recorded day', () => {
  let scheduleId: string;

  beforeAll(async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const created = await admin.post('/v1/report-schedules', {
      name: 'Daily FinOps',
      cadence: 'daily',
      timeZone: 'UTC',
      scope: { kind: 'clusters', clusterIds: [clusterId] },
      webhook: { url: receiver.url },
    });
    expect(created.status).toBe(201);
    scheduleId = created.body.schedule.id;
    receiver.secret = created.body.webhookSecret;
    await waitFor('the worker to sync the new schedule', async () =>
      (await queue.getJobs(['completed'])).some(
        (job) => job.name === SYNC_REPORT_SCHEDULE_JOB && job.data.scheduleId === scheduleId,
      ),
    );
    // The schedule was created yesterday: yesterday's period, the first to end after that, is due (what
    // the schedule would see now had it been created then). Nothing was made yet.
    await stack.prisma.reportSchedule.update({
      where: { id: scheduleId },
      data: { anchorAt: new Date(periodStart.getTime() + 60_000) },
    });
    expect(await reportsOf(scheduleId)).toEqual([]);
  });

  it('fires: ticks repeated on two workers at once make one report and one webhook delivery', async () => {
    const second = await startWorker();
    try {
      // Five ticks, two workers consuming them, plus the second worker's scheduler claiming directly.
      await Promise.all([
        ...Array.from({ length: 5 }, () => queue.add(REPORT_TICK_JOB, { scheduleId })),
        second.get(ReportScheduler).sweep('test'),
        stack.worker.get(ReportScheduler).sweep('test'),
      ]);
      await waitFor(
        'the report made',
        async () => (await reportsOf(scheduleId)).some((r) => r.status === 'ready'),
        30_000,
      );
      await waitFor('its delivery', async () => receiver.received.length >= 1, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // room for any duplicate to show up
    } finally {
      await second.close();
    }
    const reports = await reportsOf(scheduleId);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ periodStart, periodEnd, trigger: 'schedule', partial: false, status: 'ready' });
    expect(await stack.prisma.webhookDelivery.count({ where: { report: { scheduleId } } })).toBe(1);
    expect(receiver.received).toHaveLength(1);
  });

  it("makes a report whose figures are the history's, integrated over the period", async () => {
    const [report] = await reportsOf(scheduleId);
    const document = madeDocument(report);
    const expected = expectedReport(history, awsPrice(), periodStart, periodEnd, new Date());
    closeTo(document.totals.trafficGb, expected.trafficGb);
    inCents(document.totals.withoutHints.cost, expected.withoutHints.cost);
    closeTo(document.totals.withHints.crossZoneGb, expected.withHints.crossZoneGb);
    inCents(document.totals.withHints.cost, expected.withHints.cost);
    inCents(document.totals.realizedSavings.cost, expected.realized.cost);
    for (const entry of document.missedSavings.byReason) {
      closeTo(entry.crossZoneGb, expected.missed[entry.reason]?.crossZoneGb ?? 0);
      inCents(entry.cost, expected.missed[entry.reason]?.cost ?? 0);
    }
    // Every reason the history holds shows up with money on it.
    for (const reason of ['not-enabled', 'too-few-endpoints', 'overload-threshold', 'node-info']) {
      expect(document.missedSavings.byReason.find((entry) => entry.reason === reason)!.cost, reason).toBeGreaterThan(0);
    }
    inCents(document.totals.missedSavings.cost, expected.missed['not-enabled'].cost);
    expect(document.hintStates.changes).toBe(expected.hintStateChanges);
    expect(document.hintStates.changes).toBeGreaterThan(0);
    expect(document.services).toHaveLength(expected.services.size);
    for (const line of document.services) {
      const service = expected.services.get(`${line.namespace}/${line.name}`)!;
      inCents(line.withHints.cost, service.withHints.cost);
      closeTo(line.withoutHints.crossZoneGb, service.withoutHints.crossZoneGb);
      inCents(line.missedSavings.cost, service.missed.cost);
      closeTo(line.months, service.months);
    }
    // The same range through the query API: the report and GET /v1/savings agree.
    const savings = await apiClient(stack.url, tenant.readKey).get(
      `/v1/savings?clusterId=${clusterId}&from=${periodStart.toISOString()}&to=${periodEnd.toISOString()}`,
    );
    expect(savings.status).toBe(200);
    // The stored document is what its download serves: money in cents, as the API's answers show it.
    expect(document.totals.withHints.cost).toBe(savings.body.totals.withHints.cost);
    expect(document.totals.withoutHints.cost).toBe(savings.body.totals.withoutHints.cost);
    expect(document.totals.missedSavings.cost).toBe(savings.body.totals.missedSavings.cost);
    expect(document.topOpportunities.map((o) => `${o.namespace}/${o.name}`)).toEqual(
      savings.body.opportunities
        .slice(0, 10)
        .map((o: { namespace: string; name: string }) => `${o.namespace}/${o.name}`),
    );
    // The top fixes as the period ended (its newest snapshot, where a node without a zone blocks hints for
    // every Service): the query API's ranking of the same snapshot's fixes, with the same money.
    const fixes = await apiClient(stack.url, tenant.readKey).get(`/v1/clusters/${clusterId}/recommendations?limit=10`);
    expect(fixes.status).toBe(200);
    expect(fixes.body.nodeBlockers.nodes.length).toBeGreaterThan(0);
    expect(document.topFixes.length).toBeGreaterThan(0);
    expect(document.topFixes.map((fix) => `${fix.namespace}/${fix.name}`)).toEqual(
      fixes.body.services.map((s: { namespace: string; name: string }) => `${s.namespace}/${s.name}`),
    );
    document.topFixes.forEach((fix, index) => {
      expect(fix.rank).toBe(index + 1);
      expect(fix.kind).toBe(fixes.body.services[index].recommendations[0].kind);
      expect(fix.patch).toBe(fixes.body.services[index].recommendations[0].patch);
      expect(roundCents(fix.monthlySavings.cost)).toBe(fixes.body.services[index].bestSavings.cost);
    });
    expect(document.topFixes.some((fix) => fix.kind === 'nodes')).toBe(true);
    // The risks of the cluster as the period ended: the static ClusterIP in the dynamic band, and zones
    // where Services would pass the overload threshold.
    expect(document.serviceCidrRisks).toHaveLength(1);
    expect(document.serviceCidrRisks[0].risks).toEqual([
      expect.objectContaining({ kind: 'static-ip-in-dynamic-band' }),
    ]);
    expect(document.zonesAtRisk.length).toBeGreaterThan(0);
    expect(document.trend.points).toHaveLength(24);
    // Each point and the total are in cents: they agree within half a cent each.
    const trendCost = document.trend.points.reduce((sum, point) => sum + point.withHints.cost, 0);
    expect(Math.abs(trendCost - document.totals.withHints.cost)).toBeLessThanOrEqual(0.005 * 25);
  });

  it('POSTs the report to the webhook, signed over the timestamp and body, and records the delivery', async () => {
    const [delivered] = receiver.received;
    expect(delivered.signatureValid).toBe(true);
    expect(delivered.timestampFresh).toBe(true);
    expect(
      verifyWebhook({
        secret: receiver.secret,
        body: delivered.body,
        timestampHeader: String(delivered.headers['zonewise-timestamp']),
        signatureHeader: String(delivered.headers['zonewise-signature']),
        now: new Date(),
      }),
    ).toEqual({ ok: true });
    // A tampered body or another secret does not verify.
    const tampered = delivered.body.replace('"report.ready"', '"report.readx"');
    const check = (secret: string, body: string) =>
      verifyWebhook({
        secret,
        body,
        timestampHeader: String(delivered.headers['zonewise-timestamp']),
        signatureHeader: String(delivered.headers['zonewise-signature']),
        now: new Date(),
      }).ok;
    expect(check(receiver.secret, tampered)).toBe(false);
    expect(check('zws_someone-else', delivered.body)).toBe(false);
    const payload = JSON.parse(delivered.body);
    const [report] = await reportsOf(scheduleId);
    expect(payload).toMatchObject({
      event: 'report.ready',
      deliveryId: report.delivery!.id,
      report: { id: report.id },
    });
    expect(delivered.headers['zonewise-delivery']).toBe(report.delivery!.id);
    expect(payload.attachments.json.totals.withHints.cost).toBe(madeDocument(report).totals.withHints.cost);
    expect(payload.attachments.csv).toBe(report.csv);
    expect(payload.attachments.html).toBe(report.html);
    const view = await apiClient(stack.url, tenant.readKey).get(`/v1/reports/${report.id}`);
    expect(view.body.delivery).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lastStatusCode: 204,
      lastError: null,
    });
    expect(view.body.delivery.log).toHaveLength(1);
  });
});

describe('a schedule firing every two seconds through its BullMQ job scheduler', () => {
  let scheduleId: string;

  beforeAll(async () => {
    const created = await apiClient(stack.url, tenant.adminKey).post('/v1/report-schedules', {
      name: 'Every two seconds',
      cadence: 'cron',
      cron: '*/2 * * * * *',
      timeZone: 'Europe/Paris',
      formats: ['json'],
    });
    expect(created.status).toBe(201);
    scheduleId = created.body.schedule.id;
  });

  it('has a job scheduler with its cron pattern and time zone, which fires and makes each period once', async () => {
    await waitFor('the job scheduler', async () => queue.getJobScheduler(reportSchedulerId(scheduleId)), 10_000);
    const scheduler = await queue.getJobScheduler(reportSchedulerId(scheduleId));
    expect(scheduler).toMatchObject({ pattern: '*/2 * * * * *', tz: 'Europe/Paris' });
    await waitFor(
      'three reports',
      async () => (await reportsOf(scheduleId)).filter((r) => r.status === 'ready').length >= 3,
      20_000,
    );
    const reports = await reportsOf(scheduleId);
    for (const report of reports) {
      expect(report.trigger).toBe('schedule');
      expect(report.periodEnd.getTime() - report.periodStart.getTime()).toBe(2000);
      expect(report.periodEnd.getTime() % 2000).toBe(0);
    }
    for (let i = 1; i < reports.length; i++) expect(reports[i].periodStart).toEqual(reports[i - 1].periodEnd);
    // The ticks came from the job scheduler (this file sweeps only at boot).
    const ticks = await queue.getJobs(['completed', 'active', 'waiting', 'delayed']);
    expect(
      ticks.some(
        (job) => job.name === REPORT_TICK_JOB && job.data.scheduleId === scheduleId && job.id?.startsWith('repeat:'),
      ),
    ).toBe(true);
    // Figures: the state the last snapshot left, for two seconds.
    const document = madeDocument(reports[0]);
    const expected = expectedReport(history, awsPrice(), reports[0].periodStart, reports[0].periodEnd, new Date());
    inCents(document.totals.withHints.cost, expected.withHints.cost);
    expect(document.totals.withHints.crossZoneGb).toBeGreaterThan(0);
  });

  it('makes each period missed while the worker was down once, when it comes back', async () => {
    await stack.worker.close();
    const downAt = Date.now();
    const before = await reportsOf(scheduleId);
    await new Promise((resolve) => setTimeout(resolve, 7000));
    expect((await reportsOf(scheduleId)).length).toBe(before.length); // nobody made anything meanwhile
    restarted = await startWorker();
    const upAt = Date.now();
    await waitFor(
      'the missed periods',
      async () => {
        const reports = await reportsOf(scheduleId);
        return (
          reports.length > 0 &&
          reports.at(-1)!.periodEnd.getTime() >= upAt - 2000 &&
          reports.every((r) => r.status === 'ready')
        );
      },
      20_000,
    );
    const reports = await reportsOf(scheduleId);
    const keys = reports.map((r) => `${r.periodStart.toISOString()}/${r.periodEnd.toISOString()}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (let i = 1; i < reports.length; i++) expect(reports[i].periodStart).toEqual(reports[i - 1].periodEnd);
    const missed = reports.filter((r) => r.periodEnd.getTime() > downAt && r.periodEnd.getTime() <= upAt);
    expect(missed.length).toBeGreaterThanOrEqual(3);
    await apiClient(stack.url, tenant.adminKey).patch(`/v1/report-schedules/${scheduleId}`, { enabled: false });
    await waitFor(
      'the scheduler removed',
      async () => !(await queue.getJobScheduler(reportSchedulerId(scheduleId))),
      10_000,
    );
  }, 60_000);
});

describe('a webhook receiver that keeps failing', () => {
  it('is retried with backoff, every attempt signed, then the delivery is marked failed', async () => {
    const failing = await startWebhookReceiver(() => 503);
    try {
      const created = await apiClient(stack.url, tenant.adminKey).post('/v1/report-schedules', {
        name: 'Flaky receiver',
        cadence: 'daily',
        scope: { kind: 'fleet' },
        formats: ['csv'],
        webhook: { url: failing.url },
      });
      failing.secret = created.body.webhookSecret;
      const run = await apiClient(stack.url, tenant.adminKey).post(
        `/v1/report-schedules/${created.body.schedule.id}/run`,
        {
          period: 'previous',
        },
      );
      expect(run.status).toBe(202);
      const reportId = run.body.report.id;
      const view = await waitFor(
        'the delivery to fail for good',
        async () => {
          const answer = await apiClient(stack.url, tenant.readKey).get(`/v1/reports/${reportId}`);
          return answer.body.delivery?.status === 'failed' ? answer.body : null;
        },
        20_000,
      );
      expect(failing.received).toHaveLength(3);
      expect(failing.received.every((delivery) => delivery.signatureValid && delivery.timestampFresh)).toBe(true);
      expect(failing.received.map((delivery) => delivery.headers['zonewise-delivery-attempt'])).toEqual([
        '1',
        '2',
        '3',
      ]);
      expect(new Set(failing.received.map((delivery) => delivery.headers['zonewise-delivery'])).size).toBe(1);
      // Exponential backoff: 300 ms, then 600 ms.
      const gaps = failing.received.slice(1).map((delivery, i) => delivery.receivedAt - failing.received[i].receivedAt);
      expect(gaps[0]).toBeGreaterThanOrEqual(250);
      expect(gaps[1]).toBeGreaterThanOrEqual(550);
      expect(view.delivery).toMatchObject({
        status: 'failed',
        attempts: 3,
        lastStatusCode: 503,
        nextAttemptAt: null,
        deliveredAt: null,
      });
      expect(view.delivery.lastError).toMatch(/receiver answered 503/);
      expect(view.delivery.log.map((entry: { statusCode: number }) => entry.statusCode)).toEqual([503, 503, 503]);
      expect(view.status).toBe('ready'); // the report itself is fine and downloadable
    } finally {
      await failing.close();
    }
  });

  it('a receiver that recovers gets the delivery on a later attempt', async () => {
    const recovering = await startWebhookReceiver((n) => (n < 2 ? 500 : 200));
    try {
      const created = await apiClient(stack.url, tenant.adminKey).post('/v1/report-schedules', {
        name: 'Recovering receiver',
        cadence: 'weekly',
        webhook: { url: recovering.url },
      });
      recovering.secret = created.body.webhookSecret;
      const run = await apiClient(stack.url, tenant.adminKey).post(
        `/v1/report-schedules/${created.body.schedule.id}/run`,
        {},
      );
      const view = await waitFor(
        'the delivery to succeed',
        async () => {
          const answer = await apiClient(stack.url, tenant.readKey).get(`/v1/reports/${run.body.report.id}`);
          return answer.body.delivery?.status === 'succeeded' ? answer.body : null;
        },
        20_000,
      );
      expect(view.delivery).toMatchObject({ attempts: 2, lastStatusCode: 200 });
      expect(recovering.received.every((delivery) => delivery.signatureValid)).toBe(true);
    } finally {
      await recovering.close();
    }
  });
});

describe('without history in scope', () => {
  it('still makes a report, saying no snapshot covers the period', async () => {
    const empty = await createCluster(stack.prisma, tenant, 'empty-cluster');
    const created = await apiClient(stack.url, tenant.adminKey).post('/v1/report-schedules', {
      name: 'Empty',
      cadence: 'daily',
      scope: { kind: 'clusters', clusterIds: [empty.id] },
    });
    const run = await apiClient(stack.url, tenant.adminKey).post(
      `/v1/report-schedules/${created.body.schedule.id}/run`,
      {
        period: 'previous',
      },
    );
    const report = await waitFor('the report', async () => {
      const row = await stack.prisma.report.findUnique({ where: { id: run.body.report.id } });
      return row?.status === 'ready' ? row : null;
    });
    const document = madeDocument(report);
    expect(document.totals.withHints).toEqual({ crossZoneGb: 0, cost: 0 });
    expect(document.notes).toContain('empty-cluster: no analysed snapshot covers this period');
    // A later snapshot does not change a report once made.
    await pushSnapshot(stack.url, empty.token, capturedAt(fleet(3, 2), new Date(periodStart.getTime() + 3_600_000)));
    expect((await stack.prisma.report.findUnique({ where: { id: report.id } }))!.generatedAt).toEqual(
      report.generatedAt,
    );
  });
});
