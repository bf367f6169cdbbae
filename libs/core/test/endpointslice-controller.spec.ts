import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ServiceHintsResult,
  reconcileServiceHints,
  serviceHintsResult,
  serviceRoutingOf,
  syncServiceHints,
} from '../src/endpointslice-controller.js';
import { removeAllHints } from '../src/hints.js';
import type { EndpointSlice, Node, Service } from '../src/k8s-objects.js';
import { computeNodeInfo } from '../src/node-info.js';
import { type EndpointInput, autoService, deepFreeze, node, nodes, service, slice, zoneHintsOf } from './fixtures.js';

const OVERLOAD = 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold';
const ENABLED_V4 = {
  type: 'Normal',
  reason: 'TopologyAwareHintsEnabled',
  message: 'Topology Aware Hints has been enabled, addressType: IPv4',
};
const warning = (message: string) => ({ type: 'Warning', reason: 'TopologyAwareHintsDisabled', message });

function reconcile(svc: Service, slices: EndpointSlice[], clusterNodes: Node[]): ServiceHintsResult {
  return reconcileServiceHints(deepFreeze(svc), deepFreeze(slices), computeNodeInfo(deepFreeze(clusterNodes)));
}

const hinted = (zones: string[]): EndpointInput[] => zones.map((zone) => ({ zone, hints: [zone] }));

describe('topologycache.go AddHints: first examples (overload, CPU ratio, a zone lost, too few endpoints)', () => {
  it('4 endpoints over 3 equal zones: no hints (overload)', () => {
    const result = reconcile(autoService(), [slice('web-1', ['a', 'a', 'b', 'c'])], nodes({ a: [4], b: [4], c: [4] }));
    expect(result.routing).toBe('Auto');
    expect(result.hints).toEqual({ state: 'removed', reason: `${OVERLOAD} (4 endpoints, 3 zones)` });
    expect(result.events).toEqual([warning(`${OVERLOAD} (4 endpoints, 3 zones), addressType: IPv4`)]);
    expect(zoneHintsOf(result.endpointSlices)).toEqual([[null, null, null, null]]);
    expect(result.rewrittenSlices).toEqual([]);
    expect(result.allocations).toEqual({});
    expect(result.hintCounts).toEqual({});
  });

  it('12 vCPU and 4 vCPU zones with 4 endpoints: 3 + 1', () => {
    const result = reconcile(
      autoService(),
      [slice('web-1', ['zone-1a', 'zone-1b', 'zone-1a', 'zone-1b'])],
      nodes({ 'zone-1a': [4, 4, 4], 'zone-1b': [4] }),
    );
    expect(result.hints).toEqual({ state: 'populated', reason: null });
    expect(result.events).toEqual([ENABLED_V4]);
    // zone-1b has 2 (> 1): its first endpoint is re-hinted to zone-1a.
    expect(zoneHintsOf(result.endpointSlices)).toEqual([['zone-1a', 'zone-1a', 'zone-1a', 'zone-1b']]);
    expect(result.rewrittenSlices).toEqual(['web-1']);
    expect(result.allocations).toEqual({
      IPv4: { 'zone-1a': { minimum: 3, maximum: 3, desired: 3 }, 'zone-1b': { minimum: 1, maximum: 1, desired: 1 } },
    });
    expect(result.hintCounts).toEqual({ IPv4: { 'zone-1a': 3, 'zone-1b': 1 } });
  });

  it('EKS: 4 zones, one endpoint each, then zone-1d loses its node and the pod moves to zone-1a', () => {
    const zones = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c', 'eu-west-1d'];
    const fourZones = nodes(Object.fromEntries(zones.map((zone) => [zone, [10]])));
    const before = reconcile(autoService(), [slice('demo-abc', zones)], fourZones);
    expect(before.hints.state).toBe('populated');
    expect(zoneHintsOf(before.endpointSlices)).toEqual([zones]);
    expect(before.events).toEqual([ENABLED_V4]);

    const threeZones = fourZones.filter((n) => n.metadata.labels?.['topology.kubernetes.io/zone'] !== 'eu-west-1d');
    const moved: EndpointInput[] = [...hinted(zones.slice(0, 3)), 'eu-west-1a'];
    const after = reconcile(autoService(), [slice('demo-abc', moved)], threeZones);
    expect(after.hints).toEqual({ state: 'removed', reason: `${OVERLOAD} (4 endpoints, 3 zones)` });
    expect(after.events).toEqual([warning(`${OVERLOAD} (4 endpoints, 3 zones), addressType: IPv4`)]);
    expect(zoneHintsOf(after.endpointSlices)).toEqual([[null, null, null, null]]);
    expect(after.rewrittenSlices).toEqual(['demo-abc']);
  });

  it('fewer endpoints than zones', () => {
    const result = reconcile(autoService(), [slice('web-1', ['a', 'b'])], nodes({ a: [2], b: [2], c: [2] }));
    expect(result.hints).toEqual({
      state: 'removed',
      reason: 'Insufficient number of endpoints (2 endpoints, 3 zones)',
    });
    expect(result.events).toEqual([
      warning('Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4'),
    ]);
  });
});

