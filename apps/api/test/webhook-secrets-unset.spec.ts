import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createTenant,
  type QueryStack,
  startQueryStack,
  type Tenant,
} from '../../../test/support/query-api.js';
import { ProblemSchema } from '../src/http/schemas.js';

/**
 * A deployment without REPORT_WEBHOOK_ENCRYPTION_KEYS stores no webhook secrets: a schedule with a webhook
 * is refused with a 400 naming the setting (never stored in plain text); schedules without one work.
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

describe('webhooks without encryption keys', () => {
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
});
