import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { Piscina } from 'piscina';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps } from '../../../test/support/processes.js';
import { compiledIngestThreadFile } from '../src/ingest/snapshot-reader.js';
import type { SnapshotReadOutcome, SnapshotReadTask } from '../src/ingest/snapshot-reading.js';

/**
 * The ingest threads yield the CPU to the API's request thread: on Linux the compiled thread script sets
 * its own nice value (os.setPriority(0, …) names the calling thread there), and only its own. Read back
 * from /proc/self/task/<tid>/stat, in this process, with the real thread script in a Piscina pool as the
 * API runs it.
 */

let pool: Piscina<SnapshotReadTask, SnapshotReadOutcome>;

/** Nice value of each thread of this process, by thread id (the 19th field of its stat line). */
function threadNiceValues(): Map<number, number> {
  return new Map(
    readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    }),
  );
}

beforeAll(() => {
  buildApps();
});

afterAll(async () => {
  await pool?.close();
});

describe.runIf(process.platform === 'linux')('ingest thread priority', () => {
  it('runs each ingest thread at nice 10 and leaves the request thread as it was', async () => {
    const mainBefore = getPriority(process.pid);
    expect(mainBefore).toBeLessThan(10);
    const niceBefore = [...threadNiceValues().values()].filter((nice) => nice === 10).length;
    pool = new Piscina({ filename: compiledIngestThreadFile(), minThreads: 2, maxThreads: 2 });
    const read = await Promise.all(
      [0, 1].map(() =>
        pool.run({
          wire: Buffer.from('{"kind":"List","items":[]}'),
          gzipped: false,
          maxBytes: 1e6,
          receivedAtMs: Date.now(),
          historyRetentionDays: 90,
        }),
      ),
    );
    expect(read).toHaveLength(2);
    const after = threadNiceValues();
    expect(after.get(process.pid)).toBe(mainBefore);
    expect([...after.values()].filter((nice) => nice === 10).length - niceBefore).toBe(2);
  });
});
