import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeAllocations } from '../src/allocations.js';
import {
  HINTS_DISABLED_MESSAGE,
  NO_ZONES_ALLOCATED_MESSAGE,
  hintsDisabledEvent,
  hintsEnabledEvent,
  withAddressType,
} from '../src/events.js';
import {
  type AddHintsResult,
  EMPTY_SERVICE_HINT_CACHE,
  type ServiceHintCache,
  type SliceSets,
  addHints,
  computeGivingAndReceiving,
  forgetAddressType,
  removeAllHints,
  validHintCounts,
  withEndpointHints,
  withoutEndpointHints,
} from '../src/hints.js';
import type { AddressType, EndpointSlice } from '../src/k8s-objects.js';
import { computeNodeInfo } from '../src/node-info.js';
import { deepFreeze, nodes, slice, zoneHintsOf } from './fixtures.js';

const IPV4: AddressType = 'IPv4';

function ratios(entries: Record<string, number>): Map<string, number> {
  return new Map(Object.entries(entries));
}

function run(
  zoneRatios: ReadonlyMap<string, number> | null,
  slices: Partial<SliceSets>,
  options: { addressType?: AddressType; cache?: ServiceHintCache } = {},
): AddHintsResult {
  const input: SliceSets = deepFreeze({
    toCreate: slices.toCreate ?? [],
    toUpdate: slices.toUpdate ?? [],
    unchanged: slices.unchanged ?? [],
  });
  return addHints({
    addressType: options.addressType ?? IPV4,
    ratios: zoneRatios,
    slices: input,
    cache: options.cache ?? EMPTY_SERVICE_HINT_CACHE,
  });
}

const names = (list: readonly EndpointSlice[]): string[] => list.map((s) => s.metadata.name);

describe('giving and receiving zones (utils.go getGivingAndReceivingZones, its upstream test table)', () => {
  function plan(desired: Record<string, number>, allocated: Record<string, number>) {
    const allocations = new Map(Object.entries(desired).map(([zone, d]) => [zone, { desired: d }]));
    const { giving, receiving } = computeGivingAndReceiving(allocations, new Map(Object.entries(allocated)));
    return { giving: Object.fromEntries(giving), receiving: Object.fromEntries(receiving) };
  }

  it.each([
    [{ a: 1.2, b: 1.1, c: 1.0 }, { a: 1, b: 1, c: 1 }, {}, {}],
    [{ a: 5.1, b: 5.1, c: 5.8 }, { a: 16 }, { a: 10 }, { b: 5, c: 5 }],
    [{ a: 5.0, b: 5.6, c: 5.4 }, { a: 16 }, { a: 11 }, { b: 6, c: 5 }],
    [{ a: 5.0, b: 5.6, c: 5.4 }, { b: 8, c: 8 }, { b: 2, c: 3 }, { a: 5 }],
    [{ a: 5, b: 5, c: 5 }, { a: 6, b: 6, c: 6 }, {}, {}],
    [{ a: 5, b: 5, c: 5 }, { a: -40, b: 20, c: 20 }, { b: 15, c: 15 }, { a: 30 }],
  ])('desired %j, allocated %j -> giving %j, receiving %j', (desired, allocated, giving, receiving) => {
    expect(plan(desired, allocated)).toEqual({ giving, receiving });
  });

  it('breaks ties towards the smallest zone name (policy 0.3)', () => {
    expect(plan({ a: 2, b: 2, c: 2 }, { a: 4, b: 1, c: 1 })).toEqual({ giving: { a: 2 }, receiving: { b: 1, c: 1 } });
    expect(plan({ a: 1, b: 1, c: 1 }, { b: 2, c: 2, a: -1 })).toEqual({ giving: { b: 1, c: 1 }, receiving: { a: 2 } });
    expect(plan({ z: 1, y: 1, x: 3 }, { z: 2, y: 2, x: 1 })).toEqual({ giving: { y: 1, z: 1 }, receiving: { x: 2 } });
  });

  it('ignores zones that are not in the allocations', () => {
    expect(plan({ a: 2, b: 2 }, { a: 2, b: 1, gpu: 9 })).toEqual({ giving: {}, receiving: {} });
  });
});

