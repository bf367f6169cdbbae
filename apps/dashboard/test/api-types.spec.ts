import type { INestApplication } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/src/http-app.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';

/**
 * The dashboard's API types (apps/dashboard/src/generated/api.ts) are generated from the OpenAPI document
 * the API serves: the committed file is what scripts/api-types.mjs makes of the running API's
 * /docs-json, so it cannot drift from the API (run `npm run api:types`, or `npm run build`, after
 * changing an answer).
 */

const ROOT = join(__dirname, '..', '..', '..');
const GENERATED = join(ROOT, 'apps', 'dashboard', 'src', 'generated', 'api.ts');
let db: TestDatabase;
let api: INestApplication;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase('api_types');
  Object.assign(process.env, { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: uniquePrefix('types') });
  api = await createApiApp({ logger: ['error'] });
  await api.listen(0, '127.0.0.1');
  dir = mkdtempSync(join(tmpdir(), 'zw-api-types-'));
}, 60_000);

afterAll(async () => {
  await api?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the dashboard's generated API types", () => {
  it('are what openapi-typescript makes of the served OpenAPI document (npm run api:types when it fails)', async () => {
    const url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
    const document = join(dir, 'openapi.json');
    writeFileSync(document, await (await fetch(`${url}/docs-json`)).text());
    const out = join(dir, 'api.ts');
    await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'scripts', 'api-types.mjs'), '--document', document, '--out', out],
      {
        cwd: ROOT,
        timeout: 120_000,
      },
    );
    const fresh = readFileSync(out, 'utf8');
    expect(fresh).toContain('"/v1/fleet"');
    expect(
      readFileSync(GENERATED, 'utf8') === fresh,
      'apps/dashboard/src/generated/api.ts is out of date: run npm run api:types',
    ).toBe(true);
  });
});
