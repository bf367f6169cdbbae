import type { INestApplication } from '@nestjs/common';
import { generateFleetSnapshot, type KubernetesList } from '@zw/core';
import { createPrismaClient, type PrismaClient } from '@zw/db';
import { ALERTS_QUEUE, redisConnectionFromUrl } from '@zw/queue';
import { Queue } from 'bullmq';
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
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { freePort } from '../../../test/support/prometheus.js';
import { buildApps, type RunningProcess, startApp } from '../../../test/support/processes.js';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { withoutZoneOnFirstNode } from '../../../test/support/reports.js';
import { capturedAt } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { createApiApp } from '../../api/src/http-app.js';

/**
 * An alert's whole life against the real parts: the API in this process, the worker as a compiled child
 * process (so it can be SIGKILLed), Postgres, Redis, local receivers for Slack, Teams and a signed
 * webhook, and an SMTP sink. A pushed snapshot in which a Service lost its hints → one message per
 * channel; a snapshot in which they are back → one resolve per channel. Then a channel that keeps
 * failing raises an alert of its own, and a worker killed mid-delivery leaves a message the receiver
 * acts on once (the same webhook-id), not zero times and not two.
 */
let db: TestDatabase;
let prisma: PrismaClient;
let api: INestApplication;
let url: string;
let worker: RunningProcess;
let receiver: HttpReceiver;
let smtp: SmtpSink;
let tenant: Tenant;
let cluster: { id: string; token: string };
let env: Record<string, string>;
let webhookSecret: string;
let channelIds: Record<ChannelKind, string>;
const prefix = uniquePrefix('alerts');

function startWorker(): RunningProcess {
  worker = startApp('worker', env);
  return worker;
}

/** Every Service routed with topology, enough endpoints in every zone: the controller populates hints. */
function healthy(services = 1): KubernetesList {
  return generateFleetSnapshot({
    nodes: 6,
    zones: 3,
    services,
    endpointsPerService: 9,
    autoShare: 1,
    notReadyShare: 0,
    seed: 3,
  });
}

/**
 * The same Services with no topology routing asked for, their slices still carrying the hints: enabling
 * routing would populate hints (an opportunity), and the hints differ from what the controller computes
 * now (drift).
 */
function unrouted(): KubernetesList {
  const list = healthy();
  for (const item of list.items) {
    if (item.kind !== 'Service') continue;
    const service = item as { spec?: Record<string, unknown>; metadata: { annotations?: Record<string, string> } };
    delete service.spec?.trafficDistribution;
    service.metadata.annotations = {};
  }
  return list;
}

/** The list with every EndpointSlice's hints removed, as the controller leaves a Service without routing. */
function withoutHints(list: KubernetesList): KubernetesList {
  for (const item of list.items) {
    if (item.kind !== 'EndpointSlice') continue;
    for (const endpoint of (item as { endpoints?: { hints?: unknown }[] }).endpoints ?? []) delete endpoint.hints;
  }
  return list;
}

const ORGANIZATION_PRICE = 0.05;

async function push(list: KubernetesList, at: Date, token = cluster.token): Promise<void> {
  const id = await pushSnapshot(url, token, capturedAt(list, at));
  await waitProcessed(prisma, [id], 60_000);
}

const on = (path: string) => receiver.received.filter((request) => request.path === path);

async function allDeliveriesFinished(): Promise<boolean> {
  const open = await prisma.alertDelivery.count({ where: { status: { in: ['pending', 'sending'] } } });
  return open === 0;
}

/**
 * An organization of its own (so no other test's rule fires for it) with one cluster, a Slack and a
 * signed webhook channel on the receiver under `/<slug>/…`, and one rule over both channels.
 */