describe('validation of unchanged slices (utils.go getHintsByZone, sliceinfo.go getAllocatedHintsByZone)', () => {
  const allocations = (() => {
    const result = computeAllocations(ratios({ a: 0.5, b: 0.5 }), 4);
    if (!result.ok) throw new Error('unexpected');
    return result.zones; // min 2, max 2 per zone
  })();
  const counts = (s: EndpointSlice, allocated: Record<string, number> = {}) => {
    const result = validHintCounts(s, allocations, new Map(Object.entries(allocated)));
    return result === null ? null : Object.fromEntries(result);
  };

  it('counts each forZones entry of each ready endpoint', () => {
    expect(
      counts(
        slice('s', [
          { zone: 'a', hints: ['a'] },
          { zone: 'a', hints: ['b'] },
        ]),
      ),
    ).toEqual({ a: 1, b: 1 });
    expect(counts(slice('s', [{ zone: 'a', hints: ['a', 'b'] }]))).toEqual({ a: 1, b: 1 });
  });

  it('a ready endpoint without hints, or with empty forZones, invalidates the slice', () => {
    expect(counts(slice('s', [{ zone: 'a', hints: ['a'] }, 'b']))).toBeNull();
    expect(counts(slice('s', [{ zone: 'a', hints: [] }]))).toBeNull();
    expect(counts(slice('s', [{ zone: 'a', hints: [], nodeHints: ['n1'] }]))).toBeNull();
  });

  it('a hint for a zone without allocation invalidates the slice', () => {
    expect(counts(slice('s', [{ zone: 'a', hints: ['c'] }]))).toBeNull();
  });

  it('the running total plus the slice must stay within each maximum', () => {
    const s = slice('s', [{ zone: 'a', hints: ['a'] }]);
    expect(counts(s, { a: 1 })).toEqual({ a: 1 });
    expect(counts(s, { a: 2 })).toBeNull();
  });

  it('non-ready endpoints are ignored whatever their hints; forNodes is ignored', () => {
    const s = slice('s', [
      { zone: 'a', hints: ['a'], nodeHints: ['n1'] },
      { zone: 'a', ready: false, hints: ['nowhere'] },
      { zone: 'a', ready: null },
    ]);
    expect(counts(s)).toEqual({ a: 1 });
  });

  it('a slice without ready endpoints is valid and contributes nothing', () => {
    expect(counts(slice('s', [{ zone: 'a', ready: false }]))).toEqual({});
    expect(counts(slice('s', []))).toEqual({});
  });
});