describe('reconciler.go reconcileByAddressType: which mode decides the hints', () => {
  const cluster = nodes({ a: [4], b: [4], c: [4] });

  it('no annotation, no trafficDistribution, no hints: nothing happens', () => {
    const result = reconcile(service(), [slice('s', ['a', 'b'])], cluster);
    expect(result).toMatchObject({
      routing: 'None',
      hints: { state: 'none', reason: null },
      events: [],
      rewrittenSlices: [],
    });
  });

  it('the annotation wins over trafficDistribution (reconciler.go: hintsEnabled before canUseTrafficDistribution)', () => {
    const svc = autoService({ trafficDistribution: 'PreferClose' });
    const result = reconcile(svc, [slice('s', ['a', 'a', 'b', 'c'])], cluster);
    expect(result.routing).toBe('Auto');
    expect(result.hints.state).toBe('removed');
    expect(zoneHintsOf(result.endpointSlices)).toEqual([[null, null, null, null]]);
  });

  it('trafficDistribution: own-zone hints without CPU rules, events or node info', () => {
    const result = reconcile(service({ trafficDistribution: 'PreferClose' }), [slice('s', ['a', 'a', 'b', 'c'])], []);
    expect(result).toMatchObject({ routing: 'PreferClose', hints: { state: 'populated', reason: null }, events: [] });
    expect(zoneHintsOf(result.endpointSlices)).toEqual([['a', 'a', 'b', 'c']]);
    expect(result.rewrittenSlices).toEqual(['s']);
    expect(result.allocations).toEqual({});
    expect(result.hintCounts).toEqual({});
  });

  it('PreferSameNode adds node hints', () => {
    const result = reconcile(
      service({ trafficDistribution: 'PreferSameNode' }),
      [slice('s', [{ zone: 'a', nodeName: 'n1' }])],
      cluster,
    );
    expect(result.routing).toBe('PreferSameNode');
    expect(result.endpointSlices[0]?.endpoints[0]?.hints).toEqual({
      forZones: [{ name: 'a' }],
      forNodes: [{ name: 'n1' }],
    });
  });

  it('an unknown trafficDistribution is ignored: stale hints are removed, no event', () => {
    const result = reconcile(
      service({ trafficDistribution: 'PreferRegion' }),
      [slice('s', [{ zone: 'a', nodeHints: ['n1'] }])],
      cluster,
    );
    expect(result).toMatchObject({ routing: 'None', hints: { state: 'none' }, events: [], rewrittenSlices: ['s'] });
    expect(result.endpointSlices[0]?.endpoints[0]?.hints).toBeUndefined();
  });
});

