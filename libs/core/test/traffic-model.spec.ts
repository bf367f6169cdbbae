import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EndpointHints, EndpointSlice } from '../src/k8s-objects.js';
import { overloadOfAllocation, proportionalAllocation } from '../src/failed-allocation-overload.js';
import { kubeProxyView } from '../src/proxy-filter.js';
import {
  crossZoneFractions,
  expectedOverloadByZone,
  modelSliceTraffic,
  modelTraffic,
  originZonesOf,
  sliceTrafficByOrigin,
  trafficEndpointsFromSlices,
  type TrafficEndpoint,
} from '../src/traffic-model.js';
import { proxyTestEndpoint as ep, proxyTestService as svc, proxyTestSlice as slice } from './fixtures.js';

let counter = 0;
/** A ready endpoint in `zone` hinted for `hints` (own zone by default). */
function endpoint(zone: string, hints: string[] = [zone], fields: Partial<TrafficEndpoint> = {}): TrafficEndpoint {
  counter += 1;
  return { address: `10.0.0.${counter}`, zone, ready: true, zoneHints: hints, nodeHints: [], ...fields };
}

const equalThirds = new Map([
  ['a', 1 / 3],
  ['b', 1 / 3],
  ['c', 1 / 3],
]);

describe('traffic model: first examples', () => {
  it('4 endpoints over 3 equal zones allocated 2/1/1: the single-endpoint zones are overloaded by 1/3', () => {
    const endpoints = [endpoint('a'), endpoint('a'), endpoint('b'), endpoint('c')];
    const overload = expectedOverloadByZone({ endpoints, originShares: equalThirds });
    expect(overload.a).toBe(0);
    expect(overload.b).toBeCloseTo(1 / 3, 12);
    expect(overload.c).toBeCloseTo(1 / 3, 12);
    const cross = crossZoneFractions({ endpoints, originShares: equalThirds });
    expect(cross.withHints).toBe(0);
    // Without hints zone a sends 2/4 away, zones b and c 3/4 each.
    expect(cross.withoutHints).toBeCloseTo((0.5 + 0.75 + 0.75) / 3, 12);
  });

  it('12 vCPU vs 4 vCPU with 3 + 1 endpoints: no overload anywhere', () => {
    const shares = new Map([
      ['big', 0.75],
      ['small', 0.25],
    ]);
    const endpoints = [endpoint('big'), endpoint('big'), endpoint('big'), endpoint('small')];
    const result = modelTraffic({ endpoints, originShares: shares });
    expect(result.expectedOverloadByZone).toEqual({ big: 0, small: 0 });
    expect(result.crossZone.withHints).toBe(0);
    expect(result.crossZone.withoutHints).toBeCloseTo(0.75 * 0.25 + 0.25 * 0.75, 12);
  });

  it('an endpoint the controller moved to another zone carries that zone’s traffic across', () => {
    // 12 and 4 vCPU zones (topologycache.go AddHints): four endpoints in `big`, the first re-hinted for `small`.
    const endpoints = [endpoint('big', ['small']), endpoint('big'), endpoint('big'), endpoint('big')];
    const shares = new Map([
      ['big', 0.75],
      ['small', 0.25],
    ]);
    const result = modelTraffic({ endpoints, originShares: shares });
    expect(result.crossZone.withHints).toBeCloseTo(0.25, 12);
    expect(result.crossZone.withoutHints).toBeCloseTo(0.25, 12);
    expect(result.expectedOverloadByZone).toEqual({ big: 0, small: 0 });
  });
});

