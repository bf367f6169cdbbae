import { formatMoney, type ReportDocument } from '@zw/reports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpReceiver,
  type SmtpSink,
  startHttpReceiver,
  startSmtpSink,
  verifyStandardWebhook,
} from '../../../test/support/alert-receivers.js';
import {
  alertDeliverySettings,
  type ChannelKind,
  createChannelOfEachKind,
  PUBLIC_URL,
} from '../../../test/support/alert-channels.js';
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
import {
  dayOfHistory,
  madeDocument,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../test/support/reports.js';
import { waitFor } from '../../../test/support/wait.js';
import { AlertDeliverer } from '../src/alerts/alert-deliverer.service.js';
import { ReportGenerator } from '../src/reports/report-generator.service.js';

/**
 * Scheduled reports on alert channels, against the real parts: a schedule names a Slack, a Teams, an
 * email and a Standard Webhooks channel besides its own `Zonewise-Signature` webhook. The made report
 * reaches each once (a failing one after a retry), with its headline figures and a link into the
 * dashboard; the email carries the report; every message shows in the delivery log.
 */
const DAY = 24 * 3_600_000;
const periodEnd = new Date(Math.floor(Date.now() / DAY) * DAY);
const periodStart = new Date(periodEnd.getTime() - DAY);

let stack: QueryStack;
let tenant: Tenant;
let receiver: HttpReceiver;
let flaky: HttpReceiver;
let smtp: SmtpSink;
let legacy: WebhookReceiver;
let webhookSecret: string;
let channelIds: Record<ChannelKind, string>;

interface LoggedDelivery {
  id: string;
  channelId: string;
  reportId: string | null;
  event: string;
  status: string;
  attempts: number;
}

beforeAll(async () => {
  receiver = await startHttpReceiver();
  flaky = await startHttpReceiver();
  flaky.answer = (n) => (n === 1 ? 503 : 200);
  smtp = await startSmtpSink();
  legacy = await startWebhookReceiver();
  stack = await startQueryStack('rchan', {
    ...alertDeliverySettings(smtp, 'zonewise <reports@zonewise.test>'),
    REPORT_MIN_INTERVAL_SECONDS: '1',
    REPORT_WEBHOOK_ALLOW_PRIVATE: 'true',
    REPORT_SWEEP_EVERY_MS: '600000',
  });
  tenant = await createTenant(stack.prisma, 'report-channels');
  const cluster = await createCluster(stack.prisma, tenant, 'prod-us', { cloud: 'aws', region: 'us-east-1' });
  const ids: string[] = [];
  for (const point of dayOfHistory(periodStart)) ids.push(await pushSnapshot(stack.url, cluster.token, point.list));
  await waitProcessed(stack.prisma, ids);
  ({ channelIds, webhookSecret } = await createChannelOfEachKind(
    stack.url,
    tenant.operatorKey,
    {
      slack: `${flaky.url}/slack`,
      teams: `${receiver.url}/teams`,
      email: 'finops@acme.test',
      webhook: `${receiver.url}/hook`,
    },
    (kind) => `${kind} reports`,
  ));
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await Promise.all([receiver?.close(), flaky?.close(), smtp?.close(), legacy?.close()]);
});

describe('a report schedule with alert channels', () => {
  let scheduleId: string;
  let reportId: string;
  let document: ReportDocument;

  it('refuses a channel of another organization with a 404 naming it', async () => {
    const other = await createTenant(stack.prisma, 'report-channels-other');
    const answer = await apiClient(stack.url, other.adminKey).post('/v1/report-schedules', {
      name: 'Not yours',
      cadence: 'daily',
      channelIds: [channelIds.slack],
    });
    expect(answer.status).toBe(404);
    expect(answer.body.errors[0]).toMatchObject({ field: 'channelIds.0' });
  });

  it('sends the made report to every channel once, a failing one after a retry, and to its own webhook', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const created = await admin.post('/v1/report-schedules', {
      name: 'Daily FinOps',
      cadence: 'daily',
      timeZone: 'UTC',
      webhook: { url: legacy.url },
      channelIds: Object.values(channelIds),
    });
    expect(created.status).toBe(201);
    expect(created.body.schedule.channelIds).toEqual(Object.values(channelIds));
    scheduleId = created.body.schedule.id;
    legacy.secret = created.body.webhookSecret;
    const run = await admin.post(`/v1/report-schedules/${scheduleId}/run`, { period: 'previous' });
    expect(run.status).toBe(202);
    reportId = run.body.report.id;

    const log = await waitFor(
      'the report delivered on every channel',
      async () => {
        const answer = await admin.get<{ items: LoggedDelivery[] }>('/v1/alert-deliveries');
        const mine = answer.body.items.filter((delivery) => delivery.reportId === reportId);
        return mine.length === 4 && mine.every((delivery) => delivery.status === 'succeeded') ? mine : null;
      },
      60_000,
    );
    await waitFor('the schedule webhook delivered', async () => legacy.received.length >= 1, 30_000);
    const report = await stack.prisma.report.findUniqueOrThrow({ where: { id: reportId } });
    document = madeDocument(report);
    const link = `${PUBLIC_URL}/reports?scheduleId=${scheduleId}`;
    const cost = formatMoney(document.totals.withHints.cost);

    expect(log.every((delivery) => delivery.event === 'report')).toBe(true);
    const attempts = Object.fromEntries(log.map((delivery) => [delivery.channelId, delivery.attempts]));
    expect(attempts).toEqual({
      [channelIds.slack]: 2,
      [channelIds.teams]: 1,
      [channelIds.email]: 1,
      [channelIds.webhook]: 1,
    });

    // Slack: refused once (503), then delivered; both attempts carry the same message.
    expect(flaky.received).toHaveLength(2);
    expect(flaky.received[0].body).toBe(flaky.received[1].body);
    const slack = JSON.parse(flaky.received[1].body) as { text: string; blocks: unknown[] };
    expect(slack.text).toContain('[REPORT] Daily FinOps');
    expect(slack.text).toContain(`Cross-zone cost ${cost}`);
    expect(JSON.stringify(slack.blocks)).toContain(link);

    const teams = receiver.received.filter((request) => request.path === '/teams');
    expect(teams).toHaveLength(1);
    const card = JSON.parse(teams[0].body) as {
      attachments: { contentType: string; content: { body: { facts?: { title: string; value: string }[] }[] } }[];
    };
    expect(card.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    const facts = card.attachments[0].content.body.flatMap((block) => block.facts ?? []);
    expect(facts).toContainEqual({
      title: 'Saved by topology routing',
      value: formatMoney(document.totals.realizedSavings.cost),
    });
    expect(teams[0].body).toContain(link);

    const hooks = receiver.received.filter((request) => request.path === '/hook');
    expect(hooks).toHaveLength(1);
    const webhookDelivery = log.find((delivery) => delivery.channelId === channelIds.webhook)!;
    expect(hooks[0].headers['webhook-id']).toBe(webhookDelivery.id);
    expect(verifyStandardWebhook(webhookSecret, hooks[0])).toMatchObject({
      type: 'report.ready',
      data: {
        link,
        report: { id: reportId, scheduleName: 'Daily FinOps', periodLabel: document.period.label },
        totals: { withHints: document.totals.withHints, missedSavings: document.totals.missedSavings },
      },
    });

    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0].to).toEqual(['finops@acme.test']);
    // Quoted-printable: soft line breaks joined, `=3D` back to `=`.
    const mail = smtp.received[0].raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    // The text part (quoted-printable, ASCII here): the headline figures and the link.
    expect(mail).toContain('[REPORT] Daily FinOps');
    expect(mail).toContain(`Cross-zone cost: ${cost}`);
    expect(mail).toContain(link);
    expect(mail).toMatch(/Content-Type: text\/csv; name=zonewise-report-\d{4}-\d{2}-\d{2}\.csv/);
    expect(mail).toMatch(/Content-Disposition: attachment; filename=zonewise-report-\d{4}-\d{2}-\d{2}\.html/);

    // The schedule's own webhook keeps its Zonewise-Signature.
    expect(legacy.received).toHaveLength(1);
    expect(legacy.received[0].signatureValid).toBe(true);
  }, 180_000);

  it('is never sent twice for one report: made again, or delivered again, nothing new leaves', async () => {
    const before = await stack.prisma.alertDelivery.findMany({ where: { reportId } });
    expect(await stack.worker.get(ReportGenerator).generate(reportId)).toMatchObject({ made: false });
    const deliverer = stack.worker.get(AlertDeliverer);
    for (const delivery of before) {
      expect(await deliverer.deliver(delivery.id, 1, 3)).toEqual({ sent: false, skipped: 'succeeded' });
    }
    const run = await apiClient(stack.url, tenant.adminKey).post(`/v1/report-schedules/${scheduleId}/run`, {
      period: 'previous',
    });
    expect(run.body.report.id).toBe(reportId);
    expect(await stack.prisma.alertDelivery.count({ where: { reportId } })).toBe(4);
    expect(flaky.received).toHaveLength(2);
    expect(receiver.received).toHaveLength(2);
    expect(smtp.received).toHaveLength(1);
  });

  it('drops a deleted channel from the schedule', async () => {
    const operator = apiClient(stack.url, tenant.operatorKey);
    expect((await operator.delete(`/v1/alert-channels/${channelIds.teams}`)).status).toBe(204);
    const schedule = await apiClient(stack.url, tenant.readKey).get(`/v1/report-schedules/${scheduleId}`);
    expect(schedule.body.channelIds).toEqual([channelIds.slack, channelIds.email, channelIds.webhook]);
  });
});
