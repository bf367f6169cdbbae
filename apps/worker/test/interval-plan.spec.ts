import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type IntervalRef, planIntervals } from '../src/history/interval-plan.js';
import type { ServiceState } from '../src/history/service-state.js';

/**
 * The planner against an in-memory history: whatever order snapshots arrive in, the intervals must be
 * exactly the maximal runs of equal states in captured-at order (computed here independently).
 */

interface Stored {
  id: bigint;
  key: string;
  validFrom: number;
  validTo: number | null;
  hash: bigint;
}

/** A snapshot: captured-at (minutes) and, per Service key, a small state number (absent = not there). */
interface Snap {
  at: number;
  states: Map<string, number>;
}

function state(key: string, value: number): ServiceState {
  return {
    namespace: 'ns',
    name: key,
    routing: 'Auto',
    hintState: 'populated',
    hintReason: null,
    zones: {},
    crossZoneWithoutHints: null,
    crossZoneWithHints: null,
    stateHash: BigInt(value),
  };
}

class MemoryHistory {
  intervals: Stored[] = [];
  recorded: number[] = [];
  private nextId = 1n;

  record(snap: Snap): void {
    const previous = Math.max(...this.recorded.filter((t) => t < snap.at), -Infinity);
    const next = Math.min(...this.recorded.filter((t) => t > snap.at), Infinity);
    const covering = (t: number) =>
      new Map<string, IntervalRef>(
        this.intervals
          .filter((i) => i.validFrom <= t && (i.validTo === null || i.validTo > t))
          .map((i) => [
            i.key,
            { id: i.id, key: i.key, stateHash: i.hash, validTo: i.validTo === null ? null : new Date(i.validTo) },
          ]),
      );
    const plan = planIntervals({
      at: new Date(snap.at),
      next: Number.isFinite(next) ? new Date(next) : null,
      observed: new Map([...snap.states].map(([key, value]) => [key, state(key, value)])),
      atPrevious: Number.isFinite(previous) ? covering(previous) : new Map(),
      atNext: Number.isFinite(next) ? covering(next) : new Map(),
    });
    const byId = new Map(this.intervals.map((i) => [i.id, i]));
    const copies = plan.inserts
      .filter((insert) => insert.copyOf !== null)
      .map((insert) => ({ ...byId.get(insert.copyOf!)!, id: this.nextId++, validFrom: insert.validFrom.getTime() }));
    for (const id of plan.endAtSnapshot) byId.get(id)!.validTo = snap.at;
    for (const id of plan.startAtSnapshot) byId.get(id)!.validFrom = snap.at;
    const fresh = plan.inserts
      .filter((insert) => insert.state !== null)
      .map((insert) => ({
        id: this.nextId++,
        key: insert.key,
        validFrom: insert.validFrom.getTime(),
        validTo: insert.validTo?.getTime() ?? null,
        hash: insert.state!.stateHash,
      }));
    this.intervals.push(...copies, ...fresh);
    this.recorded.push(snap.at);
  }

  normalized(): string[] {
    return this.intervals.map((i) => `${i.key}|${i.validFrom}|${i.validTo}|${i.hash}`).sort();
  }
}

/** The oracle: maximal runs of equal states over the captured-at-ordered snapshots. */
function expectedRuns(snaps: Snap[]): string[] {
  const ordered = [...snaps].sort((a, b) => a.at - b.at);
  const keys = new Set(ordered.flatMap((s) => [...s.states.keys()]));
  const runs: string[] = [];
  for (const key of keys) {
    let start: number | null = null;
    let value: number | undefined;
    for (const snap of ordered) {
      const now = snap.states.get(key);
      if (now === value) continue;
      if (value !== undefined) runs.push(`${key}|${start}|${snap.at}|${value}`);
      start = now === undefined ? null : snap.at;
      value = now;
    }
    if (value !== undefined) runs.push(`${key}|${start}|null|${value}`);
  }
  return runs.sort();
}

const snapshots = fc
  .uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 12 })
  .chain((times) =>
    fc.tuple(
      fc.constant(times),
      fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer({ min: 1, max: 3 })), {
        minLength: times.length,
        maxLength: times.length,
      }),
    ),
  )
  .map(([times, states]) => times.map((at, i) => ({ at, states: new Map(Object.entries(states[i])) })));

describe('planIntervals', () => {
  it('records snapshots taken in order as maximal runs of equal states', () => {
    fc.assert(
      fc.property(snapshots, (snaps) => {
        const history = new MemoryHistory();
        for (const snap of [...snaps].sort((a, b) => a.at - b.at)) history.record(snap);
        expect(history.normalized()).toEqual(expectedRuns(snaps));
      }),
      { numRuns: 500 },
    );
  });

  it('ends with the same history whatever order the snapshots arrive in', () => {
    fc.assert(
      fc.property(
        snapshots.chain((snaps) => fc.shuffledSubarray(snaps, { minLength: snaps.length, maxLength: snaps.length })),
        (arrival) => {
          const history = new MemoryHistory();
          for (const snap of arrival) history.record(snap);
          expect(history.normalized()).toEqual(expectedRuns(arrival));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('adds nothing for a snapshot in which nothing changed', () => {
    const history = new MemoryHistory();
    const states = new Map([
      ['a', 1],
      ['b', 2],
    ]);
    history.record({ at: 0, states });
    const before = history.normalized();
    history.record({ at: 60, states });
    expect(history.normalized()).toEqual(before);
    expect(history.intervals).toHaveLength(2);
  });

  it('splits an interval when an older snapshot with a different state arrives late', () => {
    const history = new MemoryHistory();
    history.record({ at: 0, states: new Map([['a', 1]]) });
    history.record({ at: 20, states: new Map([['a', 1]]) });
    history.record({ at: 10, states: new Map([['a', 2]]) });
    expect(history.normalized()).toEqual(['a|0|10|1', 'a|10|20|2', 'a|20|null|1']);
  });
});
