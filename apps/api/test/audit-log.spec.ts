import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLogSchema } from '../src/audit/audit-log.schemas.js';
import { buildProjects } from '../../../test/support/processes.js';
import {
  apiClient,
  createTenant,
  postGraphQL,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';

/**
 * The audit log records every admin write (API, GraphQL and the admin CLI) with who, what, when and
 * from where; admins read it over the API. API keys can expire.
 */

let stack: QueryStack;
let tenant: Tenant;
let other: Tenant;

type AuditEntry = ReturnType<typeof AuditLogSchema.parse>['entries'][number];

async function auditLog(query = ''): Promise<AuditEntry[]> {
  const answer = await apiClient(stack.url, tenant.adminKey).get(`/v1/audit-log${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return AuditLogSchema.parse(answer.body).entries;
}

/**
 * Runs the admin CLI without blocking this process, whose event loop also serves the API under test: a
 * loop held for seconds leaves the server's idle keep-alive sockets to be closed just as the next request
 * reuses one (ECONNRESET).
 */
async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const script = join(__dirname, '..', '..', '..', 'dist', 'apps', 'api', 'admin-cli.js');
  const { stdout } = await promisify(execFile)(process.execPath, [script, ...args], {
    env: { ...process.env, DATABASE_URL: stack.db.url },
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  stack = await startQueryStack('qaudit');
  tenant = await createTenant(stack.prisma, 'audited');
  other = await createTenant(stack.prisma, 'someone-else');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('audit log', () => {
  it('records every admin write over REST and GraphQL with its key, client address and target', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const key = await admin.post('/v1/api-keys', { name: 'ci', scopes: ['read'], expiresInDays: 30 });
    expect(key.status).toBe(201);
    expect((await admin.delete(`/v1/api-keys/${key.body.apiKey.id}`)).status).toBe(204);
    const cluster = await admin.post('/v1/clusters', { name: 'prod', cloud: 'aws', region: 'eu-west-1' });
    const clusterId = cluster.body.cluster.id as string;
    expect(
      (await admin.patch(`/v1/clusters/${clusterId}`, { name: 'prod-eu', crossZonePricePerGb: 0.02 })).status,
    ).toBe(200);
    expect((await admin.post(`/v1/clusters/${clusterId}/agent-token`)).status).toBe(200);
    const snapshot = await pushSnapshot(
      stack.url,
      (await admin.post(`/v1/clusters/${clusterId}/agent-token`)).body.agentToken,
      capturedAt(fleet(2, 2, 3), new Date(Date.now() - 60_000)),
    );
    await waitProcessed(stack.prisma, [snapshot]);
    const services = (await admin.get(`/v1/clusters/${clusterId}/services?limit=1`)).body.services;
    const service = services[0] as { namespace: string; name: string };
    expect(
      (
        await admin.patch(`/v1/clusters/${clusterId}/services/${service.namespace}/${service.name}`, {
          monthlyTrafficGb: 500,
        })
      ).status,
    ).toBe(200);
    const schedule = await admin.post('/v1/report-schedules', { name: 'weekly', cadence: 'weekly' });
    expect(schedule.status).toBe(201);
    const scheduleId = schedule.body.schedule.id as string;
    expect((await admin.patch(`/v1/report-schedules/${scheduleId}`, { name: 'weekly-ops' })).status).toBe(200);
    expect((await admin.post(`/v1/report-schedules/${scheduleId}/run`, {})).status).toBe(202);
    expect((await admin.delete(`/v1/report-schedules/${scheduleId}`)).status).toBe(204);
    const viaGraphQL = await postGraphQL(stack.url, tenant.adminKey, {
      query: 'mutation { createReportSchedule(input: { name: "monthly", cadence: monthly }) { schedule { id } } }',
    });
    const graphQLSchedule = viaGraphQL.body.data.createReportSchedule.schedule.id as string;
    expect((await admin.delete('/v1/clusters/' + clusterId)).status).toBe(204);

    const entries = await auditLog('?limit=500');
    expect(entries.map((entry) => entry.action).reverse()).toEqual([
      'api_key.create',
      'api_key.revoke',
      'cluster.create',
      'cluster.update',
      'cluster.price_change',
      'cluster.agent_token_rotate',
      'cluster.agent_token_rotate',
      'service.traffic_change',
      'report_schedule.create',
      'report_schedule.update',
      'report_schedule.run',
      'report_schedule.delete',
      'report_schedule.create',
      'cluster.delete',
    ]);
    for (const entry of entries) {
      expect(entry.actor).toEqual({
        type: 'api_key',
        keyId: expect.any(String),
        name: 'admin',
        subject: null,
        email: null,
        role: 'admin',
        clientAddress: expect.stringMatching(/127\.0\.0\.1/),
      });
      expect(Date.now() - Date.parse(entry.at)).toBeLessThan(120_000);
    }
    const byAction = (action: string) => entries.filter((entry) => entry.action === action);
    expect(byAction('api_key.create')[0]).toMatchObject({
      target: { type: 'api_key', id: key.body.apiKey.id },
      details: { name: 'ci', role: 'viewer', expiresAt: key.body.apiKey.expiresAt },
    });
    expect(byAction('cluster.update')[0].details).toEqual({
      name: 'prod',
      changes: { name: { from: 'prod', to: 'prod-eu' } },
    });
    expect(byAction('cluster.price_change')[0].details).toMatchObject({
      crossZonePricePerGb: { from: null, to: 0.02 },
    });
    expect(byAction('service.traffic_change')[0].details).toMatchObject({
      namespace: service.namespace,
      name: service.name,
      monthlyTrafficGb: { to: 500 },
    });
    expect(byAction('report_schedule.create')[0].target.id).toBe(graphQLSchedule);
    // No secret ever reaches the log.
    expect(JSON.stringify(entries)).not.toContain(key.body.key);
    expect(JSON.stringify(entries)).not.toMatch(/zwa_[A-Za-z0-9_-]{20}/);
  });

  it('filters by action (or kind of thing) and time, and pages with a cursor', async () => {
    const clusters = await auditLog('?action=cluster');
    expect(clusters.length).toBeGreaterThan(0);
    expect(clusters.every((entry) => entry.action.startsWith('cluster.'))).toBe(true);
    expect((await auditLog('?action=cluster.delete')).map((entry) => entry.action)).toEqual(['cluster.delete']);
    expect(await auditLog(`?to=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toEqual([]);
    const all = await auditLog('?limit=500');
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const answer = await apiClient(stack.url, tenant.adminKey).get(
        `/v1/audit-log?limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      const page = AuditLogSchema.parse(answer.body);
      paged.push(...page.entries.map((entry) => entry.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all.map((entry) => entry.id));
  });

  it('is readable over GraphQL too, by admin keys', async () => {
    const query =
      '{ auditLog(action: "cluster", first: 2) { nodes { action actorType actorName targetId details } nextCursor } }';
    const answer = await postGraphQL(stack.url, tenant.adminKey, { query });
    expect(answer.body.errors).toBeUndefined();
    const rest = (await auditLog('?action=cluster&limit=2')).map((entry) => entry.action);
    expect(answer.body.data.auditLog.nodes.map((node: { action: string }) => node.action)).toEqual(rest);
    expect(JSON.parse(answer.body.data.auditLog.nodes[0].details)).toBeTypeOf('object');
    expect(answer.body.data.auditLog.nextCursor).toEqual(expect.any(String));
    const forbidden = await postGraphQL(stack.url, tenant.readKey, { query });
    expect(forbidden.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('is readable by admins of the organization only', async () => {
    expect((await apiClient(stack.url, tenant.readKey).get('/v1/audit-log')).status).toBe(403);
    const theirs = await apiClient(stack.url, other.adminKey).get('/v1/audit-log');
    expect(theirs.body.entries).toEqual([]);
    const bad = await apiClient(stack.url, tenant.adminKey).get('/v1/audit-log?action=DROP%20TABLE');
    expect(bad.status).toBe(400);
  });

  it('records the admin CLI as the operator, not a key', async () => {
    buildProjects(['apps/api']);
    await cli('create-org', '--org', 'cli-made');
    const key = await cli(
      'create-api-key',
      '--org',
      'cli-made',
      '--name',
      'ops',
      '--role',
      'admin',
      '--expires-in',
      '30d',
    );
    expect(Date.parse(String(key.expiresAt)) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    await cli('create-cluster', '--org', 'cli-made', '--name', 'edge', '--price-per-gb', '0.01');
    await cli('rotate-token', '--org', 'cli-made', '--name', 'edge');
    const answer = await apiClient(stack.url, String(key.apiKey)).get('/v1/audit-log');
    const entries = AuditLogSchema.parse(answer.body).entries;
    expect(entries.map((entry) => entry.action).reverse()).toEqual([
      'organization.create',
      'api_key.create',
      'cluster.create',
      'cluster.agent_token_rotate',
    ]);
    for (const entry of entries)
      expect(entry.actor).toMatchObject({ type: 'admin_cli', keyId: null, clientAddress: null });
    expect(entries[1].details).toMatchObject({ crossZonePricePerGb: 0.01, name: 'edge' });
    // A build and four processes of their own: minutes on a loaded machine, never a bound on speed.
  }, 300_000);
});

describe('admin CLI create-cluster', () => {
  it('refuses an unknown organization (exit 2, saying how to create it) and creates nothing', async () => {
    buildProjects(['apps/api']);
    const refusal = await cli('create-cluster', '--org', 'nope', '--name', 'prod').then(
      () => null,
      (error: { code?: number; stderr: string; stdout: string }) => error,
    );
    expect(refusal).not.toBeNull();
    expect(refusal!.code).toBe(2);
    expect(refusal!.stdout).toBe('');
    expect(refusal!.stderr.trim()).toBe(
      'no organization "nope": create it with create-org first, or add --create-org to create it with this cluster',
    );
    expect(await stack.prisma.organization.count({ where: { slug: 'nope' } })).toBe(0);
    expect(await stack.prisma.cluster.count({ where: { name: 'prod', organization: { slug: 'nope' } } })).toBe(0);
  });

  it('with --create-org, creates the organization (audited) and the cluster together', async () => {
    buildProjects(['apps/api']);
    const made = await cli('create-cluster', '--org', 'made-with-cluster', '--name', 'prod', '--create-org');
    expect(made.agentToken).toMatch(/^zwa_/);
    const organization = await stack.prisma.organization.findUniqueOrThrow({ where: { slug: 'made-with-cluster' } });
    expect(made.organizationId).toBe(organization.id);
    const actions = await stack.prisma.auditLogEntry.findMany({
      where: { organizationId: organization.id },
      orderBy: [{ at: 'asc' }, { id: 'asc' }],
    });
    expect(actions.map((entry) => entry.action)).toEqual(['organization.create', 'cluster.create']);
    // An existing organization needs no flag.
    expect((await cli('create-cluster', '--org', 'made-with-cluster', '--name', 'second')).agentToken).toMatch(/^zwa_/);
  });
});

describe('API key expiry', () => {
  it('refuses an expired key with 401 saying so, even while its verification is cached', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await admin.post('/v1/api-keys', { name: 'short-lived', expiresAt });
    expect(created.status).toBe(201);
    expect(created.body.apiKey.expiresAt).toBe(expiresAt);
    const shortLived = apiClient(stack.url, created.body.key);
    expect((await shortLived.get('/v1/fleet')).status).toBe(200);
    await waitFor('the key to expire', async () => Date.now() > Date.parse(expiresAt));
    const refused = await shortLived.get('/v1/fleet');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refused.body.detail).toMatch(/this API key expired at .*Z/);
    expect(refused.body.expiredAt).toBe(expiresAt);
    const listed = (await admin.get('/v1/api-keys')).body.apiKeys.find(
      (k: { id: string }) => k.id === created.body.apiKey.id,
    );
    expect(listed.expiresAt).toBe(expiresAt);
  });

  it('refuses an expiry in the past or given twice', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const past = await admin.post('/v1/api-keys', { name: 'x', expiresAt: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.detail).toMatch(/expiresAt.*future/);
    const both = await admin.post('/v1/api-keys', { name: 'x', expiresAt: '2099-01-01T00:00:00Z', expiresInDays: 3 });
    expect(both.status).toBe(400);
  });
});
