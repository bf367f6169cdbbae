import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PushScheduler, type SnapshotTrigger } from '../src/push-scheduler.js';

/** The scheduler on Vitest's fake clock: when snapshots are taken, for which trigger. */

let taken: { at: number; trigger: SnapshotTrigger }[];
let sends: boolean;
let start: number;

function scheduler(options: { minIntervalMs?: number; maxIntervalMs?: number; settleMs?: number } = {}) {
  return new PushScheduler({
    minIntervalMs: options.minIntervalMs ?? 30_000,
    maxIntervalMs: options.maxIntervalMs ?? 300_000,
    settleMs: options.settleMs ?? 1000,
    take: async (trigger) => {
      taken.push({ at: Date.now() - start, trigger });
      return sends;
    },
    onError: (error) => {
      throw error;
    },
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  start = Date.now();
  taken = [];
  sends = true;
});

afterEach(() => {
  vi.useRealTimers();
});

describe('PushScheduler', () => {
  it('takes a snapshot at start, then one per burst of changes once they settle', async () => {
    const s = scheduler();
    s.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(taken).toEqual([{ at: 0, trigger: 'change' }]);
    await vi.advanceTimersByTimeAsync(60_000);
    for (let i = 0; i < 5; i++) {
      s.changed();
      await vi.advanceTimersByTimeAsync(300);
    }
    await vi.advanceTimersByTimeAsync(1000);
    expect(taken).toHaveLength(2);
    expect(taken[1]).toEqual({ at: 60_000 + 4 * 300 + 1000, trigger: 'change' });
  });

  it('takes at most one snapshot per minimum interval, however often things change', async () => {
    const s = scheduler();
    s.start();
    for (let t = 0; t < 120_000; t += 200) {
      s.changed();
      await vi.advanceTimersByTimeAsync(200);
    }
    const gaps = taken.slice(1).map((entry, i) => entry.at - taken[i].at);
    expect(taken.length).toBeGreaterThanOrEqual(4); // changes never settle, yet snapshots keep coming
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(30_000);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(31_000);
  });

  it('sends a heartbeat when nothing changed for the maximum interval', async () => {
    const s = scheduler({ maxIntervalMs: 300_000 });
    s.start();
    await vi.advanceTimersByTimeAsync(700_000);
    expect(taken.map((entry) => [entry.at, entry.trigger])).toEqual([
      [0, 'change'],
      [300_000, 'heartbeat'],
      [600_000, 'heartbeat'],
    ]);
  });

  it('still sends the heartbeat when frequent changes change nothing in the snapshot', async () => {
    const s = scheduler({ maxIntervalMs: 120_000 });
    s.start();
    await vi.advanceTimersByTimeAsync(0);
    sends = false; // e.g. node status heartbeats: events, but the same compact snapshot
    for (let t = 0; t < 130_000; t += 5000) {
      s.changed();
      await vi.advanceTimersByTimeAsync(5000);
    }
    expect(taken.filter((entry) => entry.trigger === 'heartbeat').map((entry) => entry.at)).toEqual([120_000]);
  });

  it('reports a change not yet snapshotted when stopped', async () => {
    const s = scheduler();
    s.start();
    await vi.advanceTimersByTimeAsync(0);
    s.changed();
    expect(await s.stop()).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(taken).toHaveLength(1);
  });
});