describe('addHints (topologycache.go AddHints): worked examples', () => {
  it('example 1: slices to create and update within the 3-zone threshold', () => {
    const result = run(ratios({ a: 0.35, b: 0.35, c: 0.3 }), {
      toCreate: [slice('S1', ['a', 'b']), slice('S2', ['c', 'c', 'a'])],
      toUpdate: [slice('S3', ['a', 'a']), slice('S4', ['b', 'c', 'a'])],
    });
    expect(zoneHintsOf(result.toCreate)).toEqual([
      ['b', 'b'],
      ['c', 'c', 'a'],
    ]);
    expect(zoneHintsOf(result.toUpdate)).toEqual([
      ['a', 'a'],
      ['b', 'c', 'a'],
    ]);
    expect(result.hintedByZone).toEqual({ a: 4, b: 3, c: 3 });
    expect(result.events).toEqual([
      {
        type: 'Normal',
        reason: 'TopologyAwareHintsEnabled',
        message: 'Topology Aware Hints has been enabled, addressType: IPv4',
      },
    ]);
    expect(result.cache).toEqual({ populated: true, hintedByAddressType: { IPv4: { a: 4, b: 3, c: 3 } } });
    expect(result.failure).toBeNull();
  });

  it('example 2: 12 vCPU zone and 4 vCPU zone', () => {
    const zoneRatios = computeNodeInfo(nodes({ big: [12], small: [4] })).ratios;
    const first = run(zoneRatios, { toCreate: [slice('new', ['big', 'big', 'big', 'big'])] });
    expect(zoneHintsOf(first.toCreate)).toEqual([['small', 'big', 'big', 'big']]);
    expect(first.hintedByZone).toEqual({ big: 3, small: 1 });

    const second = run(zoneRatios, { toCreate: [slice('new', ['big', 'small', 'big', 'small'])] });
    expect(zoneHintsOf(second.toCreate)).toEqual([['big', 'big', 'big', 'small']]);
    expect(second.hintedByZone).toEqual({ big: 3, small: 1 });
  });

  it('example 3: 3 equal zones, 6 endpoints, deterministic receiving order', () => {
    const zoneRatios = computeNodeInfo(nodes({ a: [1], b: [1], c: [1] })).ratios;
    const result = run(zoneRatios, { toCreate: [slice('s1', ['a', 'a', 'b']), slice('s2', ['a', 'c', 'a'])] });
    expect(zoneHintsOf(result.toCreate)).toEqual([
      ['b', 'c', 'b'],
      ['a', 'c', 'a'],
    ]);
    expect(result.hintedByZone).toEqual({ a: 2, b: 2, c: 2 });
  });

  it('example 4: 0.5/0.45/0.05, ten a then ten b: the first b endpoint (position 11) goes to c', () => {
    const zoneRatios = computeNodeInfo(nodes({ a: [5], b: ['4500m'], c: ['500m'] })).ratios;
    const endpoints = [...Array<string>(10).fill('a'), ...Array<string>(10).fill('b')];
    const result = run(zoneRatios, { toCreate: [slice('s', endpoints)] });
    const expected = [...endpoints];
    expected[10] = 'c';
    expect(zoneHintsOf(result.toCreate)).toEqual([expected]);
    expect(result.hintedByZone).toEqual({ a: 10, b: 9, c: 1 });
  });

  it('example 5: CPU 2:1 with 2 endpoints: every hint removed, overload event', () => {
    const zoneRatios = computeNodeInfo(nodes({ a: [2], b: [1] })).ratios;
    const result = run(
      zoneRatios,
      {
        toUpdate: [slice('s1', [{ zone: 'a', hints: ['a'] }])],
        unchanged: [slice('s2', [{ zone: 'b', hints: ['b'] }])],
      },
      { cache: { populated: true, hintedByAddressType: { IPv4: { a: 1, b: 1 } } } },
    );
    expect(names(result.toUpdate)).toEqual(['s1', 's2']);
    expect(zoneHintsOf(result.toUpdate)).toEqual([[null], [null]]);
    expect(result.unchanged).toEqual([]);
    expect(result.events).toEqual([
      {
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message:
          'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (2 endpoints, 2 zones), addressType: IPv4',
      },
    ]);
    expect(result.cache).toEqual(EMPTY_SERVICE_HINT_CACHE);
    expect(result.failure?.kind).toBe('MinAllocationExceedsOverloadThreshold');
  });

  it('example 6: a valid unchanged slice keeps its hints, only the new slice is balanced', () => {
    const zoneRatios = ratios({ a: 0.5, b: 0.5 });
    const u = slice('U', [
      { zone: 'a', hints: ['a'] },
      { zone: 'a', hints: ['b'] },
    ]);
    const result = run(zoneRatios, { toCreate: [slice('N', ['b', 'b'])], unchanged: [u] });
    expect(result.unchanged).toHaveLength(1);
    expect(result.unchanged[0]).toBe(u);
    expect(result.toUpdate).toEqual([]);
    expect(zoneHintsOf(result.toCreate)).toEqual([['a', 'b']]);
    expect(result.hintedByZone).toEqual({ a: 2, b: 2 });

    const tooFew = run(zoneRatios, { toCreate: [slice('N', ['b'])], unchanged: [u] });
    expect(tooFew.failure?.message).toBe(
      'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (3 endpoints, 2 zones)',
    );
    expect(zoneHintsOf(tooFew.toCreate)).toEqual([[null]]);
    expect(names(tooFew.toUpdate)).toEqual(['U']);
    expect(zoneHintsOf(tooFew.toUpdate)).toEqual([[null, null]]);
  });
});

