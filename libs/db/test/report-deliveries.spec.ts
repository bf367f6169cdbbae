import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import {
  alertsOf,
  channelOf,
  channelsOf,
  countOwnedChannels,
  createAlertChannel,
  createAlertRule,
  createTestDelivery,
  deleteAlertChannel,
  deleteAlertRule,
  hasChannel,
  ruleOf,
  claimDelivery,
  createOrganization,
  enabledReportSchedules,
  failPendingReport,
  failPendingWebhookDelivery,
  pendingReportIds,
  pendingWebhookDeliveryIds,
  rulesOf,
  createDbPool,
  createPrismaClient,
  createReportDeliveries,
  deliveriesOf,
  deliveryOf,
  detachChannel,
  finishAttempt,
  type PrismaClient,
  recordWebhookAttempt,
  skipDelivery,
  storeMadeReport,
  updateAlertChannel,
  updateAlertRule,
} from '../src/index.js';

/**
 * The repositories of a report's deliveries and of the alert deliveries' life, on real Postgres: a made
 * report is stored once with one delivery per enabled channel of its organization, a delivery is claimed
 * before it is sent and finished once, and a deleted channel leaves the rules and schedules naming it.
 */
let db: TestDatabase;
let prisma: PrismaClient;
/** The worker stores made reports on pg directly. */
let pool: pg.Pool;
let organizationId: string;
let otherOrganizationId: string;
let scheduleId: string;
let channels: { enabled: string; disabled: string; foreign: string };

async function channel(organization: string, name: string, enabled = true): Promise<string> {
  const row = await prisma.alertChannel.create({
    data: {
      organizationId: organization,
      name,
      kind: 'slack',
      targetSealed: Buffer.from('sealed'),
      targetHint: 'hooks.slack.com',
      enabled,
    },
  });
  return row.id;
}

let day = 0;

async function claimedReport(): Promise<string> {
  const start = new Date(Date.UTC(2026, 0, 1 + day++));
  const report = await prisma.report.create({
    data: {
      organizationId,
      scheduleId,
      periodStart: start,
      periodEnd: new Date(start.getTime() + 86_400_000),
      trigger: 'manual',
      formats: ['json'],
    },
  });
  return report.id;
}

function made(reportId: string, channelIds: string[], webhookUrl: string | null = null) {
  return {
    reportId,
    organizationId,
    documentJson: JSON.stringify({ schema: 'zonewise.report/v1' }),
    summaryJson: JSON.stringify({ label: 'a day' }),
    csv: null,
    html: null,
    generatedAt: new Date(),
    webhookUrl,
    channelIds,
  };
}

beforeAll(async () => {
  db = await createTestDatabase('db_report_deliveries');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 4 });
  pool = createDbPool({ databaseUrl: db.url, poolMax: 4 });
  organizationId = (await createOrganization(prisma, { slug: 'acme' })).id;
  otherOrganizationId = (await createOrganization(prisma, { slug: 'other' })).id;
  channels = {
    enabled: await channel(organizationId, 'on'),
    disabled: await channel(organizationId, 'off', false),
    foreign: await channel(otherOrganizationId, 'theirs'),
  };
  const schedule = await prisma.reportSchedule.create({
    data: {
      organizationId,
      name: 'daily',
      cadence: 'daily',
      cronExpression: '0 0 * * *',
      timeZone: 'UTC',
      formats: ['json'],
      channelIds: Object.values(channels),
      anchorAt: new Date(),
    },
  });
  scheduleId = schedule.id;
}, 120_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await db?.drop();
});