async function organizationWithRule(slug: string, rule: Record<string, unknown>) {
  const own = await createTenant(prisma, slug);
  const operator = apiClient(url, own.operatorKey);
  const channels: string[] = [];
  let secret = '';
  for (const kind of ['slack', 'webhook'] as const) {
    const created = await operator.post<{ id: string; secret: string | null }>('/v1/alert-channels', {
      name: `${slug} ${kind}`,
      kind,
      target: `${receiver.url}/${slug}/${kind}`,
    });
    expect(created.status).toBe(201);
    channels.push(created.body.id);
    secret = created.body.secret ?? secret;
  }
  const made = await operator.post('/v1/alert-rules', { name: slug, channelIds: channels, ...rule });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const ownCluster = await createCluster(prisma, own, `${slug}-cluster`);
  return { tenant: own, cluster: ownCluster, channels, secret, slack: `/${slug}/slack`, hook: `/${slug}/webhook` };
}

type Organization = Awaited<ReturnType<typeof organizationWithRule>>;

/** One opening message per channel, then (after `clear`) one resolve per channel, of the rule's kind. */
async function expectOneOpenAndOneResolve(org: Organization, kind: string, clear: () => Promise<void>) {
  await waitFor('the opening messages', async () => on(org.slack).length >= 1 && on(org.hook).length >= 1, 60_000);
  await waitFor('every delivery finished', allDeliveriesFinished, 60_000);
  const opened = await prisma.alert.findMany({ where: { clusterId: org.cluster.id } });
  expect(opened).toEqual([expect.objectContaining({ kind, subject: `cluster:${org.cluster.id}`, resolvedAt: null })]);
  expect(verifyStandardWebhook(org.secret, on(org.hook)[0])).toMatchObject({
    type: 'alert.opened',
    data: { link: `${PUBLIC_URL}/clusters/${org.cluster.id}`, alert: { kind } },
  });
  expect(JSON.parse(on(org.slack)[0].body).text).toContain('[ALERT]');

  await clear();
  await waitFor('the resolve messages', async () => on(org.slack).length >= 2 && on(org.hook).length >= 2, 60_000);
  await waitFor('every delivery finished', allDeliveriesFinished, 60_000);
  expect(on(org.slack)).toHaveLength(2);
  expect(on(org.hook)).toHaveLength(2);
  expect(JSON.parse(on(org.slack)[1].body).text).toContain('[RESOLVED]');
  expect(verifyStandardWebhook(org.secret, on(org.hook)[1])).toMatchObject({ type: 'alert.resolved' });
  const after = await prisma.alert.findMany({ where: { clusterId: org.cluster.id } });
  expect(after).toHaveLength(1);
  expect(after[0].resolvedAt).not.toBeNull();
  const deliveries = await prisma.alertDelivery.findMany({ where: { channelId: { in: org.channels } } });
  expect(deliveries.map((delivery) => `${delivery.event} ${delivery.status}`).sort()).toEqual([
    'opened succeeded',
    'opened succeeded',
    'resolved succeeded',
    'resolved succeeded',
  ]);
}

beforeAll(async () => {
  db = await createTestDatabase('alerts');
  buildApps();
  receiver = await startHttpReceiver();
  smtp = await startSmtpSink();
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    DB_POOL_MAX: '4',
    READ_POOL_MAX: '4',
    ...alertDeliverySettings(smtp, 'zonewise <alerts@zonewise.test>'),
    ALERT_SWEEP_EVERY_MS: '1000',
    ALERT_SWEEP_GRACE_MS: '5000',
    WORKER_LOCK_DURATION_MS: '2000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    SWEEP_EVERY_MS: '1000',
    TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: 'true',
    TRAFFIC_SOURCE_MIN_WINDOW_SECONDS: '1',
    TRAFFIC_SOURCE_ATTEMPTS: '2',
    TRAFFIC_SOURCE_BACKOFF_MS: '100',
    TRAFFIC_SOURCE_TIMEOUT_MS: '1500',
  };
  Object.assign(process.env, env);
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  api = await createApiApp({ logger: ['error'] });
  await api.listen(0, '127.0.0.1');
  url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
  startWorker();
  tenant = await createTenant(prisma, 'alerts');
  cluster = await createCluster(prisma, tenant, 'prod-eu');
  ({ channelIds, webhookSecret } = await createChannelOfEachKind(
    url,
    tenant.operatorKey,
    {
      slack: `${receiver.url}/slack`,
      teams: `${receiver.url}/teams`,
      email: 'oncall@acme.test',
      webhook: `${receiver.url}/hook`,
    },
    (kind) => `${kind} channel`,
  ));
  const rule = await apiClient(url, tenant.operatorKey).post('/v1/alert-rules', {
    name: 'Hints lost',
    kind: 'hints-lost',
    channelIds: Object.values(channelIds),
  });
  expect(rule.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await api?.close();
  await prisma?.$disconnect();
  await receiver?.close();
  await smtp?.close();
  await deletePrefixKeys(prefix);
  await db?.drop();
});

