import { describe, expect, it } from 'vitest';
import {
  MINIMUM_SHARE_FACTOR,
  OVERLOAD_THRESHOLD,
  type AllocationResult,
  computeAllocations,
  isAllocationOverloaded,
} from '../src/allocations.js';
import { computeNodeInfo } from '../src/node-info.js';
import { nodes } from './fixtures.js';

function ratiosFor(cpuByZone: Record<string, (string | number)[]>): ReadonlyMap<string, number> {
  const { ratios } = computeNodeInfo(nodes(cpuByZone));
  if (ratios === null) throw new Error('expected sufficient node info');
  return ratios;
}

function zonesOf(result: AllocationResult): Record<string, { minimum: number; maximum: number; desired: number }> {
  if (!result.ok) throw new Error(`expected success, got ${result.failure.message}`);
  return Object.fromEntries(result.zones);
}

function failureOf(result: AllocationResult): { kind: string; message: string } {
  if (result.ok) throw new Error('expected a failure');
  return result.failure;
}

const OVERLOAD = 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold';

describe('constants', () => {
  it('the minimum-share factor is 1/(1+0.2) = 0.8333333333333334', () => {
    expect(OVERLOAD_THRESHOLD).toBe(0.2);
    expect(MINIMUM_SHARE_FACTOR).toBe(0.8333333333333334);
  });
});

describe('computeAllocations: rule order', () => {
  it('ratios none -> InsufficientNodeInfo', () => {
    expect(failureOf(computeAllocations(null, 10))).toEqual({
      kind: 'InsufficientNodeInfo',
      message: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
    });
  });

  it('a ratio map with fewer than 2 zones -> NodesReadyInOneZoneOnly (the start-up state)', () => {
    expect(failureOf(computeAllocations(new Map(), 3))).toEqual({
      kind: 'NodesReadyInOneZoneOnly',
      message: 'Nodes only ready in one zone',
    });
    expect(failureOf(computeAllocations(new Map([['a', 1]]), 3)).kind).toBe('NodesReadyInOneZoneOnly');
  });

  it('zone checks come before endpoint counts', () => {
    expect(failureOf(computeAllocations(null, 0)).kind).toBe('InsufficientNodeInfo');
    expect(failureOf(computeAllocations(new Map([['a', 1]]), 0)).kind).toBe('NodesReadyInOneZoneOnly');
  });

  it('zero endpoints with two zones -> InsufficientNumberOfEndpoints', () => {
    expect(failureOf(computeAllocations(ratiosFor({ a: [1], b: [1] }), 0))).toEqual({
      kind: 'InsufficientNumberOfEndpoints',
      message: 'Insufficient number of endpoints (0 endpoints, 2 zones)',
    });
  });

  it('lists zones in ascending name order, whatever the ratio map order', () => {
    const result = computeAllocations(
      new Map([
        ['c', 0.25],
        ['a', 0.5],
        ['b', 0.25],
      ]),
      8,
    );
    expect([...(result.ok ? result.zones.keys() : [])]).toEqual(['a', 'b', 'c']);
  });
});