describe('traffic model: kube-proxy rules reused', () => {
  it('an origin zone without any hinted endpoint spreads over all ready endpoints', () => {
    const endpoints = [endpoint('a'), endpoint('b')];
    const shares = new Map([
      ['a', 0.25],
      ['b', 0.25],
      ['d', 0.5],
    ]);
    const result = modelTraffic({ endpoints, originShares: shares });
    // Zone d sends everything away; a and b keep theirs in-zone.
    expect(result.crossZone.withHints).toBeCloseTo(0.5, 12);
    // Loads: a and b endpoints each 0.25 + 0.25 = 0.5 = an even share.
    expect(result.expectedOverloadByZone).toEqual({ a: 0, b: 0, d: 0 });
  });

  it('one ready endpoint without a hint disables filtering for every zone', () => {
    const endpoints = [endpoint('a'), endpoint('a'), endpoint('b'), endpoint('c', [])];
    const cross = crossZoneFractions({ endpoints, originShares: equalThirds });
    expect(cross.withHints).toBe(cross.withoutHints);
    expect(expectedOverloadByZone({ endpoints, originShares: equalThirds })).toEqual({ a: 0, b: 0, c: 0 });
  });

  it('non-ready endpoints take no traffic and their hints do not count', () => {
    const endpoints = [endpoint('a'), endpoint('b'), endpoint('c', [], { ready: false })];
    const shares = new Map([
      ['a', 0.5],
      ['b', 0.5],
    ]);
    expect(crossZoneFractions({ endpoints, originShares: shares })).toEqual({ withoutHints: 0.5, withHints: 0 });
  });

  it('endpoints hinted for several zones share those zones’ traffic', () => {
    const endpoints = [endpoint('a', ['a', 'b']), endpoint('b', ['b'])];
    const shares = new Map([
      ['a', 0.5],
      ['b', 0.5],
    ]);
    const result = modelTraffic({ endpoints, originShares: shares });
    // a: all to the a endpoint (0.5); b: half to each (0.25 + 0.25). Loads 0.75 / 0.25.
    expect(result.crossZone.withHints).toBeCloseTo(0.25, 12);
    expect(result.expectedOverloadByZone.a).toBeCloseTo(0.5, 12);
    expect(result.expectedOverloadByZone.b).toBeCloseTo(0.5, 12);
  });

  it('endpoints of unknown zone never count as in-zone', () => {
    const endpoints = [endpoint('', [])];
    const shares = new Map([['', 1]]);
    expect(crossZoneFractions({ endpoints, originShares: shares })).toEqual({ withoutHints: 1, withHints: 1 });
  });
});

describe('traffic model: degenerate inputs', () => {
  it('zero ready endpoints: fractions and overloads are 0, never NaN', () => {
    const result = modelTraffic({ endpoints: [endpoint('a', ['a'], { ready: false })], originShares: equalThirds });
    expect(result).toEqual({
      crossZone: { withoutHints: 0, withHints: 0 },
      expectedOverloadByZone: { a: 0, b: 0, c: 0 },
    });
    expect(modelTraffic({ endpoints: [], originShares: new Map() })).toEqual({
      crossZone: { withoutHints: 0, withHints: 0 },
      expectedOverloadByZone: {},
    });
  });

  it('normalises shares and ignores non-positive ones', () => {
    const endpoints = [endpoint('a'), endpoint('b')];
    const raw = new Map([
      ['a', 3],
      ['b', 1],
      ['c', -2],
    ]);
    const normalised = new Map([
      ['a', 0.75],
      ['b', 0.25],
      ['c', 0],
    ]);
    expect(modelTraffic({ endpoints, originShares: raw })).toEqual(
      modelTraffic({ endpoints, originShares: normalised }),
    );
    expect(crossZoneFractions({ endpoints, originShares: new Map([['a', 0]]) })).toEqual({
      withoutHints: 0,
      withHints: 0,
    });
  });
});

describe('traffic model: endpoints from slices', () => {
  it('reads readiness as kube-proxy does, resolves duplicates and keeps one address type', () => {
    const slices = [
      slice('web-b', [
        ep('10.0.0.1', { ready: false, serving: true, terminating: true, zone: 'b', forZones: ['b'] }),
        ep('010.0.0.2', { zone: 'a' }),
      ]),
      slice('web-a', [ep('10.0.0.1', { ready: true, zone: 'a', forZones: ['a'] })]),
      slice('web-v6', [ep('fd00::1', { zone: 'a' })], { addressType: 'IPv6' }),
    ];
    const endpoints = trafficEndpointsFromSlices(slices, 'IPv4');
    expect(endpoints).toEqual([
      { address: '10.0.0.1', zone: 'a', ready: true, terminating: false, zoneHints: ['a'], nodeHints: [] },
      { address: '10.0.0.2', zone: 'a', ready: true, terminating: false, zoneHints: [], nodeHints: [] },
    ]);
    expect(trafficEndpointsFromSlices(slices, 'IPv6').map((e) => e.address)).toEqual(['fd00::1']);
  });
});

