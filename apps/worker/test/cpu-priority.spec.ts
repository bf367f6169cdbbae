import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { buildApps, startApp } from '../../../test/support/processes.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { waitFor } from '../../../test/support/wait.js';

/**
 * The worker's CPU priority (WORKER_CPU_NICE), read back from Linux (/proc/<pid>/task/<tid>/stat) on
 * the real compiled worker: every one of its threads runs at that nice value, and a value outside 0–19
 * stops it at boot, naming the variable.
 */

let db: TestDatabase;
const prefix = uniquePrefix('cpunice');

/** The nice value of each thread of process `pid` (the 19th field of its stat line). */
function threadNiceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

function env(overrides: Record<string, string>): Record<string, string> {
  return { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, ...overrides };
}

beforeAll(async () => {
  buildApps();
  db = await createTestDatabase('cpunice');
});

afterAll(async () => {
  await db?.drop();
  await deletePrefixKeys(prefix);
});

describe.runIf(process.platform === 'linux')('worker CPU priority', () => {
  it('runs every thread of the worker at WORKER_CPU_NICE (10 by default, 0 keeps the API priority)', async () => {
    for (const [overrides, expected] of [
      [{}, 10],
      [{ WORKER_CPU_NICE: '0' }, 0],
      [{ WORKER_CPU_NICE: '15' }, 15],
    ] as const) {
      const worker = startApp('worker', env(overrides));
      try {
        await waitFor('the worker to start', async () => worker.output().includes('worker started'), 60_000);
        expect(worker.output()).toContain(`CPU nice ${expected}`);
        const values = threadNiceValues(worker.child.pid!);
        expect(values.length).toBeGreaterThan(4);
        expect(new Set(values), JSON.stringify(values)).toEqual(new Set([expected]));
      } finally {
        await worker.stop();
      }
    }
  });

  it('refuses a nice value outside 0–19 at boot, naming the variable', async () => {
    for (const value of ['20', '-1', 'high']) {
      const worker = startApp('worker', env({ WORKER_CPU_NICE: value }));
      expect(await worker.exited()).toBe(1);
      expect(worker.output()).toContain('WORKER_CPU_NICE');
      expect(worker.output()).not.toMatch(/\n\s+at /); // no stack trace
    }
  });
});