describe('computeAllocations (topologycache.go getAllocations): worked examples', () => {
  it('a) 3 equal zones, 4 endpoints: fails the overload threshold', () => {
    expect(failureOf(computeAllocations(ratiosFor({ a: [1], b: [1], c: [1] }), 4))).toEqual({
      kind: 'MinAllocationExceedsOverloadThreshold',
      message: `${OVERLOAD} (4 endpoints, 3 zones)`,
    });
  });

  it('b) 3 equal zones, 6 endpoints: 2/2/2.0 each', () => {
    const zone = { minimum: 2, maximum: 2, desired: 2 };
    expect(zonesOf(computeAllocations(ratiosFor({ a: [1], b: [1], c: [1] }), 6))).toEqual({
      a: zone,
      b: zone,
      c: zone,
    });
  });

  it('c) 12 vCPU and 4 vCPU, 4 endpoints: 3 and 1', () => {
    expect(zonesOf(computeAllocations(ratiosFor({ big: [12], small: [4] }), 4))).toEqual({
      big: { minimum: 3, maximum: 3, desired: 3 },
      small: { minimum: 1, maximum: 1, desired: 1 },
    });
  });

  it('d) CPU 2:1 with 2 endpoints fails; with 3 it works', () => {
    const ratios = ratiosFor({ a: [2], b: [1] });
    expect(failureOf(computeAllocations(ratios, 2)).message).toBe(`${OVERLOAD} (2 endpoints, 2 zones)`);
    expect(zonesOf(computeAllocations(ratios, 3))).toEqual({
      a: { minimum: 2, maximum: 2, desired: 2 },
      b: { minimum: 1, maximum: 1, desired: 1 },
    });
  });

  const tenths = ratiosFor({ a: ['1000m', '1000m', '1000m', '2000m'], b: ['3000m', '1500m'], c: ['500m'] });

  it('e) 0.5/0.45/0.05 with 10 endpoints: desired 4.5 exceeds maximum 4', () => {
    expect(zonesOf(computeAllocations(tenths, 10))).toEqual({
      a: { minimum: 5, maximum: 5, desired: 5 },
      b: { minimum: 4, maximum: 4, desired: 4.5 },
      c: { minimum: 1, maximum: 1, desired: 1 },
    });
  });

  it('f) same ratios with 20 endpoints: slack 2', () => {
    expect(zonesOf(computeAllocations(tenths, 20))).toEqual({
      a: { minimum: 9, maximum: 11, desired: 10 },
      b: { minimum: 8, maximum: 10, desired: 9 },
      c: { minimum: 1, maximum: 3, desired: 1 },
    });
  });

  it('g) 0.35/0.35/0.30 with 10 endpoints (upstream test)', () => {
    const ratios = ratiosFor({ a: ['3500m'], b: ['3500m'], c: ['3000m'] });
    expect(Object.fromEntries(ratios)).toEqual({ a: 0.35, b: 0.35, c: 0.3 });
    expect(zonesOf(computeAllocations(ratios, 10))).toEqual({
      a: { minimum: 3, maximum: 4, desired: 3.5 },
      b: { minimum: 3, maximum: 4, desired: 3.5 },
      c: { minimum: 3, maximum: 4, desired: 3 },
    });
  });

  it('h) 3 zones, 2 endpoints: too few endpoints', () => {
    expect(failureOf(computeAllocations(ratiosFor({ a: [1], b: [1], c: [1] }), 2))).toEqual({
      kind: 'InsufficientNumberOfEndpoints',
      message: 'Insufficient number of endpoints (2 endpoints, 3 zones)',
    });
  });

  it('i) CPU 4:1: float rounding makes 6 and 3 endpoints fail, 5 works', () => {
    const ratios = ratiosFor({ a: ['4000m'], b: ['1000m'] });
    expect(0.8 * 6 * MINIMUM_SHARE_FACTOR).toBe(4.000000000000001);
    expect(0.2 * 6 * MINIMUM_SHARE_FACTOR).toBe(1.0000000000000002);
    expect(failureOf(computeAllocations(ratios, 6)).message).toBe(`${OVERLOAD} (6 endpoints, 2 zones)`);
    expect(failureOf(computeAllocations(ratios, 3)).message).toBe(`${OVERLOAD} (3 endpoints, 2 zones)`);
    expect(zonesOf(computeAllocations(ratios, 5))).toEqual({
      a: { minimum: 4, maximum: 4, desired: 4 },
      b: { minimum: 1, maximum: 1, desired: 1 },
    });
  });
});