describe('an alert from snapshot to resolve', () => {
  it('sends one message per channel when a Service loses its hints, and one resolve when they return', async () => {
    const start = Date.now() - 3 * 3600_000;
    await push(healthy(), new Date(start));
    const lost = withoutZoneOnFirstNode(healthy());
    await push(lost, new Date(start + 3600_000));
    await waitFor(
      'the opening messages',
      async () =>
        on('/slack').length >= 1 && on('/teams').length >= 1 && on('/hook').length >= 1 && smtp.received.length >= 1,
      60_000,
    );
    await waitFor('every delivery finished', allDeliveriesFinished, 60_000);

    const alerts = await apiClient(url, tenant.readKey).get<{
      items: { summary: string; path: string; resolvedAt: string | null }[];
    }>('/v1/alerts?state=open');
    expect(alerts.status).toBe(200);
    expect(alerts.body.items).toHaveLength(1);
    const [alert] = alerts.body.items;
    expect(alert.path).toMatch(new RegExp(`^/clusters/${cluster.id}/services/`));
    const link = `${PUBLIC_URL}${alert.path}`;

    expect(on('/slack')).toHaveLength(1);
    const slack = JSON.parse(on('/slack')[0].body) as { text: string; blocks: { type: string }[] };
    expect(slack.text).toContain('[ALERT] Service lost its topology hints');
    expect(JSON.stringify(slack.blocks)).toContain(link);
    expect(on('/teams')).toHaveLength(1);
    expect(on('/teams')[0].body).toContain('application/vnd.microsoft.card.adaptive');
    expect(on('/teams')[0].body).toContain(link);
    expect(on('/hook')).toHaveLength(1);
    expect(verifyStandardWebhook(webhookSecret, on('/hook')[0])).toMatchObject({
      type: 'alert.opened',
      data: { link, alert: { kind: 'hints-lost' } },
    });
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0].to).toEqual(['oncall@acme.test']);
    // Quoted-printable text: soft line breaks joined.
    expect(smtp.received[0].raw.replace(/=\r?\n/g, '')).toContain(link);

    // The same condition in the next snapshot: still one open alert, no new message.
    await push(lost, new Date(start + 2 * 3600_000));
    await push(healthy(), new Date(start + 3 * 3600_000));
    await waitFor(
      'the resolve messages',
      async () =>
        on('/slack').length >= 2 && on('/teams').length >= 2 && on('/hook').length >= 2 && smtp.received.length >= 2,
      60_000,
    );
    await waitFor('every delivery finished', allDeliveriesFinished, 60_000);
    for (const path of ['/slack', '/teams', '/hook']) expect(on(path)).toHaveLength(2);
    expect(smtp.received).toHaveLength(2);
    expect(JSON.parse(on('/slack')[1].body).text).toContain('[RESOLVED]');
    expect(verifyStandardWebhook(webhookSecret, on('/hook')[1])).toMatchObject({ type: 'alert.resolved' });
    expect(smtp.received[1].raw).toMatch(/^Subject: \[RESOLVED\]/m);

    const log = await apiClient(url, tenant.readKey).get<{
      items: { status: string; event: string; attempts: number }[];
    }>('/v1/alert-deliveries');
    expect(log.body.items).toHaveLength(8);
    expect(log.body.items.every((delivery) => delivery.status === 'succeeded' && delivery.attempts === 1)).toBe(true);
    expect(log.body.items.filter((delivery) => delivery.event === 'resolved')).toHaveLength(4);
    const after = await apiClient(url, tenant.readKey).get<{ items: { resolvedAt: string | null }[] }>('/v1/alerts');
    expect(after.body.items).toHaveLength(1);
    expect(after.body.items[0].resolvedAt).not.toBeNull();
  }, 240_000);
});

