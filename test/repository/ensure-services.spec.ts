import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from '../support/private-services.js';

/**
 * scripts/ensure-services.sh starts a local PostgreSQL or Redis only for the local default address; when
 * TEST_POSTGRES_URL / DATABASE_URL or TEST_REDIS_URL / REDIS_URL point elsewhere it checks that server and
 * names the variable when it does not answer, never starting a local one in its place.
 */
const SCRIPT = join(__dirname, '..', '..', 'scripts', 'ensure-services.sh');
const SKIPS = {
  ZONEWISE_SKIP_CHROMIUM: '1',
  ZONEWISE_SKIP_PROMETHEUS: '1',
  ZONEWISE_SKIP_HELM: '1',
  ZONEWISE_SKIP_IMAGE_NODE: '1',
};

function ensure(env: Record<string, string>): { status: number | null; stderr: string } {
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'TEST_POSTGRES_URL', 'TEST_REDIS_URL']) delete inherited[name];
  const run = spawnSync('bash', [SCRIPT], { env: { ...inherited, ...SKIPS, ...env }, encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

let postgres: PrivatePostgres;
let redis: PrivateRedis;

beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
}, 120_000);

afterAll(async () => {
  await redis?.dispose();
  await postgres?.dispose();
});

describe('scripts/ensure-services.sh', () => {
  it('uses the servers DATABASE_URL and REDIS_URL name, starting nothing', () => {
    const run = ensure({ DATABASE_URL: `${postgres.serverUrl}/zonewise`, REDIS_URL: redis.url });
    expect(run).toEqual({ status: 0, stderr: '' });
  });

  it('prefers TEST_POSTGRES_URL and TEST_REDIS_URL over the apps’ variables', () => {
    const run = ensure({
      TEST_POSTGRES_URL: postgres.serverUrl,
      TEST_REDIS_URL: redis.url,
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nothing',
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(run).toEqual({ status: 0, stderr: '' });
  });

  it('refuses (exit 1) a server pointed elsewhere that does not answer, naming the variable, without starting one', async () => {
    const closed = await freePort();
    const database = ensure({ DATABASE_URL: `postgresql://u:secret@127.0.0.1:${closed}/x`, REDIS_URL: redis.url });
    expect(database.status).toBe(1);
    expect(database.stderr).toContain(`PostgreSQL at DATABASE_URL (127.0.0.1:${closed}) does not answer`);
    expect(database.stderr).not.toContain('starting');
    const queue = ensure({ TEST_POSTGRES_URL: postgres.serverUrl, TEST_REDIS_URL: `redis://127.0.0.1:${closed}` });
    expect(queue.status).toBe(1);
    expect(queue.stderr).toContain(`Redis at TEST_REDIS_URL (127.0.0.1:${closed}) does not answer`);
    expect(queue.stderr).not.toContain('starting');
  });
});