describe('the populated mark seeded from observed hints', () => {
  const cluster = nodes({ a: [4], b: [4] });

  it('Auto with hints already in place and still valid: no event, no write', () => {
    const result = reconcile(autoService(), [slice('s', hinted(['a', 'b']))], cluster);
    expect(result.hints.state).toBe('populated');
    expect(result.events).toEqual([]);
    expect(result.rewrittenSlices).toEqual([]);
    expect(result.hintCounts).toEqual({ IPv4: { a: 1, b: 1 } });
  });

  it('Auto with no hints yet: Enabled', () => {
    expect(reconcile(autoService(), [slice('s', ['a', 'b'])], cluster).events).toEqual([ENABLED_V4]);
  });

  it("Auto and trafficDistribution both set, hints present: the hints count as the heuristic's", () => {
    const result = reconcile(
      autoService({ trafficDistribution: 'PreferClose' }),
      [slice('s', hinted(['a', 'b']))],
      cluster,
    );
    expect(result.events).toEqual([]);
  });

  it('annotation switched off while CPU-heuristic hints remain: Disabled event, hints removed', () => {
    const result = reconcile(service(), [slice('s', hinted(['a', 'b']))], cluster);
    expect(result.hints).toEqual({ state: 'none', reason: null });
    expect(result.events).toEqual([warning('Topology Aware Hints has been disabled, addressType: IPv4')]);
    expect(result.rewrittenSlices).toEqual(['s']);
    expect(zoneHintsOf(result.endpointSlices)).toEqual([[null, null]]);
  });

  it("annotation switched off in favour of trafficDistribution: hints there count as that path's, no event", () => {
    const result = reconcile(
      service({ trafficDistribution: 'PreferClose' }),
      [
        slice(
          's',
          hinted(['b', 'b']).map((e, i) => (i === 0 ? { ...(e as object), zone: 'a' } : e)),
        ),
      ],
      cluster,
    );
    expect(result.events).toEqual([]);
    expect(zoneHintsOf(result.endpointSlices)).toEqual([['a', 'b']]);
    expect(result.rewrittenSlices).toEqual(['s']);
  });

  it('node-only hints do not mark the Service populated', () => {
    const result = reconcile(service(), [slice('s', [{ zone: 'a', nodeHints: ['n1'] }])], cluster);
    expect(result.events).toEqual([]);
    expect(result.rewrittenSlices).toEqual(['s']);
  });
});

describe('dual-stack: the populated mark is per Service, not per address type (topologycache.go hintsPopulatedByService)', () => {
  const cluster = nodes({ a: [4], b: [4] });
  const dual = (svc: Service) => ({ ...svc, spec: { ...svc.spec, ipFamilies: ['IPv4', 'IPv6'] } });
  const v4 = (zones: EndpointInput[]) => slice('v4', zones);
  const v6 = (zones: EndpointInput[]) => slice('v6', zones, { addressType: 'IPv6' });

  it('one Enabled event, for IPv4, processed first', () => {
    const result = reconcile(dual(autoService()), [v6(['a', 'b']), v4(['a', 'b'])], cluster);
    expect(result.events).toEqual([ENABLED_V4]);
    expect(result.rewrittenSlices).toEqual(['v4', 'v6']);
    expect(result.endpointSlices.map((s) => s.metadata.name)).toEqual(['v6', 'v4']);
    expect(result.hintCounts).toEqual({ IPv4: { a: 1, b: 1 }, IPv6: { a: 1, b: 1 } });
  });

  it('IPv4 fails, IPv6 succeeds: the failure consumed the mark, so IPv6 announces Enabled again', () => {
    const result = reconcile(dual(autoService()), [v4(hinted(['a'])), v6(hinted(['a', 'b']))], cluster);
    expect(result.events).toEqual([
      warning('Insufficient number of endpoints (1 endpoints, 2 zones), addressType: IPv4'),
      {
        type: 'Normal',
        reason: 'TopologyAwareHintsEnabled',
        message: 'Topology Aware Hints has been enabled, addressType: IPv6',
      },
    ]);
    expect(result.hints).toEqual({
      state: 'removed',
      reason: 'Insufficient number of endpoints (1 endpoints, 2 zones)',
    });
    expect(result.rewrittenSlices).toEqual(['v4']);
    expect(result.hintCounts).toEqual({ IPv6: { a: 1, b: 1 } });
    expect(Object.keys(result.allocations)).toEqual(['IPv6']);
  });

  it('IPv4 succeeds, IPv6 fails: only the IPv6 warning; still removed', () => {
    const result = reconcile(dual(autoService()), [v4(hinted(['a', 'b'])), v6(['a'])], cluster);
    expect(result.events).toEqual([
      warning('Insufficient number of endpoints (1 endpoints, 2 zones), addressType: IPv6'),
    ]);
    expect(result.hints.state).toBe('removed');
  });

  it('switch-off: the first address type consumes the mark, one Disabled event only', () => {
    const result = reconcile(dual(service()), [v4(hinted(['a', 'b'])), v6(hinted(['a', 'b']))], cluster);
    expect(result.events).toEqual([warning('Topology Aware Hints has been disabled, addressType: IPv4')]);
    expect(result.rewrittenSlices).toEqual(['v4', 'v6']);
  });

  it('a declared family without slices is still synced (0 endpoints)', () => {
    const result = reconcile(dual(autoService()), [v4(['a', 'b'])], cluster);
    expect(result.events).toEqual([
      ENABLED_V4,
      warning('Insufficient number of endpoints (0 endpoints, 2 zones), addressType: IPv6'),
    ]);
  });
});