describe('many Services losing their hints at once', () => {
  it('are one grouped message per channel, and one grouped resolve, each alert still opened and resolved once', async () => {
    const big = await createCluster(prisma, tenant, 'prod-us');
    const start = Date.now() - 3 * 3600_000;
    const before = {
      slack: on('/slack').length,
      teams: on('/teams').length,
      hook: on('/hook').length,
      mail: smtp.received.length,
    };
    await push(healthy(8), new Date(start), big.token);
    await push(withoutZoneOnFirstNode(healthy(8)), new Date(start + 3600_000), big.token);
    await waitFor(
      'the grouped messages',
      async () =>
        on('/slack').length > before.slack &&
        on('/teams').length > before.teams &&
        on('/hook').length > before.hook &&
        smtp.received.length > before.mail,
      60_000,
    );
    await waitFor('every delivery finished', allDeliveriesFinished, 60_000);
    const open = await prisma.alert.findMany({ where: { clusterId: big.id, resolvedAt: null } });
    expect(open).toHaveLength(8);
    expect(on('/slack')).toHaveLength(before.slack + 1);
    expect(on('/teams')).toHaveLength(before.teams + 1);
    expect(on('/hook')).toHaveLength(before.hook + 1);
    expect(smtp.received).toHaveLength(before.mail + 1);
    const slack = JSON.parse(on('/slack')[before.slack].body) as { text: string; blocks: unknown[] };
    expect(slack.text).toContain('[ALERT] Service lost its topology hints × 8');
    expect(JSON.stringify(slack.blocks)).toContain(`${PUBLIC_URL}/alerts`);
    const hook = verifyStandardWebhook(webhookSecret, on('/hook')[before.hook]) as {
      type: string;
      data: { alerts: { id: string }[] };
    };
    expect(hook.type).toBe('alerts.opened');
    expect(hook.data.alerts.map((alert) => alert.id).sort()).toEqual(open.map((alert) => alert.id).sort());
    const mail = smtp.received[before.mail].raw.replace(/=\r?\n/g, '');
    for (const alert of open) expect(mail).toContain(alert.summary.split(' lost')[0]);

    await push(healthy(8), new Date(start + 2 * 3600_000), big.token);
    await waitFor('the grouped resolves', async () => on('/hook').length > before.hook + 1, 60_000);
    await waitFor('every delivery finished', allDeliveriesFinished, 60_000);
    expect(on('/slack')).toHaveLength(before.slack + 2);
    expect(on('/teams')).toHaveLength(before.teams + 2);
    expect(smtp.received).toHaveLength(before.mail + 2);
    expect(JSON.parse(on('/slack')[before.slack + 1].body).text).toContain('[RESOLVED]');
    expect(verifyStandardWebhook(webhookSecret, on('/hook')[before.hook + 1])).toMatchObject({
      type: 'alerts.resolved',
    });
    expect(await prisma.alert.count({ where: { clusterId: big.id } })).toBe(8);
    expect(await prisma.alert.count({ where: { clusterId: big.id, resolvedAt: null } })).toBe(0);
    const grouped = await prisma.alertDelivery.findMany({ where: { NOT: { alertIds: { isEmpty: true } } } });
    expect(grouped).toHaveLength(8); // 4 channels × (opened, resolved)
    expect(grouped.every((delivery) => delivery.alertIds.length === 8 && delivery.status === 'succeeded')).toBe(true);
  }, 240_000);
});