describe('addHints: procedure details', () => {
  const even = ratios({ a: 0.5, b: 0.5 });

  it('moves invalid unchanged slices to the end of toUpdate, after the original to-update slices', () => {
    const result = run(even, {
      toUpdate: [slice('upd', ['a'])],
      unchanged: [slice('u1', ['b']), slice('u2', [{ zone: 'a', hints: ['a'] }]), slice('u3', ['b'])],
    });
    expect(names(result.toUpdate)).toEqual(['upd', 'u1', 'u3']);
    expect(result.toUpdateSources.map((s) => s.metadata.name)).toEqual(['upd', 'u1', 'u3']);
    expect(names(result.unchanged)).toEqual(['u2']);
    expect(zoneHintsOf(result.toUpdate)).toEqual([['a'], ['b'], ['b']]);
  });

  it('keeps suboptimal but valid hints (sliceinfo.go getAllocatedHintsByZone)', () => {
    // All four endpoints live in a, yet the unchanged hints 2 a / 2 b are within the maxima.
    const u = slice('u', [
      { zone: 'a', hints: ['b'] },
      { zone: 'a', hints: ['a'] },
      { zone: 'a', hints: ['b'] },
      { zone: 'a', hints: ['a'] },
    ]);
    const result = run(even, { unchanged: [u] });
    expect(result.unchanged[0]).toBe(u);
    expect(result.toUpdate).toEqual([]);
    expect(result.hintedByZone).toEqual({ a: 2, b: 2 });
  });

  it('judges each unchanged slice against the slices validated before it', () => {
    // max 2 per zone: u1 takes a=2, so u2's a hint no longer fits.
    const u1 = slice('u1', [
      { zone: 'a', hints: ['a'] },
      { zone: 'a', hints: ['a'] },
    ]);
    const u2 = slice('u2', [
      { zone: 'a', hints: ['a'] },
      { zone: 'b', hints: ['b'] },
    ]);
    const result = run(even, { unchanged: [u1, u2] });
    expect(names(result.unchanged)).toEqual(['u1']);
    expect(zoneHintsOf(result.toUpdate)).toEqual([['b', 'b']]);
    expect(result.hintedByZone).toEqual({ a: 2, b: 2 });
  });

  it('leaves non-ready endpoints and their hints untouched (topologycache.go AddHints clears a copy only)', () => {
    const result = run(even, {
      toCreate: [
        slice('s', [
          'a',
          { zone: 'b', ready: false, hints: ['stale'] },
          { zone: 'b', ready: null },
          'b',
          { ready: false },
        ]),
      ],
    });
    expect(zoneHintsOf(result.toCreate)).toEqual([['a', 'stale', null, 'b', null]]);
    expect(result.hintedByZone).toEqual({ a: 1, b: 1 });
  });

  it('counts ready endpoints over all three lists', () => {
    // 1 + 1 + 2 = 4 ready endpoints over 2 zones: works. Counting only toCreate (1) would fail.
    const result = run(even, {
      toCreate: [slice('c', ['a'])],
      toUpdate: [slice('u', ['b'])],
      unchanged: [
        slice('x', [
          { zone: 'a', hints: ['a'] },
          { zone: 'b', hints: ['b'] },
        ]),
      ],
    });
    expect(result.failure).toBeNull();
    expect(result.allocations?.get('a')).toEqual({ minimum: 2, maximum: 2, desired: 2 });
  });

  it('an endpoint in a zone without CPU keeps a same-zone hint and is stored (topologycache.go AddHints)', () => {
    // 6 ready endpoints: minimum = maximum = desired = 3 per CPU zone. a is one short, but no CPU zone
    // has a surplus to give: the gpu endpoint is never a candidate.
    const result = run(even, { toCreate: [slice('s', ['a', 'b', 'gpu', 'a', 'b', 'b'])] });
    expect(zoneHintsOf(result.toCreate)).toEqual([['a', 'b', 'gpu', 'a', 'b', 'b']]);
    expect(result.hintedByZone).toEqual({ a: 2, b: 3, gpu: 1 });
    // Next sync: the slice carries a hint for a zone without allocation, so it is rewritten again.
    const next = run(even, { unchanged: result.toCreate });
    expect(names(next.toUpdate)).toEqual(['s']);
    expect(zoneHintsOf(next.toUpdate)).toEqual([['a', 'b', 'gpu', 'a', 'b', 'b']]);
  });

  it('a ready zone-less endpoint in a slice to write disables hints; removal keeps upstream write order', () => {
    const valid = slice('valid', [
      { zone: 'a', hints: ['a'] },
      { zone: 'b', hints: ['b'] },
    ]);
    const bare = slice('bare', ['a', { ready: true }]);
    const other = slice('other', [{ zone: 'b', ready: false }]);
    const result = run(even, { unchanged: [valid, bare, other] });
    expect(result.events).toEqual([
      {
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: 'One or more endpoints do not have a zone specified, addressType: IPv4',
      },
    ]);
    expect(result.failure).toEqual({
      kind: 'EndpointsWithoutZone',
      message: 'One or more endpoints do not have a zone specified',
    });
    // The invalid slice moved by validation first, then the still-hinted unchanged one; `other` has no hints.
    expect(names(result.toUpdate)).toEqual(['bare', 'valid']);
    expect(zoneHintsOf(result.toUpdate)).toEqual([
      [null, null],
      [null, null],
    ]);
    expect(names(result.unchanged)).toEqual(['other']);
  });

  it('an empty zone string counts as zone-less (topologycache.go AddHints: Zone nil or "")', () => {
    const result = run(even, { toCreate: [slice('s', ['a', 'b', '', 'a'])] });
    expect(result.failure?.kind).toBe('EndpointsWithoutZone');
  });

  it('zone-less endpoints inside valid unchanged slices are not checked', () => {
    const u = slice('u', [{ hints: ['a'] }, { zone: 'b', hints: ['b'] }]);
    const result = run(even, { toCreate: [slice('n', ['a', 'b'])], unchanged: [u] });
    expect(result.failure).toBeNull();
    expect(result.unchanged[0]).toBe(u);
  });

  it('replaces node hints and multi-zone hints with exactly one zone hint', () => {
    const s = slice('s', [
      { zone: 'a', hints: ['a', 'b'], nodeHints: ['n1'] },
      { zone: 'b', nodeHints: ['n2'] },
    ]);
    const result = run(even, { toUpdate: [s] });
    expect(result.toUpdate[0]?.endpoints.map((e) => e.hints)).toEqual([
      { forZones: [{ name: 'a' }] },
      { forZones: [{ name: 'b' }] },
    ]);
  });

  it('writes new slice objects and never mutates the input', () => {
    const s = slice('s', ['a', 'b']);
    const result = run(even, { toCreate: [s] });
    expect(result.toCreate[0]).not.toBe(s);
    expect(s.endpoints[0]?.hints).toBeUndefined();
  });
});

