import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeSnapshot, groupSlicesByService, type ServiceAnalysis } from '../src/analyze.js';
import type { EndpointSlice, Node, Service } from '../src/k8s-objects.js';
import { computeNodeInfo } from '../src/node-info.js';
import { autoRoutingPreview, withAutoRouting } from '../src/opportunity.js';
import { type OpportunityCandidate, rankOpportunities } from '../src/opportunity-ranking.js';
import { autoRoutingPreviews } from '../src/routing-previews.js';
import { crossZonePrice } from '../src/savings.js';
import { monthlyTrafficGb } from '../src/monthly-traffic.js';
import type { Snapshot } from '../src/snapshot-model.js';
import { parseSnapshot } from '../src/snapshots.js';
import { applyWhatIf } from '../src/what-if.js';
import { autoService, deepFreeze, nodes, service, slice } from './fixtures.js';

function snapshotOf(objects: { nodes: Node[]; services: Service[]; endpointSlices: EndpointSlice[] }): Snapshot {
  return parseSnapshot(structuredClone(objects));
}

function analysisOf(snapshot: Snapshot, namespace: string, name: string): ServiceAnalysis {
  const found = analyzeSnapshot(snapshot).services.find((s) => s.namespace === namespace && s.name === name);
  if (!found) throw new Error(`no service ${namespace}/${name}`);
  return found;
}

/** The preview of one Service of the snapshot, with the inputs `analyze` would use. */
function previewOf(snapshot: Snapshot, name = 'web', namespace = 'default') {
  const report = analyzeSnapshot(snapshot);
  const target = snapshot.services.find((s) => s.metadata.name === name && s.metadata.namespace === namespace);
  if (!target) throw new Error(`no service ${name}`);
  const slices = groupSlicesByService(snapshot.endpointSlices).get(`${namespace}/${name}`) ?? [];
  const origin = new Map(Object.entries(report.trafficOrigin.shares));
  return autoRoutingPreview(target, slices, computeNodeInfo(snapshot.nodes), origin);
}

/** The analysis of the same snapshot with `topology-mode: Auto` written on the Service by hand. */
function annotatedAnalysisOf(snapshot: Snapshot, name = 'web', namespace = 'default') {
  const services = snapshot.services.map((s) =>
    s.metadata.name === name && s.metadata.namespace === namespace ? withAutoRouting(s) : s,
  );
  const analysis = analysisOf({ ...snapshot, services }, namespace, name);
  return { state: analysis.hints.state, reason: analysis.hints.reason, crossZone: analysis.crossZone };
}

const threeEqualZones = nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [4] });