describe('a failing channel', () => {
  it('is retried with backoff, then raises an alert of its own on the other channels, resolved once it delivers', async () => {
    const failing = await startHttpReceiver();
    failing.answer = () => 503;
    try {
      const operator = apiClient(url, tenant.operatorKey);
      const channel = await operator.post<{ id: string }>('/v1/alert-channels', {
        name: 'broken slack',
        kind: 'slack',
        target: `${failing.url}/broken`,
      });
      const slackBefore = on('/slack').length;
      const test = await operator.post<{ id: string; event: string }>(`/v1/alert-channels/${channel.body.id}/test`);
      expect(test.status).toBe(201);
      expect(test.body.event).toBe('test');
      const failed = await waitFor(
        'the test delivery to fail for good',
        async () => {
          const one = await operator.get<{ status: string; attempts: number; lastStatusCode: number }>(
            `/v1/alert-deliveries/${test.body.id}`,
          );
          return one.body.status === 'failed' ? one.body : null;
        },
        60_000,
      );
      expect(failed).toMatchObject({ attempts: 3, lastStatusCode: 503 });
      expect(failing.received).toHaveLength(3);
      await waitFor('the channel-failing message on Slack', async () => on('/slack').length > slackBefore, 60_000);
      expect(JSON.parse(on('/slack')[slackBefore].body).text).toContain('Alert channel failing');
      const open = await operator.get<{ items: { kind: string; subject: string }[] }>('/v1/alerts?state=open');
      expect(open.body.items).toEqual([
        expect.objectContaining({ kind: 'channel-failing', subject: `channel:${channel.body.id}` }),
      ]);

      failing.answer = () => 200;
      await operator.post(`/v1/alert-channels/${channel.body.id}/test`);
      await waitFor('the channel-failing resolve on Slack', async () => on('/slack').length > slackBefore + 1, 60_000);
      expect(JSON.parse(on('/slack')[slackBefore + 1].body).text).toContain('[RESOLVED] Alert channel failing');
      await waitFor('every delivery finished', allDeliveriesFinished, 60_000);
      expect((await operator.get<{ items: unknown[] }>('/v1/alerts?state=open')).body.items).toHaveLength(0);
      await operator.patch(`/v1/alert-channels/${channel.body.id}`, { enabled: false });
    } finally {
      await failing.close();
    }
  }, 240_000);
});

describe('a worker killed mid-delivery', () => {
  it('leaves a message the receiver gets under one webhook-id: neither zero nor two', async () => {
    const held = await startHttpReceiver();
    held.hold = true;
    try {
      const operator = apiClient(url, tenant.operatorKey);
      const channel = await operator.post<{ id: string; secret: string }>('/v1/alert-channels', {
        name: 'held webhook',
        kind: 'webhook',
        target: `${held.url}/held`,
      });
      const test = await operator.post<{ id: string }>(`/v1/alert-channels/${channel.body.id}/test`);
      await waitFor('the message to reach the receiver', async () => held.received.length >= 1, 60_000);
      // The receiver has the message but has not answered: the worker dies before it learns the outcome.
      await worker.kill('SIGKILL');
      expect(await prisma.alertDelivery.findUniqueOrThrow({ where: { id: test.body.id } })).toMatchObject({
        status: 'sending',
        attempts: 1,
      });
      held.hold = false;
      held.release(200);
      startWorker();
      const done = await waitFor(
        'the delivery to succeed after the restart',
        async () => {
          const one = await prisma.alertDelivery.findUniqueOrThrow({ where: { id: test.body.id } });
          return one.status === 'succeeded' ? one : null;
        },
        90_000,
      );
      expect(done.attempts).toBe(2);
      const ids = new Set(held.received.map((request) => request.headers['webhook-id']));
      expect(ids).toEqual(new Set([test.body.id]));
      for (const request of held.received) {
        expect(verifyStandardWebhook(channel.body.secret, request)).toMatchObject({ type: 'alert.test' });
      }
      // Sent, and never again once recorded: a sweep later finds nothing to re-send.
      const count = held.received.length;
      await waitFor(
        'no delivery left pending',
        async () => (await prisma.alertDelivery.count({ where: { status: 'pending' } })) === 0,
      );
      expect(held.received).toHaveLength(count);
      expect(count).toBe(2);
    } finally {
      await held.close();
    }
  }, 240_000);
});

