import { roleAtLeast, ROLES, type Role } from '@zw/db';
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
import { ProblemSchema } from '../src/http/schemas.js';

/**
 * Roles on every route: the test walks the OpenAPI document the API serves and calls each operation that
 * takes credentials with a viewer's, an operator's and an admin's key. A caller whose role is below the
 * operation's `x-zonewise-role` gets 403 naming both roles, before the handler runs (no body, path or
 * query is even read); a caller at or above it gets past the guard (whatever the handler then answers).
 * Then the same for GraphQL's admin-only fields and mutations, and the live events stream (SSE).
 */

interface Operation {
  method: string;
  path: string;
  role: Role;
  description: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** An id no organization has: a caller past the guard gets the handler's 404 (or a 400 for the empty body). */
const UNKNOWN_ID = '00000000-0000-7000-8000-000000000000';

let stack: QueryStack;
let tenant: Tenant;
let operations: Operation[];

function keyOf(role: Role): string {
  return { viewer: tenant.readKey, operator: tenant.operatorKey, admin: tenant.adminKey }[role];
}

/** One call of an operation: its path ids unknown, an empty JSON body; a stream is cut once answered. */
async function call(operation: Operation, key: string | null): Promise<{ status: number; body: unknown }> {
  const path = operation.path.replace(/\{id\}|\{reportId\}|\{clusterId\}/g, UNKNOWN_ID).replace(/\{[^}]+\}/g, 'x');
  const controller = new AbortController();
  const response = await fetch(`${stack.url}${path}`, {
    method: operation.method.toUpperCase(),
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(operation.method === 'get' || operation.method === 'delete' ? {} : { 'content-type': 'application/json' }),
    },
    body: operation.method === 'get' || operation.method === 'delete' ? undefined : '{}',
    signal: controller.signal,
  });
  const streaming = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  const text = streaming ? '' : await response.text();
  controller.abort();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body };
}

beforeAll(async () => {
  // Every operation is called once without credentials: more than the default budget of unauthenticated
  // calls from one address (60 a minute) once the API has more than 60 operations.
  stack = await startQueryStack('roles', { UNAUTHENTICATED_RATE_LIMIT_REQUESTS: '1000' });
  tenant = await createTenant(stack.prisma, 'roles');
  await createCluster(stack.prisma, tenant, 'walked');
  const document = (await (await fetch(`${stack.url}/docs-json`)).json()) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      const secured = (operation?.security as Record<string, unknown>[] | undefined)?.some(
        (scheme) => 'apiKey' in scheme,
      );
      if (!operation || !secured) return [];
      return [
        {
          method,
          path,
          role: operation['x-zonewise-role'] as Role,
          description: String(operation.description ?? ''),
        },
      ];
    }),
  );
});

afterAll(() => stack?.stop());

describe('roles on REST, GraphQL and live events', () => {
  it('names the role of every operation that takes credentials, in x-zonewise-role and its description', () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const operation of operations) {
      const name = `${operation.method.toUpperCase()} ${operation.path}`;
      expect(ROLES, name).toContain(operation.role);
      expect(operation.description, name).toContain(`Role: \`${operation.role}\``);
    }
    const roleOf = (method: string, path: string) =>
      operations.find((operation) => operation.method === method && operation.path === path)?.role;
    expect(roleOf('get', '/v1/fleet')).toBe('viewer');
    expect(roleOf('post', '/v1/report-schedules/{id}/run')).toBe('operator');
    expect(roleOf('put', '/v1/clusters/{id}/traffic-source')).toBe('operator');
    expect(roleOf('post', '/v1/api-keys')).toBe('admin');
  });

  it('lets each role through exactly the operations its role reaches, and answers 403 naming the role to the rest', async () => {
    for (const operation of operations) {
      const name = `${operation.method.toUpperCase()} ${operation.path}`;
      const anonymous = await call(operation, null);
      expect(anonymous.status, `${name} without credentials`).toBe(401);
      for (const role of ROLES) {
        const answer = await call(operation, keyOf(role));
        if (roleAtLeast(role, operation.role)) {
          expect([401, 403], `${name} as ${role}: ${JSON.stringify(answer.body)}`).not.toContain(answer.status);
        } else {
          expect(answer.status, `${name} as ${role}`).toBe(403);
          const problem = ProblemSchema.passthrough().parse(answer.body);
          expect(problem, name).toMatchObject({ requiredRole: operation.role, role });
          expect(problem.detail, name).toContain(`"${operation.role}" role`);
        }
      }
    }
  });

  it("refuses GraphQL's admin fields and mutations below their role, and answers them at it", async () => {
    const auditLog = '{ auditLog(first: 1) { nodes { id } } }';
    const run = `mutation { runReportSchedule(id: "${UNKNOWN_ID}") { id } }`;
    const remove = `mutation { deleteReportSchedule(id: "${UNKNOWN_ID}") }`;
    const codeOf = async (role: Role, query: string) =>
      (await postGraphQL(stack.url, keyOf(role), { query })).body.errors?.[0]?.extensions.code ?? 'OK';
    expect(await codeOf('viewer', auditLog)).toBe('FORBIDDEN');
    expect(await codeOf('operator', auditLog)).toBe('FORBIDDEN');
    expect(await codeOf('admin', auditLog)).toBe('OK');
    expect(await codeOf('viewer', run)).toBe('FORBIDDEN');
    expect(await codeOf('operator', run)).toBe('NOT_FOUND');
    expect(await codeOf('operator', remove)).toBe('FORBIDDEN');
    expect(await codeOf('admin', remove)).toBe('NOT_FOUND');
    const fleet = await postGraphQL(stack.url, keyOf('viewer'), { query: '{ fleet { clusters { name } } }' });
    expect(fleet.body.errors).toBeUndefined();
    expect(
      (await postGraphQL(stack.url, null, { query: '{ fleet { clusters { name } } }' })).body.errors?.[0].extensions
        .code,
    ).toBe('UNAUTHENTICATED');
  });

  it('streams live events to every role, and to no caller without credentials', async () => {
    const events = operations.find((operation) => operation.path === '/v1/events')!;
    expect(events.role).toBe('viewer');
    for (const role of ROLES) expect((await call(events, keyOf(role))).status, role).toBe(200);
    expect((await call(events, null)).status).toBe(401);
  });

  it('records the role an action was taken with in the audit log', async () => {
    const operator = apiClient(stack.url, tenant.operatorKey);
    const { body } = await apiClient(stack.url, tenant.adminKey).post('/v1/clusters', { name: 'priced' });
    expect((await operator.patch(`/v1/clusters/${body.cluster.id}`, { crossZonePricePerGb: 0.03 })).status).toBe(200);
    const log = await apiClient(stack.url, tenant.adminKey).get('/v1/audit-log?action=cluster.price_change');
    expect(log.body.entries[0].actor).toMatchObject({ type: 'api_key', name: 'operator', role: 'operator' });
  });
});
