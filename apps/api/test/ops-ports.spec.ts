import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, type RunningProcess, startApp } from '../../../test/support/processes.js';
import { freePort } from '../../../test/support/private-services.js';
import { apiClient } from '../../../test/support/query-api.js';
import { waitFor } from '../../../test/support/wait.js';
import { ProblemSchema } from '../src/http/schemas.js';

/**
 * What the compiled API shows without authentication when its dependencies are unreachable: /readyz names
 * the dependency that failed and the kind of failure, never its address, host name or user (the database
 * here is a host name that resolves nowhere, Redis a closed port, both with credentials in the URL);
 * /metrics is not on the API's port at all, but on METRICS_PORT.
 */
const DATABASE_HOST = 'zw-readyz-db.invalid';
const DATABASE_USER = 'zw_readyz_user';
const DATABASE_PASSWORD = 'zw-readyz-secret';
const REDIS_PASSWORD = 'zw-readyz-redis-secret';
let api: RunningProcess;
let url: string;
let metricsUrl: string;
let redisPort: number;

beforeAll(async () => {
  buildApps();
  const [port, metricsPort] = [await freePort(), await freePort()];
  redisPort = await freePort(); // nothing listens there
  api = startApp('api', {
    DATABASE_URL: `postgresql://${DATABASE_USER}:${DATABASE_PASSWORD}@${DATABASE_HOST}:5432/zonewise`,
    REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${redisPort}`,
    QUEUE_PREFIX: 'zwopsports',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
    READ_CONNECT_TIMEOUT_MS: '1000',
  });
  url = `http://127.0.0.1:${port}`;
  metricsUrl = `http://127.0.0.1:${metricsPort}`;
  await waitFor(
    'the API',
    () =>
      fetch(`${url}/healthz`)
        .then((r) => r.ok)
        .catch(() => false),
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

describe('/readyz with PostgreSQL and Redis unreachable', () => {
  it('answers 503 naming both dependencies and the kind of failure, never an address or a user', async () => {
    const ready = await apiClient(url, null).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = ProblemSchema.parse(ready.body);
    expect(problem.detail).toMatch(/^not ready: postgres \([a-z0-9 ]+\), redis \([a-z0-9 ]+\)$/);
    const { checks } = ready.body as { checks: Record<string, { ok: boolean; error: string }> };
    expect(Object.keys(checks).sort()).toEqual(['postgres', 'redis']);
    for (const name of ['postgres', 'redis']) expect(checks[name]).toMatchObject({ ok: false });
    const text = JSON.stringify(ready.body);
    for (const secret of [
      DATABASE_HOST,
      'invalid',
      DATABASE_USER,
      DATABASE_PASSWORD,
      REDIS_PASSWORD,
      '127.0.0.1',
      String(redisPort),
      ':5432',
      'ENOTFOUND',
      'ECONNREFUSED',
    ]) {
      expect(text, secret).not.toContain(secret);
    }
  });
});

describe('/metrics', () => {
  it('is not served on the API port (404, with or without a credential), only on METRICS_PORT', async () => {
    for (const key of [null, 'zwk_not-a-key']) {
      const answer = await apiClient(url, key).get('/metrics', { accept: 'text/plain,text/html,*/*' });
      expect(answer.status).toBe(404);
      expect(String(answer.body)).not.toMatch(/zonewise_/);
    }
    // The metrics port answers (503 here: the queue depths it reports need Redis) and serves nothing else.
    const scrape = await fetch(`${metricsUrl}/metrics`);
    expect([200, 503]).toContain(scrape.status);
    expect((await fetch(`${metricsUrl}/readyz`)).status).toBe(404);
  });
});