describe('other rule kinds from condition to resolve', () => {
  it('agent-stale: opened by an old newest snapshot, resolved by a fresh one', async () => {
    const org = await organizationWithRule('stale', { kind: 'agent-stale' });
    // STALE_AFTER_SECONDS is 900 (the default): a snapshot captured two hours ago is stale when it arrives.
    await push(healthy(), new Date(Date.now() - 2 * 3600_000), org.cluster.token);
    await expectOneOpenAndOneResolve(org, 'agent-stale', () => push(healthy(), new Date(), org.cluster.token));
  }, 240_000);

  it('traffic-source-failing: opened by a source the worker cannot reach, resolved when it is removed', async () => {
    const org = await organizationWithRule('traffic', { kind: 'traffic-source-failing' });
    await push(healthy(), new Date(Date.now() - 3600_000), org.cluster.token);
    const admin = apiClient(url, org.tenant.adminKey);
    const path = `/v1/clusters/${org.cluster.id}/traffic-source`;
    const closed = await freePort();
    const configured = await admin.put(path, {
      clusterValue: 'measured',
      preset: 'istio',
      url: `http://127.0.0.1:${closed}`,
      window: '5s',
      interval: '1h',
    });
    expect([200, 201], JSON.stringify(configured.body)).toContain(configured.status);
    await expectOneOpenAndOneResolve(org, 'traffic-source-failing', async () => {
      expect((await admin.delete(path)).status).toBeLessThan(300);
    });
  }, 240_000);
});

describe('savings missed, at the price every other figure uses', () => {
  it("opens above the threshold at the organization's price, and resolves once routing is on", async () => {
    const org = await organizationWithRule('missed', { kind: 'savings-missed', threshold: 0 });
    await prisma.organization.update({
      where: { id: org.tenant.organizationId },
      data: { crossZonePricePerGb: ORGANIZATION_PRICE },
    });
    await push(unrouted(), new Date(Date.now() - 3600_000), org.cluster.token);
    const [summary] = await prisma.snapshotSummary.findMany({ where: { clusterId: org.cluster.id } });
    expect(summary.missedGb).toBeGreaterThan(0);
    await expectOneOpenAndOneResolve(org, 'savings-missed', () => push(healthy(), new Date(), org.cluster.token));
    const [alert] = await prisma.alert.findMany({ where: { clusterId: org.cluster.id } });
    expect(alert.details).toMatchObject({
      pricePerGb: ORGANIZATION_PRICE,
      priceSource: 'organization-override',
      estimatedMonthly: { amount: Number((summary.missedGb! * ORGANIZATION_PRICE).toFixed(2)), currency: 'USD' },
    });
  }, 240_000);
});

describe('drift from condition to resolve', () => {
  it('opens when slices carry hints their Service no longer asks for, and resolves once the hints are gone', async () => {
    const org = await organizationWithRule('drift', { kind: 'drift' });
    await push(unrouted(), new Date(Date.now() - 3600_000), org.cluster.token);
    const [summary] = await prisma.snapshotSummary.findMany({ where: { clusterId: org.cluster.id } });
    expect(summary.servicesWithDrift).toBeGreaterThan(0);
    await expectOneOpenAndOneResolve(org, 'drift', () => push(withoutHints(unrouted()), new Date(), org.cluster.token));
  }, 240_000);
});