describe('autoRoutingPreview: what topology-mode Auto would give', () => {
  it('3 endpoints over 3 equal zones: hints populated, nothing crosses zones any more', () => {
    const snapshot = deepFreeze(
      snapshotOf({
        nodes: threeEqualZones,
        services: [service()],
        endpointSlices: [slice('web-1', ['zone-a', 'zone-b', 'zone-c'])],
      }),
    );
    const preview = previewOf(snapshot);
    expect(preview).toEqual({ state: 'populated', reason: null, crossZone: { withoutHints: 2 / 3, withHints: 0 } });
    expect(preview).toEqual(annotatedAnalysisOf(snapshot));
    expect(analysisOf(snapshot, 'default', 'web').crossZone.withHints).toBeCloseTo(2 / 3, 12);
  });

  it('4 endpoints over 3 equal zones: the controller would refuse, with its overload message', () => {
    const snapshot = snapshotOf({
      nodes: threeEqualZones,
      services: [service()],
      endpointSlices: [slice('web-1', ['zone-a', 'zone-b', 'zone-c', 'zone-a'])],
    });
    const preview = previewOf(snapshot);
    expect(preview.state).toBe('removed');
    expect(preview.reason).toBe(
      'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones)',
    );
    expect(preview.crossZone.withHints).toBe(preview.crossZone.withoutHints);
    expect(preview).toEqual(annotatedAnalysisOf(snapshot));
  });

  it('equals the analysis with the annotation added through the what-if, too', () => {
    const snapshot = snapshotOf({
      nodes: nodes({ 'zone-1a': [12], 'zone-1b': [4] }),
      services: [service()],
      endpointSlices: [slice('web-1', ['zone-1a', 'zone-1a', 'zone-1a', 'zone-1b'])],
    });
    const enabled = applyWhatIf(snapshot, { enableRouting: [{ namespace: 'default', name: 'web', mode: 'Auto' }] });
    const analysis = analysisOf(enabled, 'default', 'web');
    expect(previewOf(snapshot)).toEqual({ state: 'populated', reason: null, crossZone: analysis.crossZone });
    expect(analysis.crossZone.withHints).toBe(0);
  });

  it('internalTrafficPolicy Local: hints may be written, but in-cluster traffic never crosses zones', () => {
    const local = service();
    local.spec!.internalTrafficPolicy = 'Local';
    const snapshot = snapshotOf({
      nodes: threeEqualZones,
      services: [local],
      endpointSlices: [slice('web-1', ['zone-a', 'zone-b', 'zone-c'])],
    });
    expect(previewOf(snapshot)).toEqual({
      state: 'populated',
      reason: null,
      crossZone: { withoutHints: 0, withHints: 0 },
    });
    expect(previewOf(snapshot)).toEqual(annotatedAnalysisOf(snapshot));
  });

  it('drops the deprecated annotation, which would otherwise keep the heuristic off', () => {
    const disabled = service({ annotations: { 'service.kubernetes.io/topology-aware-hints': 'Disabled' } });
    const snapshot = snapshotOf({
      nodes: threeEqualZones,
      services: [disabled],
      endpointSlices: [slice('web-1', ['zone-a', 'zone-b', 'zone-c'])],
    });
    expect(previewOf(snapshot).state).toBe('populated');
    expect(withAutoRouting(disabled).metadata.annotations).toEqual({ 'service.kubernetes.io/topology-mode': 'Auto' });
    expect(disabled.metadata.annotations).toEqual({ 'service.kubernetes.io/topology-aware-hints': 'Disabled' });
  });

  it('does not mutate the Service or its slices', () => {
    const target = deepFreeze(service());
    const slices = deepFreeze([slice('web-1', ['zone-a', 'zone-b', 'zone-c'])]);
    const info = computeNodeInfo(threeEqualZones);
    const origin = new Map([...(info.ratios ?? [])]);
    expect(autoRoutingPreview(target, slices, info, origin).state).toBe('populated');
    expect(slices[0].endpoints.every((endpoint) => endpoint.hints === undefined)).toBe(true);
  });

  it('property: the preview of a None Service equals the analysis of the snapshot with the annotation added', () => {
    const zoneNames = ['zone-a', 'zone-b', 'zone-c', 'zone-d'];
    const cluster = fc.record({
      cpus: fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 4 }),
      endpoints: fc.array(
        fc.record({ zone: fc.integer({ min: 0, max: 4 }), ready: fc.boolean(), stale: fc.boolean() }),
        { maxLength: 14 },
      ),
      twoSlices: fc.boolean(),
      local: fc.boolean(),
    });
    fc.assert(
      fc.property(cluster, ({ cpus, endpoints, twoSlices, local }) => {
        const zones = zoneNames.slice(0, cpus.length);
        const specs = endpoints.map((endpoint) => {
          const zone = endpoint.zone < zones.length ? zones[endpoint.zone] : undefined;
          return {
            zone,
            ready: endpoint.ready,
            // Hints a controller wrote while the annotation was on, before someone removed it.
            ...(endpoint.stale && zone ? { hints: [zone] } : {}),
          };
        });
        const half = twoSlices ? Math.ceil(specs.length / 2) : specs.length;
        const slices = [slice('web-1', specs.slice(0, half))];
        if (twoSlices) slices.push(slice('web-2', specs.slice(half)));
        const target = service();
        if (local) target.spec!.internalTrafficPolicy = 'Local';
        const snapshot = snapshotOf({
          nodes: nodes(Object.fromEntries(zones.map((zone, index) => [zone, [cpus[index]]]))),
          services: [target, autoService({ name: 'other' })],
          endpointSlices: slices,
        });
        expect(previewOf(snapshot)).toEqual(annotatedAnalysisOf(snapshot));
      }),
      { numRuns: 300 },
    );
  });
});

describe('autoRoutingPreviews: every Service without topology routing of a snapshot', () => {
  it('previews only the None Services, in the report’s order', () => {
    const snapshot = snapshotOf({
      nodes: threeEqualZones,
      services: [
        service({ name: 'web' }),
        autoService({ name: 'auto' }),
        service({ name: 'close', trafficDistribution: 'PreferClose' }),
        service({ name: 'api', namespace: 'shop' }),
      ],
      endpointSlices: [
        slice('web-1', ['zone-a', 'zone-b', 'zone-c']),
        slice('auto-1', ['zone-a', 'zone-b', 'zone-c'], { service: 'auto' }),
        slice('api-1', ['zone-a', 'zone-b'], { service: 'api', namespace: 'shop' }),
      ],
    });
    const previews = autoRoutingPreviews(snapshot, analyzeSnapshot(snapshot));
    expect(previews.map((entry) => [entry.namespace, entry.name, entry.preview.state, entry.preview.reason])).toEqual([
      ['default', 'web', 'populated', null],
      ['shop', 'api', 'removed', 'Insufficient number of endpoints (2 endpoints, 3 zones)'],
    ]);
    expect(previews[0].preview).toEqual(annotatedAnalysisOf(snapshot, 'web'));
    expect(previews[1].preview).toEqual(annotatedAnalysisOf(snapshot, 'api', 'shop'));
  });
});