describe('storeMadeReport', () => {
  it('stores the report once, with its webhook delivery and one delivery per enabled channel of its organization', async () => {
    const reportId = await claimedReport();
    const channelIds = Object.values(channels);
    const [first, second] = await Promise.all([
      storeMadeReport(pool, made(reportId, channelIds, 'https://receiver.example/hook')),
      storeMadeReport(pool, made(reportId, channelIds, 'https://receiver.example/hook')),
    ]);
    const stored = [first, second].filter((outcome) => outcome !== null);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.webhookDeliveryId).not.toBeNull();
    expect(stored[0]!.channelDeliveries).toHaveLength(1);
    const rows = await prisma.alertDelivery.findMany({ where: { reportId } });
    expect(rows).toEqual([
      expect.objectContaining({ channelId: channels.enabled, event: 'report', status: 'pending', organizationId }),
    ]);
    expect(await prisma.webhookDelivery.count({ where: { reportId } })).toBe(1);
    expect(await prisma.report.findUniqueOrThrow({ where: { id: reportId } })).toMatchObject({ status: 'ready' });
  });

  it('keeps the bodies as given, large ones compressed with lz4', async () => {
    const reportId = await claimedReport();
    const services = Array.from({ length: 20_000 }, (_, n) => ({ namespace: 'team', name: `svc-${n}`, cost: n / 100 }));
    const documentJson = JSON.stringify({ schema: 'zonewise.report/v1', services });
    const csv = services.map((line) => `${line.namespace},${line.name},${line.cost}`).join('\n');
    await storeMadeReport(pool, { ...made(reportId, []), documentJson, csv });
    expect(await prisma.report.findUniqueOrThrow({ where: { id: reportId } })).toMatchObject({
      documentJson,
      csv,
      document: null,
      summary: { label: 'a day' },
    });
    const [compression] = await prisma.$queryRaw<{ document: string; csv: string }[]>`
      SELECT pg_column_compression(document_json) AS document, pg_column_compression(csv) AS csv
        FROM reports WHERE id = ${reportId}::uuid`;
    expect(compression).toEqual({ document: 'lz4', csv: 'lz4' });
  });

  it('never makes a second delivery of one report to one channel', async () => {
    const reportId = await claimedReport();
    const input = { organizationId, reportId, channelIds: [channels.enabled] };
    expect(await createReportDeliveries(prisma, input)).toHaveLength(1);
    expect(await createReportDeliveries(prisma, input)).toEqual([]);
  });
});

describe('a delivery attempt', () => {
  let deliveryId: string;

  beforeEach(async () => {
    const reportId = await claimedReport();
    [{ id: deliveryId }] = await createReportDeliveries(prisma, {
      organizationId,
      reportId,
      channelIds: [channels.enabled],
    });
  });

  it('is claimed before sending, retried as pending, and finished once', async () => {
    expect(await claimDelivery(prisma, deliveryId, new Date())).toBe(true);
    await finishAttempt(prisma, deliveryId, { ok: false, final: false, statusCode: 503, error: 'no', at: new Date() });
    expect(await prisma.alertDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: 503,
    });
    expect(await claimDelivery(prisma, deliveryId, new Date())).toBe(true);
    await finishAttempt(prisma, deliveryId, { ok: true, final: false, statusCode: 200, error: null, at: new Date() });
    expect(await claimDelivery(prisma, deliveryId, new Date())).toBe(false);
    const done = await prisma.alertDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 200 });
    expect(done.sentAt).not.toBeNull();
  });

  it('interrupted while sending is claimed again; a skipped one is not', async () => {
    expect(await claimDelivery(prisma, deliveryId, new Date())).toBe(true);
    expect(await claimDelivery(prisma, deliveryId, new Date())).toBe(true);
    await skipDelivery(prisma, deliveryId, 'the channel is disabled');
    expect(await claimDelivery(prisma, deliveryId, new Date())).toBe(false);
    expect(await prisma.alertDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({
      status: 'skipped',
      attempts: 2,
      lastError: 'the channel is disabled',
    });
  });
});

describe('recordWebhookAttempt', () => {
  it("appends each attempt to the schedule webhook's log and stops once it is no longer pending", async () => {
    const reportId = await claimedReport();
    const stored = await storeMadeReport(pool, made(reportId, [], 'https://receiver.example/hook'));
    const id = stored!.webhookDeliveryId!;
    const attempt = (n: number, ok: boolean, final = false) => ({
      attempt: n,
      url: 'https://receiver.example/hook',
      at: new Date(),
      ok,
      final,
      statusCode: ok ? 204 : 500,
      error: ok ? null : 'receiver answered 500',
      durationMs: 5,
      nextAttemptAt: new Date(Date.now() + 1000),
    });
    await recordWebhookAttempt(prisma, id, attempt(1, false));
    expect(await prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: 500,
    });
    await recordWebhookAttempt(prisma, id, attempt(2, true));
    await recordWebhookAttempt(prisma, id, attempt(3, false, true));
    const row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2, nextAttemptAt: null });
    expect((row.log as { statusCode: number }[]).map((entry) => entry.statusCode)).toEqual([500, 204]);
  });
});