describe('addHints: the per-Service cache (topologycache.go SetHints, RemoveHints, HasPopulatedHints)', () => {
  const even = ratios({ a: 0.5, b: 0.5 });

  it('no Enabled event when the Service is already populated', () => {
    const cache: ServiceHintCache = { populated: true, hintedByAddressType: {} };
    const result = run(even, { toCreate: [slice('s', ['a', 'b'])] }, { cache });
    expect(result.events).toEqual([]);
    expect(result.cache.populated).toBe(true);
  });

  it('stores the allocated counts per address type, keeping the other type', () => {
    const cache: ServiceHintCache = { populated: true, hintedByAddressType: { IPv4: { a: 1, b: 1 } } };
    const result = run(
      even,
      { toCreate: [slice('s', ['a', 'b'], { addressType: 'IPv6' })] },
      { addressType: 'IPv6', cache },
    );
    expect(result.cache.hintedByAddressType).toEqual({ IPv4: { a: 1, b: 1 }, IPv6: { a: 1, b: 1 } });
  });

  it('a failure forgets only its own address type, and the populated mark', () => {
    const cache: ServiceHintCache = {
      populated: true,
      hintedByAddressType: { IPv4: { a: 1, b: 1 }, IPv6: { a: 1, b: 1 } },
    };
    const result = run(even, { toCreate: [slice('s', ['a'])] }, { cache });
    expect(result.cache).toEqual({ populated: false, hintedByAddressType: { IPv6: { a: 1, b: 1 } } });
    expect(forgetAddressType(cache, 'IPv6')).toEqual({
      populated: false,
      hintedByAddressType: { IPv4: { a: 1, b: 1 } },
    });
  });

  it('dual-stack: the Enabled event comes once, for whichever type succeeds first', () => {
    const v4 = run(even, { toCreate: [slice('v4', ['a', 'b'])] });
    const v6 = run(
      even,
      { toCreate: [slice('v6', ['a', 'b'], { addressType: 'IPv6' })] },
      { addressType: 'IPv6', cache: v4.cache },
    );
    expect(v4.events.map((e) => e.message)).toEqual(['Topology Aware Hints has been enabled, addressType: IPv4']);
    expect(v6.events).toEqual([]);
  });

  it('dual-stack: a failure of one type removes the mark, so the other type announces Enabled again', () => {
    const populated: ServiceHintCache = {
      populated: true,
      hintedByAddressType: { IPv4: { a: 1, b: 1 }, IPv6: { a: 1, b: 1 } },
    };
    const v4 = run(even, { toCreate: [slice('v4', ['a'])] }, { cache: populated });
    const v6 = run(
      even,
      { toCreate: [slice('v6', ['a', 'b'], { addressType: 'IPv6' })] },
      { addressType: 'IPv6', cache: v4.cache },
    );
    expect([...v4.events, ...v6.events].map((e) => e.message)).toEqual([
      'Insufficient number of endpoints (1 endpoints, 2 zones), addressType: IPv4',
      'Topology Aware Hints has been enabled, addressType: IPv6',
    ]);
    expect(v6.cache).toEqual({ populated: true, hintedByAddressType: { IPv6: { a: 1, b: 1 } } });
  });
});