describe('reconcileServiceHints: other behaviour', () => {
  const cluster = nodes({ a: [4], b: [4] });

  it('insufficient node info disables Auto Services, not trafficDistribution ones (topologycache.go getAllocations)', () => {
    const poisoned = [...cluster, node({ name: 'x', zone: null, cpu: '4' })];
    const auto = reconcile(autoService(), [slice('s', hinted(['a', 'b']))], poisoned);
    const message = 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes';
    expect(auto.hints).toEqual({ state: 'removed', reason: message });
    expect(auto.events).toEqual([warning(`${message}, addressType: IPv4`)]);
    expect(zoneHintsOf(auto.endpointSlices)).toEqual([[null, null]]);
    const td = reconcile(service({ trafficDistribution: 'PreferSameZone' }), [slice('s', ['a', 'b'])], poisoned);
    expect(td.hints.state).toBe('populated');
  });

  it('a single-zone cluster yields the Insufficient Node information message (topologycache.go SetNodes keeps no ratios under two zones)', () => {
    const result = reconcile(autoService(), [slice('s', ['a', 'a'])], nodes({ a: [4, 4] }));
    expect(result.hints.reason).toBe(
      'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
    );
  });

  it('FQDN slices pass through untouched and never count', () => {
    const fqdn = slice('names', [{ zone: 'a', hints: ['b'] }], { addressType: 'FQDN' });
    const result = reconcile(autoService(), [fqdn, slice('s', ['a', 'b'])], cluster);
    expect(result.endpointSlices[0]).toEqual(fqdn);
    expect(result.endpointSlices[0]).not.toBe(fqdn);
    expect(result.rewrittenSlices).toEqual(['s']);
    expect(result.events).toEqual([ENABLED_V4]);
  });

  it('a Service with no slices and no declared family is synced as IPv4', () => {
    const withoutFamilies = (clusterIP: string): Service => {
      const svc = autoService({ clusterIP });
      delete svc.spec?.ipFamilies;
      return svc;
    };
    expect(reconcile(withoutFamilies('None'), [], cluster).events).toEqual([
      warning('Insufficient number of endpoints (0 endpoints, 2 zones), addressType: IPv4'),
    ]);
    expect(reconcile(withoutFamilies('fd00::10'), [], cluster).events.map((e) => e.message)).toEqual([
      'Insufficient number of endpoints (0 endpoints, 2 zones), addressType: IPv6',
    ]);
  });

  it('an endpoint in a zone without CPU makes the controller rewrite its slice on every sync (utils.go getHintsByZone refuses a hint for a zone without allocation)', () => {
    const withGpuZone = [
      ...cluster,
      node({ name: 'cp', zone: 'gpu', cpu: '8', labels: { 'node-role.kubernetes.io/control-plane': '' } }),
    ];
    const first = reconcile(autoService(), [slice('s', ['a', 'b', 'gpu', 'a', 'b', 'b'])], withGpuZone);
    expect(first.hintCounts).toEqual({ IPv4: { a: 2, b: 3, gpu: 1 } });
    const second = reconcile(autoService(), first.endpointSlices, withGpuZone);
    expect(second.rewrittenSlices).toEqual(['s']);
    expect(second.events).toEqual([]);
    expect(zoneHintsOf(second.endpointSlices)).toEqual(zoneHintsOf(first.endpointSlices));
  });

  it('only invalid slices are rewritten; valid ones keep suboptimal hints', () => {
    const good = slice('good', [{ zone: 'a', hints: ['b'] }]);
    const result = reconcile(autoService(), [good, slice('new', ['a', 'a', 'b'])], cluster);
    expect(result.rewrittenSlices).toEqual(['new']);
    // 4 ready endpoints: 2 per zone; `good` holds b=1, the new slice fills a=2 and b=1 without moves.
    expect(zoneHintsOf(result.endpointSlices)).toEqual([['b'], ['a', 'a', 'b']]);
  });

  it('returns the slices in input order with new objects', () => {
    const input = [slice('z', ['a']), slice('m', hinted(['b'])), slice('a', ['a', 'b'])];
    const result = reconcile(autoService(), input, cluster);
    expect(result.endpointSlices.map((s) => s.metadata.name)).toEqual(['z', 'm', 'a']);
    result.endpointSlices.forEach((s, i) => expect(s).not.toBe(input[i]));
  });
});