describe('traffic model: the allocation the controller refused', () => {
  it('4 endpoints over 3 equal zones: best allocation 2/1/1, overload 33%', () => {
    const allocation = proportionalAllocation(4, equalThirds);
    expect(allocation).toEqual({ a: 2, b: 1, c: 1 });
    const overload = overloadOfAllocation(allocation, equalThirds);
    expect(overload.a).toBe(0);
    expect(overload.b).toBeCloseTo(1 / 3, 12);
    expect(overload.c).toBeCloseTo(1 / 3, 12);
  });

  it('2:1 CPU with 2 endpoints: 1/1, the big zone overloaded by 1/3', () => {
    const shares = new Map([
      ['a', 2 / 3],
      ['b', 1 / 3],
    ]);
    const allocation = proportionalAllocation(2, shares);
    expect(allocation).toEqual({ a: 1, b: 1 });
    const overload = overloadOfAllocation(allocation, shares);
    expect(overload.a).toBeCloseTo(1 / 3, 12);
    expect(overload.b).toBe(0);
  });

  it('largest remainder, then at least one endpoint per zone when there are enough', () => {
    expect(
      proportionalAllocation(
        4,
        new Map([
          ['big', 0.75],
          ['small', 0.25],
        ]),
      ),
    ).toEqual({ big: 3, small: 1 });
    const skewed = new Map([
      ['a', 0.9],
      ['b', 0.05],
      ['c', 0.05],
    ]);
    expect(proportionalAllocation(3, skewed)).toEqual({ a: 1, b: 1, c: 1 });
    expect(proportionalAllocation(5, skewed)).toEqual({ a: 3, b: 1, c: 1 });
    expect(proportionalAllocation(2, equalThirds)).toEqual({ a: 1, b: 1, c: 0 });
    expect(
      proportionalAllocation(
        7,
        new Map([
          ['a', 0],
          ['b', 0],
        ]),
      ),
    ).toEqual({ a: 4, b: 3 });
  });

  it('a zone left without endpoints falls back to all of them', () => {
    const overload = overloadOfAllocation({ a: 1, b: 1, c: 0 }, equalThirds);
    // a and b endpoints each take 1/3 + 1/6 = 1/2 of all traffic: overload 0 with 2 endpoints.
    expect(overload).toEqual({ a: 0, b: 0, c: 0 });
  });

  it('property: allocations sum to the endpoint count and give every zone one when possible', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: 1, maxLength: 6 }),
        (count, weights) => {
          const shares = new Map(weights.map((weight, index) => [`z${index}`, weight]));
          const allocation = Object.values(proportionalAllocation(count, shares));
          expect(allocation.reduce((sum, value) => sum + value, 0)).toBe(count);
          if (count >= weights.length) expect(Math.min(...allocation)).toBeGreaterThanOrEqual(1);
        },
      ),
    );
  });
});

describe('traffic model: properties', () => {
  const zones = ['a', 'b', 'c', 'd'];
  const arbitraryEndpoints = fc.array(
    fc.record({
      zone: fc.constantFrom(...zones, ''),
      ready: fc.boolean(),
      hints: fc.subarray(zones),
    }),
    { maxLength: 15 },
  );
  const arbitraryShares = fc
    .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: zones.length, maxLength: zones.length })
    .map((weights) => new Map(zones.map((zone, index) => [zone, weights[index]])));

  it('property: cross-zone fractions are within [0, 1], overloads finite and non-negative', () => {
    fc.assert(
      fc.property(arbitraryEndpoints, arbitraryShares, (records, originShares) => {
        const endpoints = records.map((record, index) => ({
          address: `10.0.0.${index}`,
          zone: record.zone,
          ready: record.ready,
          zoneHints: record.hints,
          nodeHints: [],
        }));
        const result = modelTraffic({ endpoints, originShares });
        for (const fraction of [result.crossZone.withoutHints, result.crossZone.withHints]) {
          expect(fraction).toBeGreaterThanOrEqual(0);
          expect(fraction).toBeLessThanOrEqual(1 + 1e-12);
        }
        for (const overload of Object.values(result.expectedOverloadByZone)) {
          expect(Number.isFinite(overload)).toBe(true);
          expect(overload).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it('property: with the controller’s own-zone hints, hints never increase cross-zone traffic', () => {
    fc.assert(
      fc.property(arbitraryEndpoints, arbitraryShares, (records, originShares) => {
        const endpoints = records.map((record, index) => ({
          address: `10.0.0.${index}`,
          zone: record.zone,
          ready: record.ready,
          // trafficDistribution hints: own zone when the endpoint has one (trafficdist.go preferCloseHeuristic).
          zoneHints: [record.zone],
          nodeHints: [],
        }));
        const { withHints, withoutHints } = crossZoneFractions({ endpoints, originShares });
        expect(withHints).toBeLessThanOrEqual(withoutHints);
      }),
    );
  });

  it('property: a zone’s candidate set is exactly kube-proxy’s cluster endpoints for a node in that zone', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            zone: fc.constantFrom(...zones),
            ready: fc.option(fc.boolean(), { nil: undefined }),
            forZones: fc.subarray(zones),
            forNodes: fc.subarray(['n1', 'n2']),
          }),
          { minLength: 1, maxLength: 10 },
        ),
        fc.constantFrom(...zones, 'e'),
        (records, origin) => {
          const slices = [
            slice(
              'web-0',
              records.map((options, index) => ep(`10.0.0.${index + 1}`, options)),
            ),
          ];
          const endpoints = trafficEndpointsFromSlices(slices, 'IPv4');
          if (!endpoints.some((e) => e.ready)) return;
          const zoneOf = new Map(endpoints.map((e) => [e.address, e.zone]));
          const cluster = kubeProxyView(svc(), slices, { name: 'client-node', zone: origin }).clusterEndpoints ?? [];
          const expectedCross = cluster.filter((address) => zoneOf.get(address) !== origin).length / cluster.length;
          const { withHints } = crossZoneFractions({ endpoints, originShares: new Map([[origin, 1]]) });
          expect(withHints).toBeCloseTo(expectedCross, 12);
        },
      ),
    );
  });
});

