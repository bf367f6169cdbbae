import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../src/http-app.js';
import { RecordingLogger } from '../../../test/support/logs.js';
import {
  apiClient,
  createTenant,
  postGraphQL,
  type QueryStack,
  startQueryStack,
  type Tenant,
} from '../../../test/support/query-api.js';

/**
 * Every answer carries a request id (`X-Request-Id`); an internal error (500) is logged with it, and its
 * answer says it, so the line a user's report points at can be found. The 500s here are real: a table
 * the audit log reads is renamed away under the API.
 */

let stack: QueryStack;
let tenant: Tenant;
let api: INestApplication;
let url: string;
const logs = new RecordingLogger();

beforeAll(async () => {
  stack = await startQueryStack('internalerrors');
  tenant = await createTenant(stack.prisma, 'internal-errors');
  // Created last, so Nest's static loggers (those of the error paths) write to this recorder.
  api = await createApiApp({ logger: logs });
  await api.listen(0, '127.0.0.1');
  url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
}, 120_000);

afterAll(async () => {
  await api?.close();
  await stack?.stop();
});

/** Runs `work` while the audit log's table is missing (every read of it then fails inside the API). */
async function withoutAuditTable(work: () => Promise<void>): Promise<void> {
  await stack.prisma.$executeRawUnsafe('ALTER TABLE audit_log RENAME TO audit_log_away');
  try {
    await work();
  } finally {
    await stack.prisma.$executeRawUnsafe('ALTER TABLE audit_log_away RENAME TO audit_log');
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are in every answer, a new one per request, or the plain one a proxy in front set', async () => {
    const client = apiClient(url, tenant.readKey);
    const [first, second] = [await client.get('/v1/fleet'), await client.get('/v1/fleet')];
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).toMatch(UUID);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
    expect((await apiClient(url, null).get('/v1/fleet')).headers.get('x-request-id')).toMatch(UUID);
    const proxied = await client.get('/v1/fleet', { 'x-request-id': 'lb-7f3a.42' });
    expect(proxied.headers.get('x-request-id')).toBe('lb-7f3a.42');
    // One that could forge a log line is replaced.
    const forged = await client.get('/v1/fleet', { 'x-request-id': 'x\tERROR [Problems] fake line' });
    expect(forged.headers.get('x-request-id')).toMatch(UUID);
  });

  it('a REST 500 is logged with the request id its answer carries, in its header and body', async () => {
    await withoutAuditTable(async () => {
      const answer = await apiClient(url, tenant.adminKey).get<Record<string, unknown>>('/v1/audit-log');
      expect(answer.status).toBe(500);
      const id = answer.headers.get('x-request-id')!;
      expect(id).toMatch(UUID);
      expect(answer.body).toMatchObject({ status: 500, requestId: id });
      expect(answer.body.detail).toBe(`internal error; it has been logged with request id ${id}`);
      expect(JSON.stringify(answer.body)).not.toMatch(/audit_log|relation/);
      const logged = logs.find(`request ${id}:`);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/audit_log/);
    });
  });

  it('a GraphQL 500 likewise, in the error extensions', async () => {
    await withoutAuditTable(async () => {
      const answer = await postGraphQL(url, tenant.adminKey, { query: '{ auditLog { nodes { action } } }' });
      const id = answer.headers.get('x-request-id')!;
      expect(id).toMatch(UUID);
      const [error] = answer.body.errors ?? [];
      expect(error.extensions).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', status: 500, requestId: id });
      expect(error.message).toBe(`internal error; it has been logged with request id ${id}`);
      expect(JSON.stringify(answer.body)).not.toMatch(/audit_log|relation/);
      const logged = logs.find(`request ${id}:`);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/audit_log/);
    });
  });
});
