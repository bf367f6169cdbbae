import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalZones, type ServiceStateFields, withStateHash } from '../src/history/service-state.js';

const base: ServiceStateFields = {
  namespace: 'shop',
  name: 'cart',
  routing: 'Auto',
  hintState: 'populated',
  hintReason: null,
  zones: {
    'zone-a': { minimum: 1, maximum: 4, desired: 2.5, allocated: 3, expectedOverload: 0.1 },
    'zone-b': { minimum: 1, maximum: 4, desired: 2.5, allocated: 2, expectedOverload: 0 },
  },
  crossZoneWithoutHints: 0.5,
  crossZoneWithHints: 0,
};

const hashOf = (fields: ServiceStateFields) => withStateHash(fields).stateHash;

describe('withStateHash', () => {
  it('ignores the Service identity and the order of zones and fields', () => {
    const reordered: ServiceStateFields = {
      ...base,
      namespace: 'other',
      name: 'thing',
      zones: {
        'zone-b': { expectedOverload: 0, allocated: 2, desired: 2.5, maximum: 4, minimum: 1 },
        'zone-a': { allocated: 3, minimum: 1, maximum: 4, desired: 2.5, expectedOverload: 0.1 },
      },
    };
    expect(hashOf(reordered)).toBe(hashOf(base));
  });

  it('changes when who manages the Service or its data-path verdict changes', () => {
    const verdict = { managedBy: 'endpointslice-controller', honoursHints: true, dataPathReason: null };
    const hashes = [
      hashOf(base),
      hashOf({ ...base, verdict }),
      hashOf({ ...base, verdict: { ...verdict, managedBy: 'none' } }),
      hashOf({ ...base, verdict: { ...verdict, honoursHints: false, dataPathReason: 'headless Service' } }),
      hashOf({ ...base, verdict: { ...verdict, honoursHints: false, dataPathReason: 'the data plane ignores hints' } }),
    ];
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(hashOf({ ...base, verdict: { ...verdict } })).toBe(hashOf({ ...base, verdict }));
  });

  it('treats -0 as 0 (they print the same)', () => {
    expect(hashOf({ ...base, crossZoneWithHints: -0 })).toBe(hashOf(base));
  });

  it('changes with every field that defines the state', () => {
    const variants: ServiceStateFields[] = [
      { ...base, routing: 'PreferClose' },
      { ...base, hintState: 'removed' },
      { ...base, hintReason: 'insufficient node information' },
      { ...base, hintReason: '' },
      { ...base, crossZoneWithoutHints: 0.5000000000000001 },
      { ...base, crossZoneWithHints: null },
      { ...base, zones: { ...base.zones, 'zone-b': { ...base.zones['zone-b'], allocated: null } } },
      { ...base, zones: { ...base.zones, 'zone-b': { ...base.zones['zone-b'], allocated: 0 } } },
      { ...base, zones: { 'zone-a': base.zones['zone-a'] } },
      { ...base, zones: { 'zone-a': base.zones['zone-a'], 'zone-c': base.zones['zone-b'] } },
    ];
    const hashes = new Set([hashOf(base), ...variants.map(hashOf)]);
    expect(hashes.size).toBe(variants.length + 1);
  });

  it('fits a signed 64-bit column and spreads random states apart', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double(), fc.double(), fc.string()), { minLength: 2, maxLength: 50 }),
        (rows) => {
          const unique = new Map(
            rows.map(([a, b, reason]) => [JSON.stringify([a + 0, b + 0, reason]), [a, b, reason] as const]),
          );
          const hashes = [...unique.values()].map(([a, b, reason]) =>
            hashOf({ ...base, crossZoneWithoutHints: a, crossZoneWithHints: b, hintReason: reason }),
          );
          for (const value of hashes) expect(BigInt.asIntN(64, value)).toBe(value);
          expect(new Set(hashes).size).toBe(hashes.length);
        },
      ),
    );
  });

  it('stores zones in name order', () => {
    const state = { zones: { b: { y: 1, x: 2 }, a: { z: 3 } } };
    expect(JSON.stringify(canonicalZones(state.zones))).toBe('{"a":{"z":3},"b":{"x":2,"y":1}}');
  });
});