describe('quiet hours', () => {
  it("hold a rule's messages until the window ends; an alert opened and cleared inside it sends neither", async () => {
    // A window around the worker's clock (UTC), ending two hours from now. BullMQ's delay is what the
    // held messages wait on: promoting the delayed jobs below is the window ending.
    const minute = (ms: number) => Math.floor(ms / 60_000) * 60_000;
    const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    const end = new Date(minute(Date.now() + 2 * 3600_000));
    const quietHours = { start: clock(Date.now() - 3600_000), end: clock(end.getTime()), timeZone: 'UTC' };
    const org = await organizationWithRule('quiet', { kind: 'hints-lost', quietHours });
    const brief = await createCluster(prisma, org.tenant, 'quiet-brief');
    const start = Date.now() - 3 * 3600_000;
    for (const token of [org.cluster.token, brief.token]) {
      await push(healthy(), new Date(start), token);
      await push(withoutZoneOnFirstNode(healthy()), new Date(start + 3600_000), token);
    }
    await push(healthy(), new Date(start + 2 * 3600_000), brief.token);
    // org.cluster: opened on 2 channels; brief: opened and resolved on 2 channels.
    const queue = new Queue(ALERTS_QUEUE, { connection: redisConnectionFromUrl(TEST_REDIS_URL), prefix });
    try {
      // A delivery's row is written before its job is queued: held once both are there.
      const held = await waitFor(
        'the held deliveries',
        async () => {
          const rows = await prisma.alertDelivery.findMany({ where: { channelId: { in: org.channels } } });
          if (rows.length !== 6) return null;
          const states = await Promise.all(rows.map((row) => queue.getJobState(row.id)));
          return states.every((state) => state !== 'unknown') ? rows : null;
        },
        60_000,
      );
      for (const row of held) {
        expect(row).toMatchObject({ status: 'pending', attempts: 0, notBefore: end });
        expect(await queue.getJobState(row.id)).toBe('delayed');
      }
      expect(on(org.slack)).toHaveLength(0);
      expect(on(org.hook)).toHaveLength(0);

      // Resolves first: both jobs wake at the same instant, and nothing orders them.
      const resolvesFirst = [...held].sort((a, b) => b.event.localeCompare(a.event));
      for (const row of resolvesFirst) await (await queue.getJob(row.id))!.promote();
      await waitFor('every delivery finished', allDeliveriesFinished, 60_000);
    } finally {
      await queue.close();
    }
    const alerts = await prisma.alert.findMany({ where: { clusterId: { in: [org.cluster.id, brief.id] } } });
    const kept = alerts.find((alert) => alert.clusterId === org.cluster.id)!;
    expect(on(org.slack)).toHaveLength(1);
    expect(on(org.hook)).toHaveLength(1);
    expect(verifyStandardWebhook(org.secret, on(org.hook)[0])).toMatchObject({
      type: 'alert.opened',
      data: { alert: { id: kept.id, kind: 'hints-lost' } },
    });
    const finished = await prisma.alertDelivery.findMany({ where: { channelId: { in: org.channels } } });
    const outcome = (alertId: string) =>
      finished
        .filter((delivery) => delivery.alertId === alertId)
        .map((delivery) => `${delivery.event} ${delivery.status} ${delivery.lastError ?? ''}`.trim())
        .sort();
    expect(outcome(kept.id)).toEqual(['opened succeeded', 'opened succeeded']);
    const cleared = alerts.find((alert) => alert.clusterId === brief.id)!;
    expect(cleared.resolvedAt).not.toBeNull();
    expect(outcome(cleared.id)).toEqual([
      'opened skipped opened and cleared during quiet hours',
      'opened skipped opened and cleared during quiet hours',
      'resolved skipped opened and cleared during quiet hours',
      'resolved skipped opened and cleared during quiet hours',
    ]);
  }, 240_000);
});