describe('rankOpportunities', () => {
  const populated = (withHints: number) => ({
    state: 'populated' as const,
    reason: null,
    crossZone: { withoutHints: 2 / 3, withHints },
  });
  const candidate = (overrides: Partial<OpportunityCandidate> & { name: string }): OpportunityCandidate => ({
    namespace: 'default',
    routing: 'None',
    traffic: 100,
    crossZone: { withoutHints: 2 / 3, withHints: 2 / 3 },
    preview: populated(0),
    ...overrides,
  });

  it('ranks Services without routing whose hints would be populated, largest saving first, ties by name', () => {
    const ranked = rankOpportunities(
      [
        candidate({ name: 'small', traffic: 30 }),
        candidate({ name: 'big', traffic: 900 }),
        candidate({ name: 'b-tie', namespace: 'shop', traffic: 300 }),
        candidate({ name: 'a-tie', namespace: 'shop', traffic: 300 }),
        candidate({ name: 'a-tie', namespace: 'default', traffic: 300 }),
        candidate({
          name: 'blocked',
          traffic: 5000,
          preview: {
            state: 'removed',
            reason: 'Insufficient number of endpoints (2 endpoints, 3 zones)',
            crossZone: { withoutHints: 0.5, withHints: 0.5 },
          },
        }),
        candidate({ name: 'already-auto', routing: 'Auto', traffic: 5000 }),
        candidate({ name: 'prefer-close', routing: 'PreferClose', traffic: 5000 }),
      ],
      crossZonePrice({ cloud: 'aws', region: 'us-east-1' }),
    );
    expect(ranked.map((entry) => `${entry.namespace}/${entry.name}`)).toEqual([
      'default/big',
      'default/a-tie',
      'shop/a-tie',
      'shop/b-tie',
      'default/small',
    ]);
    // 900 GB × 2/3 = 600 GB crossing today, none with hints: 600 GB at $0.02 = $12.
    expect(ranked[0].missed.savings.crossZoneGb).toBeCloseTo(600, 9);
    expect(ranked[0].missed.savings.cost).toBeCloseTo(12, 9);
    expect(ranked[0].missed.inputs.priceSource).toBe('provider-region');
  });

  it('keeps the traffic provenance and ranks by GB saved when every cost is 0 (Azure)', () => {
    const ranked = rankOpportunities(
      [
        candidate({ name: 'estimated', traffic: monthlyTrafficGb({ readyEndpoints: 3 }) }),
        candidate({
          name: 'declared',
          traffic: monthlyTrafficGb({ explicitGb: 900, readyEndpoints: 3 }),
          preview: populated(0.5),
        }),
        candidate({ name: 'twin-b', traffic: 15 }),
        candidate({ name: 'twin-a', traffic: 15 }),
      ],
      crossZonePrice({ cloud: 'azure', region: 'westeurope' }),
    );
    // declared: 900 GB × (2/3 − 1/2) = 150 GB; estimated: 3 × 50 GB × 2/3 = 100 GB; twins: 10 GB each.
    expect(ranked.map((entry) => entry.name)).toEqual(['declared', 'estimated', 'twin-a', 'twin-b']);
    expect(ranked.map((entry) => entry.missed.savings.crossZoneGb)).toEqual([
      expect.closeTo(150, 9),
      expect.closeTo(100, 9),
      expect.closeTo(10, 9),
      expect.closeTo(10, 9),
    ]);
    expect(ranked.every((entry) => entry.missed.savings.cost === 0)).toBe(true);
    expect(ranked[1].missed.inputs).toMatchObject({ trafficSource: 'default-per-endpoint', estimate: true });
    expect(ranked[0].missed.inputs).toMatchObject({
      trafficSource: 'api',
      estimate: false,
      priceSource: 'provider-region',
    });
  });

  it('keeps a Service that would populate hints even when it saves nothing', () => {
    const ranked = rankOpportunities([candidate({ name: 'idle', traffic: 0 })], 0.02);
    expect(ranked).toHaveLength(1);
    expect(ranked[0].missed.savings).toEqual({ crossZoneGb: 0, cost: 0 });
  });
});