describe('events, word for word, for both address types (topologycache/event.go, utils.go FormatWithAddressType)', () => {
  const cases: [string, ReadonlyMap<string, number> | null, Partial<SliceSets>, (t: string) => string][] = [
    [
      'ratios none',
      null,
      { toCreate: [slice('s', ['a', 'b'])] },
      (t) =>
        `Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: ${t}`,
    ],
    [
      'ratio map with one zone',
      ratios({ a: 1 }),
      { toCreate: [slice('s', ['a', 'a'])] },
      (t) => `Nodes only ready in one zone, addressType: ${t}`,
    ],
    [
      'more zones than endpoints',
      ratios({ a: 0.5, b: 0.5 }),
      { toCreate: [slice('s', ['a'])] },
      (t) => `Insufficient number of endpoints (1 endpoints, 2 zones), addressType: ${t}`,
    ],
    [
      'minimums exceed n',
      computeNodeInfo(nodes({ a: [1], b: [1], c: [1] })).ratios,
      { toCreate: [slice('s', ['a', 'a', 'b', 'c'])] },
      (t) =>
        `Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones), addressType: ${t}`,
    ],
    [
      'ready endpoint without zone',
      ratios({ a: 0.5, b: 0.5 }),
      { toCreate: [slice('s', ['a', 'b', {}, 'a'])] },
      (t) => `One or more endpoints do not have a zone specified, addressType: ${t}`,
    ],
  ];

  for (const addressType of ['IPv4', 'IPv6'] as const) {
    it.each(cases)(`${addressType}: %s -> Warning TopologyAwareHintsDisabled`, (_name, zoneRatios, slices, message) => {
      const result = run(zoneRatios, slices, { addressType });
      expect(result.events).toEqual([
        { type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: message(addressType) },
      ]);
      expect(result.failure?.message).toBe(message(addressType).replace(`, addressType: ${addressType}`, ''));
    });

    it(`${addressType}: success -> Normal TopologyAwareHintsEnabled`, () => {
      const result = run(ratios({ a: 0.5, b: 0.5 }), { toCreate: [slice('s', ['a', 'b'])] }, { addressType });
      expect(result.events).toEqual([
        {
          type: 'Normal',
          reason: 'TopologyAwareHintsEnabled',
          message: `Topology Aware Hints has been enabled, addressType: ${addressType}`,
        },
      ]);
      expect(hintsEnabledEvent(addressType)).toEqual(result.events[0]);
    });

    it(`${addressType}: the remaining messages`, () => {
      expect(hintsDisabledEvent(NO_ZONES_ALLOCATED_MESSAGE, addressType)).toEqual({
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: `No hints allocated for zones, addressType: ${addressType}`,
      });
      expect(hintsDisabledEvent(HINTS_DISABLED_MESSAGE, addressType)).toEqual({
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: `Topology Aware Hints has been disabled, addressType: ${addressType}`,
      });
      expect(withAddressType('x', addressType)).toBe(`x, addressType: ${addressType}`);
    });
  }
});