describe('properties', () => {
  const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d'];

  const clusterArb = fc
    .integer({ min: 2, max: 4 })
    .chain((zoneCount) =>
      fc.tuple(
        ...ZONES.slice(0, zoneCount).map(() =>
          fc.array(fc.constantFrom('1', '2', '4', '3500m', '8', '15890m'), { minLength: 1, maxLength: 3 }),
        ),
      ),
    )
    .map((cpus) => nodes(Object.fromEntries(cpus.map((list, i) => [ZONES[i] as string, list]))));

  /** Endpoints in the cluster's zones, ready or not, split into 1–3 slices. */
  const scenarioArb = (withNonReady: boolean) =>
    clusterArb.chain((clusterNodes) => {
      const zones = [...new Set(clusterNodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone'] as string))];
      const endpointArb = fc.record({
        zone: fc.constantFrom(...zones),
        ready: withNonReady ? fc.boolean() : fc.constant(true),
      });
      return fc.record({
        nodes: fc.constant(clusterNodes),
        slices: fc.array(fc.array(endpointArb, { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
      });
    });

  const build = (specs: { zone: string; ready: boolean }[][]) => specs.map((endpoints, i) => slice(`s${i}`, endpoints));

  function hintedCounts(result: ServiceHintsResult): Map<string, number> {
    const counts = new Map<string, number>();
    for (const s of result.endpointSlices) {
      for (const e of s.endpoints) {
        if (e.conditions?.ready !== true) continue;
        for (const z of e.hints?.forZones ?? []) counts.set(z.name, (counts.get(z.name) ?? 0) + 1);
      }
    }
    return counts;
  }

  /**
   * Upstream's stop rule (`utils.go getGivingAndReceivingZones`) on the final counts: the loop ends when no zone can give or receive, when
   * both the largest surplus and the largest deficit are below 1, or when either is below 0.5. With every
   * slice unhinted all planned moves happen, so the final counts must satisfy it. (Tolerance: the loop
   * subtracts 1 repeatedly, which can round differently from a single subtraction.)
   */
  function stopRuleHolds(
    counts: ReadonlyMap<string, number>,
    allocations: Record<string, { desired: number }>,
  ): boolean {
    const EPS = 1e-9;
    let surplus = 0;
    let deficit = 0;
    for (const [zone, { desired }] of Object.entries(allocations)) {
      const diff = (counts.get(zone) ?? 0) - desired;
      surplus = Math.max(surplus, diff);
      deficit = Math.max(deficit, -diff);
    }
    return (
      surplus <= EPS ||
      deficit <= EPS ||
      (surplus < 1 + EPS && deficit < 1 + EPS) ||
      surplus < 0.5 + EPS ||
      deficit < 0.5 + EPS
    );
  }

  function maxSurplus(counts: ReadonlyMap<string, number>, allocations: Record<string, { desired: number }>): number {
    return Math.max(0, ...Object.entries(allocations).map(([zone, { desired }]) => (counts.get(zone) ?? 0) - desired));
  }

  it('populated hints give every zone with CPU an endpoint, unless the 0.5 stop rule strands it', () => {
    fc.assert(
      fc.property(scenarioArb(true), ({ nodes: clusterNodes, slices }) => {
        const result = reconcile(autoService(), build(slices), clusterNodes);
        if (result.hints.state !== 'populated') return;
        const counts = hintedCounts(result);
        const allocations = result.allocations.IPv4 ?? {};
        for (const zone of computeNodeInfo(clusterNodes).zones) {
          // A zone left with nothing has a deficit >= its minimum >= 1, so only "every surplus < 0.5" can
          // have stopped the loop.
          if ((counts.get(zone.name) ?? 0) === 0) expect(maxSurplus(counts, allocations)).toBeLessThan(0.5);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('starting unhinted, every ready endpoint gets one hint, counts match the stored map and obey the stop rule', () => {
    fc.assert(
      fc.property(scenarioArb(true), ({ nodes: clusterNodes, slices }) => {
        const input = build(slices);
        const result = reconcile(autoService(), input, clusterNodes);
        if (result.hints.state !== 'populated') return;
        const counts = hintedCounts(result);
        const allocations = result.allocations.IPv4 ?? {};
        const ready = input.flatMap((s) => s.endpoints).filter((e) => e.conditions?.ready === true).length;
        expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(ready);
        expect(Object.fromEntries(counts)).toEqual(
          Object.fromEntries(Object.entries(result.hintCounts.IPv4 ?? {}).filter(([, c]) => c > 0)),
        );
        expect(stopRuleHolds(counts, allocations)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("within [minimum, maximum] whenever every zone's desired share is whole (property)", () => {
    // Equal zones and n a multiple of the zone count: desired = n / zones exactly, so the loop can
    // always finish the job.
    const arb = fc.integer({ min: 2, max: 4 }).chain((zoneCount) =>
      fc.record({
        zones: fc.constant(ZONES.slice(0, zoneCount)),
        endpoints: fc
          .array(fc.constantFrom(...ZONES.slice(0, zoneCount)), { minLength: zoneCount, maxLength: 24 })
          .filter((list) => list.length % zoneCount === 0),
      }),
    );
    fc.assert(
      fc.property(arb, ({ zones, endpoints }) => {
        const result = reconcile(
          autoService(),
          [slice('s', endpoints)],
          nodes(Object.fromEntries(zones.map((z) => [z, [4]]))),
        );
        if (result.hints.state !== 'populated') return;
        const counts = hintedCounts(result);
        for (const [zone, { minimum, maximum }] of Object.entries(result.allocations.IPv4 ?? {})) {
          expect(counts.get(zone) ?? 0).toBeGreaterThanOrEqual(Math.max(1, minimum));
          expect(counts.get(zone) ?? 0).toBeLessThanOrEqual(maximum);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the 0.5 stop rule can leave a zone without endpoints and another above its maximum (fast-check counterexample; upstream does the same)', () => {
    const clusterNodes = nodes({ 'zone-a': [2], 'zone-b': [8, 4, 2], 'zone-c': [1], 'zone-d': ['3500m', 1, 1] });
    const input = [
      slice('s0', ['zone-a', 'zone-b', 'zone-b', 'zone-b', 'zone-b']),
      slice('s1', ['zone-b', 'zone-b', 'zone-a', 'zone-a']),
    ];
    const result = reconcile(autoService(), input, clusterNodes);
    // 9 endpoints: minimum = maximum = 1 / 5 / 1 / 2; desired 1 / 5.6 / 1 / 2.2. zone-a gives 2 to zone-d;
    // zone-b's surplus 0.4 is below 0.5, so zone-c never receives.
    expect(result.hints.state).toBe('populated');
    expect(zoneHintsOf(result.endpointSlices)).toEqual([
      ['zone-d', 'zone-b', 'zone-b', 'zone-b', 'zone-b'],
      ['zone-b', 'zone-b', 'zone-d', 'zone-a'],
    ]);
    expect(result.hintCounts.IPv4).toEqual({ 'zone-a': 1, 'zone-b': 6, 'zone-d': 2 });
    expect(result.allocations.IPv4?.['zone-b']?.maximum).toBe(5);
    expect(result.allocations.IPv4?.['zone-c']?.minimum).toBe(1);
  });

  it('hints and events do not depend on the order of Nodes', () => {
    fc.assert(
      fc.property(
        scenarioArb(true).chain((scenario) =>
          fc.record({
            scenario: fc.constant(scenario),
            shuffled: fc.shuffledSubarray(scenario.nodes, { minLength: scenario.nodes.length }),
          }),
        ),
        ({ scenario, shuffled }) => {
          const slices = build(scenario.slices);
          const inOrder = reconcile(autoService(), slices, scenario.nodes);
          const reordered = reconcile(autoService(), slices, shuffled);
          expect(reordered).toEqual(inOrder);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never mutates its inputs, whatever the routing', () => {
    const serviceArb = fc.constantFrom(
      autoService(),
      service(),
      service({ trafficDistribution: 'PreferClose' }),
      service({ trafficDistribution: 'PreferSameNode' }),
    );
    const hintArb = fc.option(fc.constantFrom('zone-a', 'zone-b', 'zone-z'), { nil: undefined });
    fc.assert(
      fc.property(
        serviceArb,
        scenarioArb(true),
        fc.array(hintArb, { maxLength: 36 }),
        (svc, { nodes: clusterNodes, slices }, hints) => {
          let k = 0;
          const input = slices.map((endpoints, i) =>
            slice(
              `s${i}`,
              endpoints.map((e) => {
                const hint = hints[k++];
                return hint === undefined
                  ? { ...e, nodeName: 'n1' }
                  : { ...e, hints: [hint], nodeName: 'n1', nodeHints: ['n1'] };
              }),
            ),
          );
          const before = structuredClone({ svc, input, clusterNodes });
          reconcileServiceHints(svc, input, computeNodeInfo(clusterNodes));
          expect({ svc, input, clusterNodes }).toEqual(before);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('syncServiceHints: the report reuses what the controller does not write', () => {
  const ZONES = ['zone-a', 'zone-b', 'zone-c'];
  const clusterArb = fc.constantFrom(
    nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [8] }),
    nodes({ 'zone-a': [4, 4], 'zone-b': [2] }),
    nodes({ 'zone-a': [4] }),
  );
  const serviceArb = fc
    .record({
      annotations: fc.constantFrom<Record<string, string>>(
        {},
        { 'service.kubernetes.io/topology-mode': 'Auto' },
        { 'service.kubernetes.io/topology-aware-hints': 'disabled' },
      ),
      trafficDistribution: fc.option(fc.constantFrom('PreferClose', 'PreferSameNode', 'Bogus'), { nil: undefined }),
      ipFamilies: fc.constantFrom<string[]>(['IPv4'], ['IPv6'], ['IPv4', 'IPv6'], []),
    })
    .map((options) => service(options));
  const endpointArb = fc.record({
    zone: fc.option(fc.constantFrom(...ZONES, ''), { nil: undefined }),
    ready: fc.constantFrom<boolean | null>(true, true, false, null),
    hints: fc.option(fc.array(fc.constantFrom(...ZONES), { maxLength: 2 }), { nil: undefined }),
    nodeName: fc.option(fc.constantFrom('n1', 'n2'), { nil: undefined }),
  });
  const slicesArb = fc
    .array(
      fc.record({
        addressType: fc.constantFrom<'IPv4' | 'IPv6' | 'FQDN'>('IPv4', 'IPv4', 'IPv6', 'FQDN'),
        endpoints: fc.array(endpointArb, { maxLength: 8 }),
      }),
      { maxLength: 3 },
    )
    .map((specs) => specs.map((spec, i) => slice(`s${i}`, spec.endpoints, { addressType: spec.addressType })));

  it('gives the public result, with every slice it does not write as the input object', () => {
    fc.assert(
      fc.property(serviceArb, slicesArb, clusterArb, (svc, input, clusterNodes) => {
        const nodeInfo = computeNodeInfo(clusterNodes);
        const sync = syncServiceHints(serviceRoutingOf(svc), deepFreeze(input), nodeInfo.ratios, true);
        const result = reconcileServiceHints(svc, input, nodeInfo);
        expect(JSON.stringify(serviceHintsResult(sync))).toBe(JSON.stringify(result));
        sync.endpointSlices.forEach((computed, index) => {
          if (result.rewrittenSlices.includes(computed.metadata.name)) expect(computed).not.toBe(input[index]);
          else expect(computed).toBe(input[index]);
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('a Service without routing whose slices carry no hints: what "remove all hints" decides, nothing to write', () => {
    const unhinted = slicesArb.map((list) =>
      list.map((s) => ({ ...s, endpoints: s.endpoints.map(({ hints: _hints, ...endpoint }) => endpoint) })),
    );
    fc.assert(
      fc.property(
        unhinted,
        clusterArb,
        fc.constantFrom<string[]>(['IPv4'], ['IPv6'], ['IPv4', 'IPv6']),
        (input, clusterNodes, ipFamilies) => {
          const result = reconcile(service({ ipFamilies }), input, clusterNodes);
          for (const addressType of ['IPv4', 'IPv6']) {
            const unchanged = input.filter((s) => s.addressType === addressType);
            expect(removeAllHints({ toCreate: [], toUpdate: [], unchanged }).toUpdate).toEqual([]);
          }
          expect(result).toEqual({
            routing: 'None',
            hints: { state: 'none', reason: null },
            events: [],
            endpointSlices: input,
            rewrittenSlices: [],
            allocations: {},
            hintCounts: {},
          });
          result.endpointSlices.forEach((s, i) => expect(s).not.toBe(input[i]));
        },
      ),
      { numRuns: 300 },
    );
  });
});
