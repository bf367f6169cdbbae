import { describe, expect, it } from 'vitest';
import { WriteOrder } from '../src/write-order.js';

/**
 * The order in which one process writes the snapshots it claimed: by captured-at within a cluster,
 * whatever order they were claimed in. No I/O.
 */

const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 12, minute));
const LONG_WAIT_MS = 60_000;

describe('write order', () => {
  it("writes a cluster's claimed snapshots in captured-at order, whatever order they were claimed in", async () => {
    const order = new WriteOrder();
    const written: number[] = [];
    const claimed = [3, 1, 4, 0, 2];
    const turns = claimed.map((minute) => ({ minute, turn: order.enter('cluster', at(minute)) }));
    await Promise.all(
      turns.map(async ({ minute, turn }) => {
        const waited = await turn.afterEarlier(LONG_WAIT_MS);
        expect(waited).toBe(minute !== 0);
        written.push(minute);
        turn.leave();
      }),
    );
    expect(written).toEqual([0, 1, 2, 3, 4]);
  });

  it('waits for an earlier snapshot claimed while it already waited', async () => {
    const order = new WriteOrder();
    const written: string[] = [];
    const second = order.enter('cluster', at(2));
    const first = order.enter('cluster', at(1));
    const waiting = second.afterEarlier(LONG_WAIT_MS).then(() => written.push('second'));
    const earliest = order.enter('cluster', at(0)); // claimed after the wait began
    first.afterEarlier(LONG_WAIT_MS).then(() => {
      written.push('first');
      first.leave();
    });
    await Promise.resolve();
    written.push('earliest');
    earliest.leave();
    await waiting;
    second.leave();
    expect(written).toEqual(['earliest', 'first', 'second']);
  });

  it('never waits for other clusters, nor for later snapshots', async () => {
    const order = new WriteOrder();
    const other = order.enter('other', at(0));
    const later = order.enter('cluster', at(9));
    const mine = order.enter('cluster', at(5));
    expect(await mine.afterEarlier(LONG_WAIT_MS)).toBe(false);
    for (const turn of [other, later, mine]) turn.leave();
  });

  it('stops waiting at its deadline for an earlier snapshot never written', async () => {
    const order = new WriteOrder();
    const stuck = order.enter('cluster', at(0));
    const mine = order.enter('cluster', at(1));
    expect(await mine.afterEarlier(1)).toBe(true);
    mine.leave();
    stuck.leave();
  });
});
