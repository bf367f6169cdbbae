import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  type QueryStack,
  startQueryStack,
  type Tenant,
} from '../../../test/support/query-api.js';
import { ProblemSchema } from '../src/http/schemas.js';

/**
 * A deployment without a secret keyring (SECRET_ENCRYPTION_KEYS, REPORT_WEBHOOK_ENCRYPTION_KEYS) stores no
 * secrets: a schedule with a webhook, or a traffic source with an auth header, is refused with a 400 naming
 * the setting (never stored in plain text); schedules and sources without one work.
 */
let stack: QueryStack;
let tenant: Tenant;

beforeAll(async () => {
  stack = await startQueryStack('whunset', { REPORT_WEBHOOK_ENCRYPTION_KEYS: '' });
  tenant = await createTenant(stack.prisma, 'no-keys');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('a deployment without a secret keyring', () => {
  it('refuses a webhook with a 400 naming REPORT_WEBHOOK_ENCRYPTION_KEYS, and stores nothing', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const schedule = { name: 'Daily', cadence: 'daily', timeZone: 'UTC', scope: { kind: 'fleet' }, formats: ['json'] };
    const refused = await admin.post('/v1/report-schedules', {
      ...schedule,
      webhook: { url: 'https://hooks.example.com/zonewise' },
    });
    expect(refused.status).toBe(400);
    expect(ProblemSchema.parse(refused.body).detail).toMatch(/REPORT_WEBHOOK_ENCRYPTION_KEYS/);
    expect(await stack.prisma.reportSchedule.count()).toBe(0);
    const created = await admin.post('/v1/report-schedules', schedule);
    expect(created.status).toBe(201);
    const added = await admin.patch(`/v1/report-schedules/${created.body.schedule.id}`, {
      webhook: { url: 'https://hooks.example.com/zonewise' },
    });
    expect(added.status).toBe(400);
    expect(await stack.prisma.reportSchedule.count({ where: { webhookUrl: { not: null } } })).toBe(0);
  });

  it('refuses a traffic source’s auth header with a 400 naming SECRET_ENCRYPTION_KEYS', async () => {
    const cluster = await createCluster(stack.prisma, tenant, 'no-keys-cluster');
    const refused = await apiClient(stack.url, tenant.adminKey).put(`/v1/clusters/${cluster.id}/traffic-source`, {
      preset: 'istio',
      url: 'https://prometheus.example.com',
      authHeader: 'Bearer x',
    });
    expect(refused.status).toBe(400);
    expect(ProblemSchema.parse(refused.body).detail).toMatch(/authHeader.*SECRET_ENCRYPTION_KEYS/);
    expect(await stack.prisma.clusterTrafficSource.count()).toBe(0);
  });
});