describe('detachChannel', () => {
  it('removes the channel from the rules and report schedules of its organization only', async () => {
    const rule = await prisma.alertRule.create({
      data: { organizationId, name: 'lost', kind: 'hints-lost', channelIds: [channels.enabled, channels.disabled] },
    });
    await detachChannel(prisma, organizationId, channels.disabled);
    expect((await prisma.alertRule.findUniqueOrThrow({ where: { id: rule.id } })).channelIds).toEqual([
      channels.enabled,
    ]);
    expect((await prisma.reportSchedule.findUniqueOrThrow({ where: { id: scheduleId } })).channelIds).toEqual([
      channels.enabled,
      channels.foreign,
    ]);
    await detachChannel(prisma, otherOrganizationId, channels.enabled);
    expect((await prisma.alertRule.findUniqueOrThrow({ where: { id: rule.id } })).channelIds).toEqual([
      channels.enabled,
    ]);
  });
});

describe("the reports sweep's reads and writes", () => {
  it('finds pending reports and webhook deliveries older than the grace, and fails each once', async () => {
    const reportId = await claimedReport();
    const stored = await storeMadeReport(pool, made(await claimedReport(), [], 'https://receiver.example/hook'));
    const deliveryId = stored!.webhookDeliveryId!;
    const later = new Date(Date.now() + 60_000);
    expect(await pendingReportIds(prisma, new Date(0), 10)).toEqual([]);
    expect(await pendingReportIds(prisma, later, 500)).toContain(reportId);
    expect(await pendingWebhookDeliveryIds(prisma, later, 500)).toContain(deliveryId);
    expect(await failPendingReport(prisma, reportId, 'generation failed')).toBe(1);
    expect(await failPendingReport(prisma, reportId, 'generation failed')).toBe(0);
    expect(await failPendingWebhookDelivery(prisma, deliveryId, 'delivery failed')).toBe(1);
    expect(await failPendingWebhookDelivery(prisma, deliveryId, 'delivery failed')).toBe(0);
    expect(await pendingReportIds(prisma, later, 500)).not.toContain(reportId);
    expect(await pendingWebhookDeliveryIds(prisma, later, 500)).not.toContain(deliveryId);
    expect(await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({
      status: 'failed',
      lastError: 'delivery failed',
      nextAttemptAt: null,
    });
    expect((await enabledReportSchedules(prisma)).map((schedule) => schedule.id)).toEqual([scheduleId]);
  });
});

describe("the alerts API's reads", () => {
  it("answer an organization's own channels, rules, alerts and deliveries, and nothing of another's", async () => {
    expect((await channelsOf(prisma, organizationId)).map((row) => row.name)).toEqual(['on', 'off']);
    expect((await channelsOf(prisma, otherOrganizationId)).map((row) => row.name)).toEqual(['theirs']);
    const rule = await prisma.alertRule.create({
      data: { organizationId, name: 'reads', kind: 'drift', channelIds: [channels.enabled] },
    });
    const [open, resolved] = await Promise.all(
      ['cluster:a', 'cluster:b'].map((subject) =>
        prisma.alert.create({
          data: { organizationId, ruleId: rule.id, kind: 'drift', subject, summary: subject, path: '/' },
        }),
      ),
    );
    await prisma.alert.update({ where: { id: resolved.id }, data: { resolvedAt: new Date() } });
    const rules = await rulesOf(prisma, organizationId);
    expect(rules.find((row) => row.id === rule.id)?._count.alerts).toBe(1);
    expect((await alertsOf(prisma, organizationId, 'open', 10)).map((row) => row.id)).toEqual([open.id]);
    expect((await alertsOf(prisma, organizationId, 'resolved', 10)).map((row) => row.id)).toEqual([resolved.id]);
    expect(await alertsOf(prisma, otherOrganizationId, 'all', 10)).toEqual([]);
    const mine = await deliveriesOf(prisma, organizationId, channels.enabled, 500);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((row) => row.channelId === channels.enabled && row.channel.name === 'on')).toBe(true);
    expect(await deliveriesOf(prisma, organizationId, channels.disabled, 500)).toEqual([]);
    expect(await deliveryOf(prisma, organizationId, mine[0].id)).toMatchObject({ id: mine[0].id });
    expect(await deliveryOf(prisma, otherOrganizationId, mine[0].id)).toBeNull();
  });

  it("find an organization's own channel or rule, and count its channels among those named", async () => {
    const rule = await prisma.alertRule.create({
      data: { organizationId, name: 'one', kind: 'drift', channelIds: [] },
    });

    expect(await channelOf(prisma, organizationId, channels.enabled)).toMatchObject({
      id: channels.enabled,
      name: 'on',
      targetHint: 'hooks.slack.com',
    });
    expect(await channelOf(prisma, organizationId, channels.foreign)).toBeNull();
    expect(await hasChannel(prisma, organizationId, channels.disabled)).toBe(true);
    expect(await hasChannel(prisma, organizationId, channels.foreign)).toBe(false);
    expect(await hasChannel(prisma, otherOrganizationId, channels.foreign)).toBe(true);
    expect(await countOwnedChannels(prisma, organizationId, Object.values(channels))).toBe(2);
    expect(await countOwnedChannels(prisma, otherOrganizationId, Object.values(channels))).toBe(1);
    expect(await ruleOf(prisma, organizationId, rule.id)).toMatchObject({ id: rule.id, name: 'one', kind: 'drift' });
    expect(await ruleOf(prisma, otherOrganizationId, rule.id)).toBeNull();
  });
});

