import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  postGraphQL,
  type QueryStack,
  startQueryStack,
  type Tenant,
} from '../../../test/support/query-api.js';

/**
 * The alerts API's inputs: each bad one a 400 (or 409) naming the problem, channel targets never
 * answered (a Slack or Teams URL is a credential), a webhook's signing secret answered once, every
 * change in the audit log with who made it, and one organization's rules unable to name another's
 * clusters or channels.
 */
let stack: QueryStack;
let tenant: Tenant;
let other: Tenant;
let clusterId: string;

beforeAll(async () => {
  stack = await startQueryStack('alerts_api', { SECRET_ENCRYPTION_KEYS: 'test-1:a-test-only-secret-encryption-key' });
  tenant = await createTenant(stack.prisma, 'alerts-api');
  other = await createTenant(stack.prisma, 'alerts-other');
  clusterId = (await createCluster(stack.prisma, tenant, 'prod')).id;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('alert channels', () => {
  it('keep their targets to themselves and show a webhook secret once', async () => {
    const operator = apiClient(stack.url, tenant.operatorKey);
    const slack = await operator.post<{ targetHint: string; secret: null }>('/v1/alert-channels', {
      name: 'ops slack',
      kind: 'slack',
      target: 'https://hooks.slack.com/services/T000/B000/very-secret-token',
    });
    expect(slack.status).toBe(201);
    expect(slack.body).toMatchObject({ targetHint: 'hooks.slack.com', secret: null, kind: 'slack' });
    const hook = await operator.post<{ secret: string; signature: string }>('/v1/alert-channels', {
      name: 'siem',
      kind: 'webhook',
      target: 'https://siem.example.com/in',
      signature: 'both',
    });
    expect(hook.status).toBe(201);
    expect(hook.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(hook.body.signature).toBe('both');
    const list = await apiClient(stack.url, tenant.readKey).get('/v1/alert-channels');
    expect(list.status).toBe(200);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain('very-secret-token');
    expect(text).not.toContain(hook.body.secret);
    const stored = await stack.prisma.alertChannel.findMany();
    expect(stored.every((row) => !Buffer.from(row.targetSealed).toString('latin1').includes('very-secret'))).toBe(true);
    const audit = await stack.prisma.auditLogEntry.findMany({ where: { action: 'alert_channel.create' } });
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ actorType: 'api_key', actorName: 'operator', actorRole: 'operator' });
    expect(JSON.stringify(audit)).not.toContain('very-secret-token');
  });

  it('refuse bad input with a 400 naming it', async () => {
    const operator = apiClient(stack.url, tenant.operatorKey);
    const cases: [unknown, string][] = [
      [{ name: 'x', kind: 'pager', target: 'https://a.example.com' }, 'body field "kind"'],
      [{ name: 'x', kind: 'slack', target: 'http://hooks.example.com/a' }, 'body field "target"'],
      [{ name: 'x', kind: 'teams', target: 'https://169.254.169.254/latest' }, 'body field "target"'],
      [
        { name: 'x', kind: 'email', target: 'not an address' },
        'body field "target": "not an address" is not an email address',
      ],
      [
        { name: 'x', kind: 'slack', target: 'https://a.example.com', signature: 'both' },
        'only webhook channels are signed',
      ],
      [{ name: 'x', kind: 'slack', target: 'https://a.example.com', extra: 1 }, 'unknown body parameter'],
    ];
    for (const [body, detail] of cases) {
      const answer = await operator.post<{ detail: string }>('/v1/alert-channels', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.detail).toContain(detail);
    }
    const twice = await operator.post<{ detail: string }>('/v1/alert-channels', {
      name: 'ops slack',
      kind: 'slack',
      target: 'https://hooks.slack.com/services/x',
    });
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toBe('a channel named "ops slack" already exists in this organization');
    const notUuid = await operator.post<{ detail: string }>('/v1/alert-channels/nope/test');
    expect(notUuid.status).toBe(400);
  });
});

describe('alert rules', () => {
  it('are checked against the organization and the kind', async () => {
    const operator = apiClient(stack.url, tenant.operatorKey);
    const channels = await operator.get<{ items: { id: string }[] }>('/v1/alert-channels');
    const channelId = channels.body.items[0].id;
    const created = await operator.post<{ id: string; quietHours: unknown; openAlerts: number }>('/v1/alert-rules', {
      name: 'Missed savings',
      kind: 'savings-missed',
      threshold: 500,
      clusterIds: [clusterId],
      channelIds: [channelId],
      quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' },
      openAlerts: 0,
    });
    const cases: [unknown, string][] = [
      [{ name: 'a', kind: 'savings-missed', channelIds: [channelId] }, 'savings-missed needs a threshold'],
      [{ name: 'a', kind: 'hints-lost', channelIds: [] }, 'at least one channel'],
      [
        { name: 'a', kind: 'hints-lost', channelIds: [channelId], quietHours: { start: '25:00', end: '07:00' } },
        'a time HH:MM',
      ],
      [
        {
          name: 'a',
          kind: 'hints-lost',
          channelIds: [channelId],
          quietHours: { start: '22:00', end: '07:00', timeZone: 'Mars/Olympus' },
        },
        'an IANA time zone',
      ],
    ];
    for (const [body, detail] of cases) {
      const answer = await operator.post<{ detail: string }>('/v1/alert-rules', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.detail).toContain(detail);
    }
    // Another organization cannot point a rule at this one's channel or cluster, nor see its rules.
    const foreign = apiClient(stack.url, other.operatorKey);
    const stolen = await foreign.post<{ detail: string }>('/v1/alert-rules', {
      name: 'b',
      kind: 'hints-lost',
      channelIds: [channelId],
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body.detail).toContain('names a channel this organization does not have');
    expect((await foreign.get<{ items: unknown[] }>('/v1/alert-rules')).body.items).toHaveLength(0);
    expect((await foreign.patch(`/v1/alert-rules/${created.body.id}`, { enabled: false })).status).toBe(404);

    const changed = await operator.patch<{ enabled: boolean; quietHours: unknown }>(
      `/v1/alert-rules/${created.body.id}`,
      {
        enabled: false,
        quietHours: null,
      },
    );
    expect(changed.body).toMatchObject({ enabled: false, quietHours: null });
    expect((await operator.delete(`/v1/alert-rules/${created.body.id}`)).status).toBe(204);
    expect((await operator.get<{ items: unknown[] }>('/v1/alert-rules')).body.items).toHaveLength(0);
  });
});

describe('GraphQL', () => {
  it('reads channels, rules, alerts and deliveries; sending a test needs an operator', async () => {
    const query =
      '{ alertChannels { name kind targetHint } alertRules { name } alerts(state: "open") { id } alertDeliveries(first: 5) { id } }';
    const read = await postGraphQL(stack.url, tenant.readKey, { query });
    expect(read.body.errors).toBeUndefined();
    const data = read.body.data as { alertChannels: { name: string; targetHint: string }[]; alerts: unknown[] };
    expect(data.alertChannels.map((channel) => channel.name)).toEqual(['ops slack', 'siem']);
    expect(JSON.stringify(data)).not.toContain('very-secret-token');
    const channelId = (await stack.prisma.alertChannel.findFirstOrThrow({ where: { name: 'ops slack' } })).id;
    const mutation = `mutation { sendAlertChannelTest(id: "${channelId}") { id event status } }`;
    const refused = await postGraphQL(stack.url, tenant.readKey, { query: mutation });
    expect(refused.body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    const sent = await postGraphQL(stack.url, tenant.operatorKey, { query: mutation });
    expect(sent.body.errors).toBeUndefined();
    expect((sent.body.data as { sendAlertChannelTest: { event: string } }).sendAlertChannelTest.event).toBe('test');
  });

  it('creates, changes and deletes channels and rules for an operator, audited, in its organization only', async () => {
    const gql = async (key: string, query: string, variables: Record<string, unknown> = {}) =>
      (await postGraphQL(stack.url, key, { query, variables })).body;
    const createChannel = `mutation($input: AlertChannelInput!) {
      createAlertChannel(input: $input) { id name kind targetHint signature secret } }`;
    const webhook = { name: 'gql hook', kind: 'webhook', target: 'https://hooks.example.com/gql', signature: 'both' };
    const refused = await gql(tenant.readKey, createChannel, { input: webhook });
    expect(refused.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    const bad = await gql(tenant.operatorKey, createChannel, { input: { ...webhook, kind: 'pager' } });
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [expect.objectContaining({ field: 'kind' })],
    });
    const created = await gql(tenant.operatorKey, createChannel, { input: webhook });
    expect(created.errors).toBeUndefined();
    const channel = (created.data as { createAlertChannel: { id: string; secret: string; targetHint: string } })
      .createAlertChannel;
    expect(channel).toMatchObject({ kind: 'webhook', signature: 'both', targetHint: 'hooks.example.com' });
    expect(channel.secret).toMatch(/^whsec_/);

    const updateChannel = `mutation($id: ID!, $changes: AlertChannelChanges!) {
      updateAlertChannel(id: $id, changes: $changes) { id name enabled } }`;
    const renamed = await gql(tenant.operatorKey, updateChannel, {
      id: channel.id,
      changes: { name: 'gql hook renamed', enabled: false },
    });
    expect(renamed.data).toEqual({ updateAlertChannel: { id: channel.id, name: 'gql hook renamed', enabled: false } });

    const createRule = `mutation($input: AlertRuleInput!) {
      createAlertRule(input: $input) { id name kind threshold channelIds quietHours { start end timeZone } } }`;
    const missingThreshold = await gql(tenant.operatorKey, createRule, {
      input: { name: 'gql savings', kind: 'savings-missed', channelIds: [channel.id] },
    });
    expect(missingThreshold.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [expect.objectContaining({ field: 'threshold' })],
    });
    const rule = await gql(tenant.operatorKey, createRule, {
      input: {
        name: 'gql savings',
        kind: 'savings-missed',
        threshold: 250,
        channelIds: [channel.id],
        quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' },
      },
    });
    expect(rule.errors).toBeUndefined();
    const ruleId = (rule.data as { createAlertRule: { id: string } }).createAlertRule.id;
    expect(rule.data).toMatchObject({
      createAlertRule: { threshold: 250, quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' } },
    });
    const updateRule = `mutation($id: ID!, $changes: AlertRuleChanges!) {
      updateAlertRule(id: $id, changes: $changes) { threshold quietHours { start } } }`;
    const changed = await gql(tenant.operatorKey, updateRule, {
      id: ruleId,
      changes: { threshold: 500, quietHours: null },
    });
    expect(changed.data).toEqual({ updateAlertRule: { threshold: 500, quietHours: null } });

    // Another organization's operator: every write on these ids is NOT_FOUND, and nothing changes.
    for (const [query, variables] of [
      [updateChannel, { id: channel.id, changes: { name: 'stolen' } }],
      ['mutation($id: ID!) { deleteAlertChannel(id: $id) }', { id: channel.id }],
      [updateRule, { id: ruleId, changes: { threshold: 1 } }],
      ['mutation($id: ID!) { deleteAlertRule(id: $id) }', { id: ruleId }],
    ] as const) {
      expect((await gql(other.operatorKey, query, variables)).errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    }
    const foreignRule = await gql(other.operatorKey, createRule, {
      input: { name: 'borrowed', kind: 'hints-lost', channelIds: [channel.id] },
    });
    expect(foreignRule.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(await stack.prisma.alertChannel.findUniqueOrThrow({ where: { id: channel.id } })).toMatchObject({
      name: 'gql hook renamed',
    });

    expect(
      (await gql(tenant.operatorKey, 'mutation($id: ID!) { deleteAlertRule(id: $id) }', { id: ruleId })).data,
    ).toEqual({ deleteAlertRule: true });
    expect(
      (await gql(tenant.operatorKey, 'mutation($id: ID!) { deleteAlertChannel(id: $id) }', { id: channel.id })).data,
    ).toEqual({ deleteAlertChannel: true });
    const audit = await stack.prisma.auditLogEntry.findMany({
      where: { targetId: { in: [channel.id, ruleId] } },
      orderBy: [{ at: 'asc' }, { id: 'asc' }],
    });
    expect(audit.map((entry) => entry.action)).toEqual([
      'alert_channel.create',
      'alert_channel.update',
      'alert_rule.create',
      'alert_rule.update',
      'alert_rule.delete',
      'alert_channel.delete',
    ]);
    expect(audit.every((entry) => entry.actorType === 'api_key' && entry.actorName === 'operator')).toBe(true);
    expect(audit.every((entry) => entry.organizationId === tenant.organizationId)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain('hooks.example.com/gql');
  });
});
