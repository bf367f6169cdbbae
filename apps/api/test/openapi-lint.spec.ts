import type { INestApplication } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWhatIf } from '@zw/core';
import { createApiApp } from '../src/http-app.js';
import { WhatIfSchema } from '../src/simulate/simulate.schemas.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';

/**
 * The OpenAPI document the real app serves passes `@redocly/cli lint` (recommended rules, redocly.yaml)
 * with no error, and says what the API really does: security on every operation, problem answers,
 * the simulate body, typed CIDR objects, servers and license.
 */

const ROOT = join(__dirname, '..', '..', '..');
let db: TestDatabase;
let api: INestApplication;
let document: OpenApi;
let dir: string;

interface Operation {
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
interface OpenApi {
  info: { license?: { name: string; url?: string } };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { bearerFormat?: string }>; schemas: Record<string, unknown> };
}

const operations = () =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      path,
      operation,
    })),
  );

beforeAll(async () => {
  db = await createTestDatabase('openapi');
  Object.assign(process.env, {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniquePrefix('openapi'),
  });
  api = await createApiApp({ logger: ['error'] });
  await api.listen(0, '127.0.0.1');
  const url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
  document = (await (await fetch(`${url}/docs-json`)).json()) as OpenApi;
  dir = mkdtempSync(join(tmpdir(), 'zw-openapi-'));
}, 60_000);

afterAll(async () => {
  await api?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the OpenAPI document', () => {
  it('passes redocly lint (recommended) with no error', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const redocly = join(ROOT, 'node_modules', '.bin', 'redocly');
    const run = await promisify(execFile)(
      redocly,
      ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        timeout: 120_000,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }));
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const errors = report.problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((e) => `${e.ruleId} ${e.location[0]?.pointer}: ${e.message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.problems.map((e) => `${e.ruleId} ${e.location[0]?.pointer}: ${e.message}`)).toEqual([]);
    expect(report.totals.warnings).toBe(0);
  });

  it('says how every operation authenticates: an API key, a provider token or the session cookie, the agent token, or explicitly nothing', () => {
    for (const { name, operation } of operations()) expect(operation.security, name).toBeDefined();
    const securityOf = (name: string) => operations().find((o) => o.name === name)!.operation.security;
    expect(securityOf('POST /v1/ingest/snapshots')).toEqual([{ agentToken: [] }]);
    for (const open of ['GET /healthz', 'GET /readyz']) expect(securityOf(open)).toEqual([]);
    // Prometheus metrics are on their own port (METRICS_PORT), not an operation of this API.
    expect(operations().some((operation) => operation.name === 'GET /metrics')).toBe(false);
    expect(securityOf('GET /v1/fleet')).toEqual([{ apiKey: [] }, { oidcToken: [] }, { session: [] }]);
    // Signing in is a browser navigation (redirects), documented in docs/sso.md, not an API operation.
    expect(operations().some((operation) => operation.name.startsWith('GET /v1/auth/sso'))).toBe(false);
    // Keys and agent tokens are opaque; only the identity provider's tokens are JWTs.
    const schemes = document.components.securitySchemes;
    expect(schemes.apiKey.bearerFormat).not.toBe('JWT');
    expect(schemes.agentToken.bearerFormat).not.toBe('JWT');
    expect(schemes.oidcToken.bearerFormat).toBe('JWT');
  });

  it('documents the error answers as problem+json', () => {
    for (const { name, path, operation } of operations()) {
      const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      expect(errors.length, name).toBeGreaterThan(0);
      for (const [, response] of errors) {
        expect(response.content?.['application/problem+json']?.schema, name).toEqual({
          $ref: '#/components/schemas/Problem',
        });
      }
      expect(Object.keys(operation.responses), name).toContain('400');
      if (path.includes('{')) expect(Object.keys(operation.responses), name).toContain('404');
      if (operation.requestBody)
        expect(Object.keys(operation.responses), name).toEqual(expect.arrayContaining(['413', '415']));
      if (operation.security?.length && !name.includes('ingest')) {
        expect(Object.keys(operation.responses), name).toEqual(expect.arrayContaining(['401', '403', '429']));
      }
    }
    expect(document.paths['/readyz'].get.responses).toHaveProperty('503');
    expect(document.paths['/v1/clusters'].post.responses).toHaveProperty('409');
  });

  it('describes the simulate body with its what-ifs, typed CIDR objects, servers and the license', () => {
    const simulate = JSON.stringify(document.paths['/v1/simulate'].post.requestBody);
    for (const field of [
      'whatIf',
      'enableRouting',
      'scaleReplicas',
      'removeZoneNodes',
      'PreferSameZone',
      'reschedule',
    ]) {
      expect(simulate).toContain(field);
    }
    const cidrs = JSON.stringify(document.paths['/v1/clusters/{id}/service-cidrs'].get.responses['200']);
    for (const field of ['staticBand', 'first', 'last', 'static-ip-in-dynamic-band', 'heldBy'])
      expect(cidrs).toContain(field);
    expect(document.servers?.length).toBeGreaterThan(0);
    expect(document.info.license).toEqual({ name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' });
  });

  it("documents the what-if shape the core's parser accepts", () => {
    const accepted = {
      enableRouting: [{ namespace: 'shop', name: 'cart', mode: 'PreferSameZone' }],
      scaleReplicas: [{ namespace: 'shop', name: 'cart', zone: 'us-east-1a', delta: -2 }],
      removeZoneNodes: [{ zone: 'us-east-1c', reschedule: true }],
    };
    expect(WhatIfSchema.parse(accepted)).toEqual(accepted);
    expect(parseWhatIf(accepted)).toEqual(accepted);
    const refused = [
      { enableRouting: [{ namespace: 'shop', name: 'cart', mode: 'Sideways' }] },
      { scaleReplicas: [{ namespace: 'shop', name: 'cart', zone: 'a', delta: 1, extra: true }] },
      { removeZoneNodes: [{}] },
      { somethingElse: [] },
    ];
    for (const whatIf of refused) {
      expect(WhatIfSchema.safeParse(whatIf).success, JSON.stringify(whatIf)).toBe(false);
      expect(() => parseWhatIf(whatIf), JSON.stringify(whatIf)).toThrow();
    }
  });
});