describe('computeAllocations (topologycache.go getAllocations): which endpoint counts work, n = 1..20', () => {
  type Outcome = 'ok' | 'too few' | 'fail';
  /** Expands table rows (from, to, outcome) into an outcome per n = 1..20. */
  function expand(rows: [number, number, Outcome][]): Outcome[] {
    const outcomes: Outcome[] = [];
    for (const [from, to, outcome] of rows) for (let n = from; n <= to; n++) outcomes[n - 1] = outcome;
    return outcomes;
  }

  const shapes: [string, Record<string, (string | number)[]>, Outcome[]][] = [
    [
      '2 equal zones',
      { a: [1], b: [1] },
      expand([
        [1, 1, 'too few'],
        [2, 2, 'ok'],
        [3, 3, 'fail'],
        [4, 4, 'ok'],
        [5, 5, 'fail'],
        [6, 20, 'ok'],
      ]),
    ],
    [
      '3 equal zones',
      { a: [1], b: [1], c: [1] },
      expand([
        [1, 2, 'too few'],
        [3, 3, 'ok'],
        [4, 5, 'fail'],
        [6, 7, 'ok'],
        [8, 8, 'fail'],
        [9, 10, 'ok'],
        [11, 11, 'fail'],
        [12, 20, 'ok'],
      ]),
    ],
    [
      '2 zones 2:1',
      { a: [2], b: [1] },
      expand([
        [1, 1, 'too few'],
        [2, 2, 'fail'],
        [3, 3, 'ok'],
        [4, 4, 'fail'],
        [5, 20, 'ok'],
      ]),
    ],
    [
      '2 zones 3:1',
      { a: [3], b: [1] },
      expand([
        [1, 1, 'too few'],
        [2, 2, 'fail'],
        [3, 4, 'ok'],
        [5, 5, 'fail'],
        [6, 20, 'ok'],
      ]),
    ],
    [
      '2 zones 4:1',
      { a: [4], b: [1] },
      expand([
        [1, 1, 'too few'],
        [2, 3, 'fail'],
        [4, 5, 'ok'],
        [6, 6, 'fail'],
        [7, 20, 'ok'],
      ]),
    ],
  ];

  it.each(shapes)('%s', (_shape, cpu, expected) => {
    const ratios = ratiosFor(cpu);
    const actual = expected.map((_, index) => {
      const result = computeAllocations(ratios, index + 1);
      if (result.ok) return 'ok';
      return result.failure.kind === 'InsufficientNumberOfEndpoints' ? 'too few' : 'fail';
    });
    expect(actual).toEqual(expected);
  });

  it('every success keeps each minimum within its maximum and the minimums within n', () => {
    for (const [, cpu] of shapes) {
      const ratios = ratiosFor(cpu);
      for (let n = 1; n <= 20; n++) {
        const result = computeAllocations(ratios, n);
        if (!result.ok) continue;
        const zones = [...result.zones.values()];
        expect(zones.reduce((sum, z) => sum + z.minimum, 0)).toBeLessThanOrEqual(n);
        for (const zone of zones) expect(zone.minimum).toBeLessThanOrEqual(zone.maximum);
      }
    }
  });
});

describe('isAllocationOverloaded (utils.go serviceOverloaded)', () => {
  const ratios = new Map([
    ['a', 0.5],
    ['b', 0.5],
  ]);

  it('nothing stored: not overloaded', () => {
    expect(isAllocationOverloaded({}, null)).toBe(false);
  });

  it('stored hints but no ratios: overloaded', () => {
    expect(isAllocationOverloaded({ a: 2, b: 2 }, null)).toBe(true);
    expect(isAllocationOverloaded({ a: 2, b: 2 }, new Map())).toBe(true);
  });

  it('a ratio zone missing from the stored hints: overloaded', () => {
    expect(isAllocationOverloaded({ a: 4 }, ratios)).toBe(true);
  });

  it('compares each zone with ceil(total * ratio * 0.8333333333333334)', () => {
    expect(isAllocationOverloaded({ a: 2, b: 2 }, ratios)).toBe(false);
    // total 4: each zone needs ceil(1.6666666666666667) = 2
    expect(isAllocationOverloaded({ a: 3, b: 1 }, ratios)).toBe(true);
  });

  it('counts zones without CPU in the total', () => {
    // total 6: each ratio zone needs ceil(2.5) = 3
    expect(isAllocationOverloaded({ a: 2, b: 2, gpu: 2 }, ratios)).toBe(true);
    expect(isAllocationOverloaded({ a: 3, b: 3, gpu: 0 }, ratios)).toBe(false);
  });

  it('the EKS zone loss: one endpoint in each of 4 zones, then zone 1d disappears', () => {
    const three = new Map([
      ['1a', 1 / 3],
      ['1b', 1 / 3],
      ['1c', 1 / 3],
    ]);
    expect(isAllocationOverloaded({ '1a': 1, '1b': 1, '1c': 1, '1d': 1 }, three)).toBe(true);
  });
});