describe('removeAllHints (utils.go RemoveHintsFromSlices)', () => {
  it('clears every endpoint of to-create and to-update slices, ready or not', () => {
    const result = removeAllHints(
      deepFreeze({
        toCreate: [
          slice('c', [
            { zone: 'a', hints: ['a'] },
            { zone: 'a', ready: false, hints: ['b'], nodeHints: ['n'] },
          ]),
        ],
        toUpdate: [slice('u', ['a'])],
        unchanged: [],
      }),
    );
    expect(result.toCreate[0]?.endpoints.every((e) => !('hints' in e))).toBe(true);
    expect(names(result.toUpdate)).toEqual(['u']);
  });

  it('moves only unchanged slices that carry any hint, in unchanged order, after the to-update slices', () => {
    const hinted = slice('hinted', [{ zone: 'a', ready: false, hints: ['a'] }]);
    const plain = slice('plain', ['a']);
    const nodeOnly = slice('node-only', [{ zone: 'a', nodeHints: ['n1'] }]);
    const result = removeAllHints(
      deepFreeze({ toCreate: [], toUpdate: [slice('u', ['b'])], unchanged: [hinted, plain, nodeOnly] }),
    );
    expect(names(result.toUpdate)).toEqual(['u', 'hinted', 'node-only']);
    expect(result.toUpdateSources[1]).toBe(hinted);
    expect(result.unchanged).toEqual([plain]);
    expect(result.unchanged[0]).toBe(plain);
    expect(result.toUpdate.flatMap((s) => s.endpoints).some((e) => 'hints' in e)).toBe(false);
  });
});