describe('modelSliceTraffic: the counting path equals the full model', () => {
  const zone = fc.constantFrom('zone-a', 'zone-b', 'zone-c', '');
  const endpointArb = fc.record({
    address: fc.integer({ min: 1, max: 12 }),
    zone: fc.option(zone, { nil: undefined }),
    ready: fc.constantFrom<boolean | null | undefined>(true, true, true, false, null, undefined),
    hints: fc.oneof(
      fc.constant(undefined),
      fc.array(zone, { minLength: 1, maxLength: 1 }).map((zones) => ({ forZones: zones.map((name) => ({ name })) })),
      fc.array(zone, { minLength: 0, maxLength: 3 }).map((zones) => ({ forZones: zones.map((name) => ({ name })) })),
      fc.constant<EndpointHints>({ forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'n1' }] }),
    ),
  });
  const slicesArb = fc
    .array(fc.array(endpointArb, { maxLength: 10 }), { minLength: 1, maxLength: 2 })
    .map((sliceSpecs): EndpointSlice[] =>
      sliceSpecs.map((endpoints, index) => ({
        metadata: { name: `web-${index}`, namespace: 'default' },
        addressType: 'IPv4',
        endpoints: endpoints.map((spec) => ({
          addresses: [`10.0.0.${spec.address}`],
          ...(spec.zone === undefined ? {} : { zone: spec.zone }),
          conditions: spec.ready === undefined ? {} : { ready: spec.ready },
          ...(spec.hints === undefined ? {} : { hints: spec.hints }),
        })),
      })),
    );
  const sharesArb = fc.array(fc.tuple(zone, fc.double({ min: 0, max: 5, noNaN: true })), { maxLength: 4 });

  it('for any slices and origin shares', () => {
    fc.assert(
      fc.property(slicesArb, sharesArb, (slices, shares) => {
        const originShares = new Map(shares);
        const full = modelTraffic({ endpoints: trafficEndpointsFromSlices(slices, 'IPv4'), originShares });
        const counted = modelSliceTraffic(slices, 'IPv4', originShares);
        expect(counted.crossZone.withoutHints).toBeCloseTo(full.crossZone.withoutHints, 12);
        expect(counted.crossZone.withHints).toBeCloseTo(full.crossZone.withHints, 12);
        expect(Object.keys(counted.expectedOverloadByZone)).toEqual(Object.keys(full.expectedOverloadByZone));
        for (const [zoneName, overload] of Object.entries(full.expectedOverloadByZone)) {
          expect(counted.expectedOverloadByZone[zoneName]).toBeCloseTo(overload, 9);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('the per-origin form used by analyze lists the same overloads, in origin-zone order', () => {
    fc.assert(
      fc.property(slicesArb, sharesArb, (slices, shares) => {
        const originShares = new Map(shares);
        const model = modelSliceTraffic(slices, 'IPv4', originShares);
        const byOrigin = sliceTrafficByOrigin(slices, 'IPv4', originShares);
        expect(originZonesOf(originShares)).toEqual(Object.keys(model.expectedOverloadByZone));
        expect(byOrigin.overloads).toEqual(Object.values(model.expectedOverloadByZone));
        expect(byOrigin.crossZone).toEqual(model.crossZone);
      }),
      { numRuns: 500 },
    );
  });
});