describe("the alerts API's writes", () => {
  it('create, change and delete channels and rules of the organization, never of another', async () => {
    const channel = await createAlertChannel(prisma, {
      organizationId,
      name: 'pager',
      kind: 'webhook',
      targetSealed: Buffer.from('sealed'),
      targetHint: 'hooks.example.com',
      signature: 'standard',
    });
    expect(channel).toEqual({
      id: expect.any(String),
      name: 'pager',
      kind: 'webhook',
      targetHint: 'hooks.example.com',
      signature: 'standard',
      enabled: true,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    const duplicate = { organizationId, name: 'pager', kind: 'slack', targetSealed: Buffer.from('x'), targetHint: 'x' };
    await expect(createAlertChannel(prisma, duplicate)).rejects.toMatchObject({ code: 'P2002' });
    expect(await updateAlertChannel(prisma, channel.id, { enabled: false })).toMatchObject({ enabled: false });
    const test = await createTestDelivery(prisma, organizationId, channel.id);
    expect(await deliveryOf(prisma, organizationId, test.id)).toMatchObject({ event: 'test', channelId: channel.id });

    const rule = await createAlertRule(prisma, {
      organizationId,
      name: 'writes',
      kind: 'drift',
      channelIds: [channel.id],
    });
    await prisma.alert.create({
      data: { organizationId, ruleId: rule.id, kind: 'drift', subject: 'cluster:w', summary: 'w', path: '/' },
    });
    expect(await updateAlertRule(prisma, rule.id, { threshold: 5 })).toMatchObject({
      id: rule.id,
      threshold: 5,
      _count: { alerts: 1 },
    });
    await expect(createAlertRule(prisma, { organizationId, name: 'writes', kind: 'drift' })).rejects.toMatchObject({
      code: 'P2002',
    });

    expect(await deleteAlertRule(prisma, otherOrganizationId, rule.id)).toBe(false);
    expect(await deleteAlertChannel(prisma, otherOrganizationId, channel.id)).toBe(false);
    expect(await deleteAlertRule(prisma, organizationId, rule.id)).toBe(true);
    expect(await deleteAlertChannel(prisma, organizationId, channel.id)).toBe(true);
    expect(await ruleOf(prisma, organizationId, rule.id)).toBeNull();
    expect(await channelOf(prisma, organizationId, channel.id)).toBeNull();
  });
});
