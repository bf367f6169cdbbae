import { createPrismaClient, type PrismaClient } from '@zw/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { buildApps, type RunningProcess, startApp } from '../../../test/support/processes.js';
import { freePort } from '../../../test/support/private-services.js';
import { apiClient, createCluster, createTenant, type Tenant } from '../../../test/support/query-api.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { waitFor } from '../../../test/support/wait.js';

/**
 * The compiled API and worker log JSON lines (pino) at LOG_LEVEL: every line an object with the app's
 * name, an ISO time and the level as a word; each answered request logged with the request id its answer
 * carries; no API key, agent token, cookie or SSO code in any line.
 */
let db: TestDatabase;
let prisma: PrismaClient;
let prefix: string;
let tenant: Tenant;
let agentToken: string;
let api: RunningProcess;
let worker: RunningProcess;
let url: string;

interface LogLine {
  name: string;
  level: string;
  time: string;
  msg: string;
  req?: { id: string; method: string; path: string };
  res?: { statusCode: number };
}

/** Every line a process printed, each parsed as JSON (a line that is not JSON fails the test). */
function logLines(process: RunningProcess): LogLine[] {
  return process
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine);
}

beforeAll(async () => {
  buildApps();
  db = await createTestDatabase('jsonlogs');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  tenant = await createTenant(prisma, 'json-logs');
  agentToken = (await createCluster(prisma, tenant, 'logged')).token;
  prefix = uniquePrefix('jsonlogs');
  const env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, LOG_LEVEL: 'info' };
  const port = await freePort();
  api = startApp('api', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  worker = startApp('worker', env);
  url = `http://127.0.0.1:${port}`;
  await waitFor(
    'the API',
    () =>
      fetch(`${url}/healthz`)
        .then((r) => r.ok)
        .catch(() => false),
    60_000,
  );
  await waitFor('the worker to start', async () => worker.output().includes('worker started'), 60_000);
}, 120_000);

afterAll(async () => {
  await Promise.all([api?.stop(), worker?.stop()]);
  await prisma?.$disconnect();
  if (prefix) await deletePrefixKeys(prefix);
  await db?.drop();
});

describe('JSON logs', () => {
  it('log each answered request with the id its answer carries, its path and status', async () => {
    const answer = await apiClient(url, tenant.readKey).get('/v1/fleet', { 'x-request-id': 'trace-7f3a.1' });
    expect(answer.status).toBe(200);
    const line = await waitFor(
      'the request line',
      async () => logLines(api).find((entry) => entry.req?.id === 'trace-7f3a.1'),
      30_000,
    );
    expect(line).toMatchObject({
      name: 'zonewise-api',
      level: 'info',
      req: { method: 'GET', path: '/v1/fleet' },
      res: { statusCode: 200 },
    });
    expect(new Date(line.time).toISOString()).toBe(line.time);
    const other = await apiClient(url, tenant.readKey).get('/v1/fleet');
    const id = other.headers.get('x-request-id')!;
    await waitFor('the second request line', async () => logLines(api).some((entry) => entry.req?.id === id), 30_000);
  });

  it('never write a key, token, cookie or SSO code', async () => {
    const secrets = {
      key: tenant.adminKey,
      refusedKey: 'zwk_never-logged-refused-key-0123456789',
      token: agentToken,
      cookie: 'never-logged-session-cookie',
      code: 'never-logged-sso-code',
    };
    const marks = ['secrets-1', 'secrets-2', 'secrets-3', 'secrets-4', 'secrets-5'];
    await apiClient(url, secrets.key).get('/v1/fleet', { 'x-request-id': marks[0] });
    await apiClient(url, secrets.refusedKey).get('/v1/fleet', { 'x-request-id': marks[1] });
    await apiClient(url, secrets.token).post('/v1/ingest/snapshots', { not: 'a snapshot' });
    await apiClient(url, null).get('/v1/fleet', {
      cookie: `__Host-zw_session=${secrets.cookie}`,
      'x-request-id': marks[2],
    });
    await apiClient(url, null).get(`/v1/auth/sso/callback?code=${secrets.code}&state=x`, { 'x-request-id': marks[3] });
    await apiClient(url, null).get('/v1/fleet', { 'x-request-id': marks[4] });
    await waitFor(
      'the last request line',
      async () => logLines(api).some((entry) => entry.req?.id === marks[4]),
      30_000,
    );
    const logged = [api.output(), worker.output()].join('\n');
    for (const [what, secret] of Object.entries(secrets)) expect(logged, what).not.toContain(secret);
    const callback = logLines(api).find((entry) => entry.req?.id === marks[3]);
    expect(callback?.req?.path).toBe('/v1/auth/sso/callback');
  });

  it('are what the worker writes too, at its own name', () => {
    const lines = logLines(worker);
    expect(lines.find((line) => line.msg.includes('worker started'))).toMatchObject({
      name: 'zonewise-worker',
      level: 'info',
    });
  });

  it('stop an app at boot naming LOG_LEVEL when the level is not one', async () => {
    const bad = startApp('worker', {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'verbose',
    });
    expect(await bad.exited()).not.toBe(0);
    expect(bad.output()).toMatch(/LOG_LEVEL: .*info/);
  }, 60_000);
});