describe('endpoint copies', () => {
  const base = {
    addresses: ['10.0.0.1'],
    conditions: { ready: true },
    zone: 'a',
    targetRef: { kind: 'Pod', name: 'p' },
  };

  it('withEndpointHints adds hints last, keeping every other field', () => {
    const source = deepFreeze({ ...base });
    const copy = withEndpointHints(source, { forZones: [{ name: 'b' }] });
    expect(Object.keys(copy)).toEqual(['addresses', 'conditions', 'zone', 'targetRef', 'hints']);
    expect(copy).toEqual({ ...base, hints: { forZones: [{ name: 'b' }] } });
  });

  it('withEndpointHints replaces existing hints in place', () => {
    const source = deepFreeze({ ...base, hints: { forZones: [{ name: 'a' }] }, nodeName: 'n1' });
    const copy = withEndpointHints(source, { forZones: [{ name: 'c' }] });
    expect(Object.keys(copy)).toEqual(['addresses', 'conditions', 'zone', 'targetRef', 'hints', 'nodeName']);
    expect(copy.hints).toEqual({ forZones: [{ name: 'c' }] });
  });

  it('withoutEndpointHints drops the key, and returns an unhinted endpoint as is', () => {
    const hintedEndpoint = deepFreeze({ ...base, hints: { forZones: [{ name: 'a' }] } });
    expect(withoutEndpointHints(hintedEndpoint)).toEqual(base);
    expect('hints' in withoutEndpointHints(hintedEndpoint)).toBe(false);
    const plain = deepFreeze({ ...base });
    expect(withoutEndpointHints(plain)).toBe(plain);
  });
});

describe('addHints: nothing to write', () => {
  const ZONES = ['a', 'b', 'c'];
  // What a settled controller leaves (zones in turn, own-zone hints, sizes the CPU heuristic can
  // allocate over three zones), sometimes with one endpoint changed.
  const changeArb = fc.option(
    fc.record({
      index: fc.nat(),
      ready: fc.constantFrom<boolean | null>(true, false, null),
      hints: fc.array(fc.constantFrom(...ZONES), { minLength: 1, maxLength: 2 }),
    }),
  );
  const sliceArb = fc.tuple(fc.constantFrom(3, 6, 7, 9, 12), changeArb).map(([size, change]) =>
    Array.from({ length: size }, (_, i) => {
      const zone = ZONES[i % ZONES.length];
      if (change !== null && change.index % size === i) return { zone, ready: change.ready, hints: change.hints };
      return { zone, hints: [zone] };
    }),
  );
  const slicesArb = fc
    .array(sliceArb, { minLength: 1, maxLength: 2 })
    .map((specs) => specs.map((endpoints, i) => slice(`s${i}`, endpoints)));
  const clusterArb = fc.constantFrom(
    computeNodeInfo(nodes({ a: [4], b: [4], c: [4] })).ratios,
    computeNodeInfo(nodes({ a: [4], b: [4], c: [5] })).ratios,
  );

  it('when every slice keeps its hints, the stored counts are exactly the hints their ready endpoints carry', () => {
    fc.assert(
      fc.property(clusterArb, slicesArb, (zoneRatios, unchanged) => {
        const result = run(zoneRatios, { unchanged });
        if (result.failure !== null || result.toUpdate.length > 0) return;
        const carried = new Map<string, number>();
        for (const s of unchanged) {
          for (const e of s.endpoints) {
            if (e.conditions?.ready !== true) continue;
            for (const { name } of e.hints?.forZones ?? []) carried.set(name, (carried.get(name) ?? 0) + 1);
          }
        }
        expect(result.hintedByZone).toEqual(Object.fromEntries(carried));
        expect(Object.keys(result.hintedByZone ?? {})).toEqual([...carried.keys()].sort());
        expect(result.unchanged).toEqual(unchanged);
        expect(result.toCreate).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
