import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AnalysisReport, analyzeSnapshot, type ServiceAnalysis } from '../src/analyze.js';
import type { EndpointSlice, Node, OwnedObject, Service } from '../src/k8s-objects.js';
import {
  type Recommendation,
  recommendFixes,
  type RecommendOptions,
  type SnapshotRecommendations,
} from '../src/recommendations.js';
import { fixContextFromReport, trafficDistributionOfferedBy } from '../src/fix-context.js';
import { crossZonePrice } from '../src/savings.js';
import { monthlyTrafficGb } from '../src/monthly-traffic.js';
import type { Snapshot } from '../src/snapshot-model.js';
import { parseSnapshot } from '../src/snapshots.js';
import { applyWhatIf } from '../src/what-if.js';
import { autoService, node, nodes, type PodOwner, podsOwnedBy, service, slice } from './fixtures.js';

function snapshotOf(objects: {
  nodes: Node[];
  services: Service[];
  endpointSlices: EndpointSlice[];
  pods?: OwnedObject[];
  replicaSets?: OwnedObject[];
}): Snapshot {
  return parseSnapshot(structuredClone(objects));
}

/** The snapshot's objects with every endpoint's Pod owned by `owner` (see podsOwnedBy). */
function ownedBy<T extends { endpointSlices: EndpointSlice[] }>(objects: T, owner: PodOwner) {
  return { ...objects, ...podsOwnedBy(objects.endpointSlices, () => owner) };
}

function analysisOf(snapshot: Snapshot, name = 'web'): ServiceAnalysis {
  const found = analyzeSnapshot(snapshot).services.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found;
}

function fixesOf(snapshot: Snapshot, options: RecommendOptions = {}): SnapshotRecommendations {
  return recommendFixes(snapshot, analyzeSnapshot(snapshot), options);
}

function fixesFor(snapshot: Snapshot, name = 'web', options: RecommendOptions = {}): Recommendation[] {
  const found = fixesOf(snapshot, options).services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found.recommendations;
}

const PRICE = crossZonePrice({});

function withoutNodes(snapshot: Snapshot, names: readonly string[]): Snapshot {
  return { ...snapshot, nodes: snapshot.nodes.filter((entry) => !names.includes(entry.metadata.name)) };
}

/** The promise of one fix checked against `analyze` of the snapshot with its what-if applied. */
function expectKeptPromise(given: Snapshot, name: string, fix: Recommendation): void {
  if (fix.whatIf === null) return;
  // A nodes fix promises what happens once its nodes are out of the controller's count.
  const snapshot = fix.nodes === undefined ? given : withoutNodes(given, fix.nodes);
  const before = analysisOf(snapshot, name);
  const after = analysisOf(applyWhatIf(snapshot, fix.whatIf), name);
  expect(after.hints.state).toBe(fix.resultingState);
  if (fix.resultingState !== 'populated') return;
  expect(after.crossZone.withHints).toBe(fix.crossZone.withHints);
  for (const [zone, overload] of Object.entries(fix.expectedOverload)) {
    expect(after.zones[zone]?.expectedOverload).toBe(overload);
  }
  const service = snapshot.services.find((entry) => entry.metadata.name === name);
  const traffic = monthlyTrafficGb({
    annotations: service?.metadata.annotations,
    readyEndpoints: before.readyEndpoints,
  });
  // Against today: with the blocking nodes in place the controller writes no hints, so every request
  // spreads over all endpoints.
  const today = fix.nodes === undefined ? before.crossZone.withHints : before.crossZone.withoutHints;
  const saved = traffic.gb * (today - after.crossZone.withHints);
  expect(fix.savings.crossZoneGb).toBeCloseTo(saved, 9);
  expect(fix.savings.cost).toBeCloseTo(saved * PRICE.pricePerGb, 9);
}

const threeEqualZones = nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [4] });

describe('three equal zones at 4 endpoints', () => {
  const snapshot = snapshotOf(
    ownedBy(
      {
        nodes: threeEqualZones,
        services: [autoService()],
        endpointSlices: [slice('web-1', ['zone-a', 'zone-a', 'zone-b', 'zone-c'])],
      },
      { kind: 'Deployment', name: 'web-server' },
    ),
  );

  it('two more endpoints, one in each short zone, come first; PreferSameZone follows with its 33 % overload', () => {
    const fixes = fixesFor(snapshot);
    expect(fixes.map((fix) => fix.kind)).toEqual(['replicas', 'trafficDistribution']);
    const [replicas, distribution] = fixes;
    expect(replicas.endpointsToAdd).toEqual({ 'zone-b': 1, 'zone-c': 1 });
    expect(replicas.resultingState).toBe('populated');
    expect(replicas.crossZone.withHints).toBe(0);
    expect(replicas.overloadAboveThreshold).toBe(false);
    expect(replicas.workload).toEqual({ kind: 'Deployment', namespace: 'default', name: 'web-server' });
    expect(replicas.patch).toContain('kubectl scale deployment/web-server -n default --replicas=6');
    expect(replicas.patch).toContain('maxSkew: 1');
    expect(distribution.trafficDistribution).toBe('PreferSameZone');
    expect(distribution.crossZone.withHints).toBe(0);
    expect(Math.max(...Object.values(distribution.expectedOverload))).toBeCloseTo(1 / 3, 12);
    expect(distribution.overloadAboveThreshold).toBe(true);
    expect(distribution.summary).toContain('33 %');
    for (const fix of fixes) expectKeptPromise(snapshot, 'web', fix);
  });

  it('5 endpoints still fail wherever the fifth goes; 6 work', () => {
    for (const zone of ['zone-a', 'zone-b', 'zone-c']) {
      const five = applyWhatIf(snapshot, { scaleReplicas: [{ namespace: 'default', name: 'web', zone, delta: 1 }] });
      expect(analysisOf(five).hints.state).toBe('removed');
    }
  });
});

describe("the EKS walkthrough's clusters", () => {
  const twelveToFour = nodes({ 'zone-1a': [12], 'zone-1b': [4] });

  it('12 and 4 vCPU: 2 endpoints get one more in the big zone; 4 endpoints already route in-zone', () => {
    const two = snapshotOf({
      nodes: twelveToFour,
      services: [autoService()],
      endpointSlices: [slice('web-1', ['zone-1a', 'zone-1b'])],
    });
    const [replicas] = fixesFor(two);
    expect(replicas.kind).toBe('replicas');
    expect(replicas.endpointsToAdd).toEqual({ 'zone-1a': 1 });
    expect(replicas.crossZone.withHints).toBe(0);
    expectKeptPromise(two, 'web', replicas);

    const four = snapshotOf({
      nodes: twelveToFour,
      services: [autoService()],
      endpointSlices: [slice('web-1', ['zone-1a', 'zone-1a', 'zone-1a', 'zone-1b'])],
    });
    expect(fixesFor(four)).toEqual([]);
  });

  it('12 and 4 vCPU, 2 + 2 endpoints without routing: topology-mode alone re-hints one endpoint across; moving one crosses none', () => {
    const even = snapshotOf({
      nodes: twelveToFour,
      services: [service()],
      endpointSlices: [slice('web-1', ['zone-1a', 'zone-1b', 'zone-1a', 'zone-1b'])],
    });
    const fixes = fixesFor(even);
    const kinds = fixes.map((fix) => fix.kind);
    expect(kinds).toContain('topologyMode');
    const moved = fixes.find((fix) => fix.kind === 'replicas');
    expect(moved?.endpointsToAdd).toEqual({ 'zone-1a': 1, 'zone-1b': -1 });
    expect(moved?.crossZone.withHints).toBe(0);
    const topologyMode = fixes.find((fix) => fix.kind === 'topologyMode');
    expect(topologyMode?.crossZone.withHints).toBeGreaterThan(0);
    expect(topologyMode?.patch).toBe(
      'kubectl annotate service web -n default service.kubernetes.io/topology-mode=Auto --overwrite',
    );
    for (const fix of fixes) expectKeptPromise(even, 'web', fix);
  });

  it('four zones that lost one (its pod rescheduled to zone-1a): two more endpoints, in zone-1b and zone-1c', () => {
    const fourZones = nodes({ 'zone-1a': [10], 'zone-1b': [10], 'zone-1c': [10], 'zone-1d': [10] });
    const before = snapshotOf({
      nodes: fourZones,
      services: [autoService()],
      endpointSlices: [slice('web-1', ['zone-1a', 'zone-1b', 'zone-1c', 'zone-1d'])],
    });
    const lost = applyWhatIf(before, { removeZoneNodes: [{ zone: 'zone-1d', reschedule: true }] });
    expect(analysisOf(lost).hints.state).toBe('removed');
    const [first] = fixesFor(lost);
    expect(first.kind).toBe('replicas');
    expect(first.endpointsToAdd).toEqual({ 'zone-1b': 1, 'zone-1c': 1 });
    expectKeptPromise(lost, 'web', first);
  });
});

describe('cluster-wide blockers', () => {
  it('a ready node without a zone label disables hints for every Service: the fix names it, counts the Services and their savings', () => {
    const snapshot = snapshotOf({
      nodes: [...threeEqualZones, node({ name: 'stray', zone: null })],
      services: [autoService(), autoService({ name: 'api' }), service({ name: 'db' })],
      endpointSlices: [
        slice('web-1', ['zone-a', 'zone-b', 'zone-c']),
        slice('api-1', ['zone-a', 'zone-b', 'zone-c', 'zone-a', 'zone-b', 'zone-c'], { service: 'api' }),
        slice('db-1', ['zone-a'], { service: 'db' }),
      ],
    });
    const result = fixesOf(snapshot);
    expect(result.nodeBlockers?.nodes).toEqual([
      { name: 'stray', problem: 'no zone label', missingZone: true, zeroCpu: false },
    ]);
    // web and api as they are, db with two more endpoints and topology-mode Auto.
    expect(result.nodeBlockers?.services).toBe(3);
    const web = result.services.find((entry) => entry.name === 'web')?.recommendations ?? [];
    expect(web[0].kind).toBe('nodes');
    expect(web[0].nodes).toEqual(['stray']);
    expect(web[0].resultingState).toBe('populated');
    expect(web[0].patch).toContain('kubectl label node stray topology.kubernetes.io/zone=');
    const nodeFixes = result.services.flatMap((entry) =>
      entry.recommendations.filter((fix) => fix.kind === 'nodes').map((fix) => ({ name: entry.name, fix })),
    );
    const sum = nodeFixes.reduce((total, { fix }) => total + fix.savings.cost, 0);
    expect(result.nodeBlockers?.savings.cost).toBeCloseTo(sum, 12);
    for (const { name, fix } of nodeFixes) expectKeptPromise(snapshot, name, fix);
  });

  it('a one-zone cluster: nothing to gain; a Service asking for hints is told why, one without routing gets nothing', () => {
    const snapshot = snapshotOf({
      nodes: nodes({ 'zone-a': [4, 4] }),
      services: [autoService(), service({ name: 'plain' })],
      endpointSlices: [slice('web-1', ['zone-a', 'zone-a']), slice('plain-1', ['zone-a'], { service: 'plain' })],
    });
    const [why] = fixesFor(snapshot);
    expect(why).toMatchObject({ resultingState: 'removed', whatIf: null, savings: { crossZoneGb: 0, cost: 0 } });
    expect(why.summary).toBe(
      'Nothing to fix: no change zonewise knows of lowers the share of requests that cross zones (today, none or few do).',
    );
    expect(fixesFor(snapshot, 'plain')).toEqual([]);
  });
});

describe('stability across the endpoint counts seen', () => {
  it('a Service seen at 5, 6 and 7 endpoints over three equal zones gets the floor from which every count of that swing is allocated', () => {
    const snapshot = snapshotOf(
      ownedBy(
        {
          nodes: threeEqualZones,
          services: [autoService()],
          endpointSlices: [slice('web-1', ['zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-c'])],
        },
        { kind: 'Deployment', name: 'web' },
      ),
    );
    const history = new Map([['default/web', [5, 6, 7, 6]]]);
    const fixes = fixesFor(snapshot, 'web', { history });
    expect(fixes).toHaveLength(1);
    const [stability] = fixes;
    expect(stability.kind).toBe('replicas');
    expect(stability.stability?.countsSeen).toEqual([5, 6, 7]);
    const floor = stability.stability?.minReplicas ?? 0;
    // Brute force: every lower floor has a count in its swing that the controller refuses.
    const allocated = (count: number) => {
      const perZone = Math.floor(count / 3);
      const deltas = ['zone-a', 'zone-b', 'zone-c'].map((zone, index) => ({
        namespace: 'default',
        name: 'web',
        zone,
        delta: perZone + (index < count % 3 ? 1 : 0) - 2,
      }));
      return analysisOf(applyWhatIf(snapshot, { scaleReplicas: deltas.filter((entry) => entry.delta !== 0) })).hints
        .state;
    };
    for (let count = floor; count <= floor + 2; count++) expect(allocated(count)).toBe('populated');
    for (let lower = 5; lower < floor; lower++) {
      const states = [lower, lower + 1, lower + 2].map(allocated);
      expect(states).toContain('removed');
    }
    expect(stability.patch).toContain(`"minReplicas":${floor}`);
    expectKeptPromise(snapshot, 'web', stability);
  });
});

describe('version and data plane', () => {
  const snapshot = snapshotOf({
    nodes: threeEqualZones,
    services: [autoService()],
    endpointSlices: [slice('web-1', ['zone-a', 'zone-a', 'zone-b', 'zone-c'])],
  });

  it('a data path that ignores hints gets only the data-plane fix, never a topology-mode or replicas fix', () => {
    const fixes = fixesFor(snapshot, 'web', {
      contextOf: () => ({
        dataPathHonoursHints: false,
        dataPathReason: 'Cilium replaces kube-proxy with service topology off',
        dataPlaneFix: {
          summary: "Enable Cilium's service topology",
          patch: 'helm upgrade cilium cilium/cilium --reuse-values --set loadBalancer.serviceTopology=true',
        },
      }),
    });
    expect(fixes.map((fix) => fix.kind)).toEqual(['dataPlane']);
    expect(fixes[0].summary).toContain('service topology off');
  });

  it('a Service the controller does not manage never gets a fix that enables topology routing', () => {
    const fixes = fixesFor(snapshot, 'web', { contextOf: () => ({ managedByController: false }) });
    expect(fixes).toHaveLength(1);
    expect(fixes[0].whatIf).toBeNull();
    expect(fixes[0].resultingState).not.toBe('populated');
  });

  it('PreferClose where that is what the version offers; no trafficDistribution fix where it offers none', () => {
    const close = fixesFor(snapshot, 'web', { contextOf: () => ({ trafficDistributionOffered: 'PreferClose' }) });
    expect(close.find((fix) => fix.kind === 'trafficDistribution')?.trafficDistribution).toBe('PreferClose');
    const none = fixesFor(snapshot, 'web', { contextOf: () => ({ trafficDistributionOffered: null }) });
    expect(none.map((fix) => fix.kind)).toEqual(['replicas']);
  });
});

describe('version and data plane, as the analysis states them', () => {
  const snapshot = snapshotOf({
    nodes: threeEqualZones,
    services: [autoService(), autoService({ name: 'api' })],
    endpointSlices: [
      slice('web-1', ['zone-a', 'zone-a', 'zone-b', 'zone-c']),
      slice('api-1', ['zone-a', 'zone-a', 'zone-b', 'zone-c'], { service: 'api' }),
    ],
  });

  it('the trafficDistribution value each version offers', () => {
    expect(
      ['1.29', '1.30', '1.31', '1.33', '1.34', '1.35', 'v1.36.2', 'unknown'].map(trafficDistributionOfferedBy),
    ).toEqual([
      null,
      null,
      'PreferClose',
      'PreferClose',
      'PreferSameZone',
      'PreferSameZone',
      'PreferSameZone',
      'PreferSameZone',
    ]);
  });

  it('reads kubernetesVersion, dataPlane, managedBy and dataPath from the analysis when it carries them', () => {
    const report = analyzeSnapshot(snapshot);
    const versioned = {
      ...report,
      kubernetesVersion: '1.31',
      dataPlane: { name: 'cilium-no-topology', source: 'flag' },
      services: report.services.map((service) =>
        service.name === 'api'
          ? {
              ...service,
              managedBy: 'endpointslice-controller',
              dataPath: { honoursHints: false, reason: 'Cilium service topology is off' },
            }
          : { ...service, managedBy: 'endpointslice-controller', dataPath: { honoursHints: true, reason: null } },
      ),
    } as unknown as AnalysisReport;
    const fixes = recommendFixes(snapshot, versioned);
    const byName = Object.fromEntries(fixes.services.map((entry) => [entry.name, entry.recommendations]));
    expect(byName.web.map((fix) => fix.kind)).toEqual(['replicas', 'trafficDistribution']);
    expect(byName.web[1].trafficDistribution).toBe('PreferClose');
    expect(byName.api.map((fix) => fix.kind)).toEqual(['dataPlane']);
    expect(byName.api[0].patch).toContain('loadBalancer.serviceTopology=true');
    expect(byName.api[0].summary).toContain('Cilium service topology is off');
    const meshed = { ...versioned.services[0], managedBy: 'my-mesh' };
    expect(fixContextFromReport(versioned)(meshed)).toMatchObject({ managedByController: false });
  });

  it('on the default analysis (Kubernetes 1.35, kube-proxy): PreferSameZone offered, hints honoured', () => {
    const context = fixContextFromReport(analyzeSnapshot(snapshot));
    expect(context(analyzeSnapshot(snapshot).services[0])).toEqual({
      dataPathHonoursHints: true,
      dataPathReason: null,
      dataPlaneFix: null,
      managedByController: true,
      trafficDistributionOffered: 'PreferSameZone',
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Properties over random clusters
// ---------------------------------------------------------------------------------------------

const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d'];

const clusterArb = fc
  .record({
    zoneCount: fc.integer({ min: 2, max: 4 }),
    strayNode: fc.boolean(),
    cpus: fc.array(fc.constantFrom(2, 4, 8, 12, 16), { minLength: 4, maxLength: 4 }),
    services: fc.array(
      fc.record({
        auto: fc.boolean(),
        endpoints: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 9 }),
        split: fc.boolean(),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map(({ zoneCount, strayNode, cpus, services }) => {
    const zones = ZONES.slice(0, zoneCount);
    const clusterNodes = nodes(Object.fromEntries(zones.map((zone, index) => [zone, [cpus[index]]])));
    if (strayNode) clusterNodes.push(node({ name: 'stray', zone: null }));
    const objects = services.map((spec, index) => {
      const name = `svc-${index}`;
      const zoneList = spec.endpoints.map((position) => zones[position % zoneCount]);
      const half = spec.split ? Math.ceil(zoneList.length / 2) : zoneList.length;
      const parts = [zoneList.slice(0, half), zoneList.slice(half)].filter((part) => part.length > 0);
      return {
        service: spec.auto ? autoService({ name }) : service({ name }),
        slices: parts.map((part, at) => slice(`${name}-${at}`, part, { service: name })),
      };
    });
    return snapshotOf({
      nodes: clusterNodes,
      services: objects.map((entry) => entry.service),
      endpointSlices: objects.flatMap((entry) => entry.slices),
    });
  });

describe('properties', () => {
  it('every fix, applied through the what-if machinery, gives exactly the promised state, crossings, overloads and savings', () => {
    fc.assert(
      fc.property(clusterArb, (snapshot) => {
        for (const entry of fixesOf(snapshot).services) {
          for (const fix of entry.recommendations) expectKeptPromise(snapshot, entry.name, fix);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('minimality: no smaller addition, wherever it goes, gets hints written', () => {
    fc.assert(
      fc.property(clusterArb, (snapshot) => {
        const report = analyzeSnapshot(snapshot);
        for (const entry of recommendFixes(snapshot, report).services) {
          const fix = entry.recommendations.find(
            (candidate) => candidate.kind === 'replicas' && candidate.stability === undefined,
          );
          if (fix?.endpointsToAdd === undefined || fix.resultingState !== 'populated') continue;
          const added = Object.values(fix.endpointsToAdd).reduce((sum, delta) => sum + delta, 0);
          const zones = Object.keys(analyzeSnapshot(snapshot).trafficOrigin.shares);
          const routing = fix.whatIf?.enableRouting ?? [];
          for (let smaller = 0; smaller < added; smaller++) {
            for (const placement of placementsOf(zones, smaller)) {
              const scaleReplicas = placement.map(([zone, delta]) => ({
                namespace: entry.namespace,
                name: entry.name,
                zone,
                delta,
              }));
              const after = analysisOf(applyWhatIf(snapshot, { enableRouting: routing, scaleReplicas }), entry.name);
              expect(after.hints.state).not.toBe('populated');
            }
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('every Service whose hints are removed carries a fix that gets them written, or an entry saying why none does', () => {
    fc.assert(
      fc.property(clusterArb, (snapshot) => {
        const report = analyzeSnapshot(snapshot);
        const fixes = recommendFixes(snapshot, report);
        report.services.forEach((analysis, index) => {
          if (analysis.hints.state !== 'removed') return;
          const entries = fixes.services[index].recommendations;
          expect(entries.length).toBeGreaterThan(0);
          if (!entries.some((fix) => fix.resultingState === 'populated')) {
            expect(entries[0].summary.length).toBeGreaterThan(0);
          }
        });
      }),
      { numRuns: 40 },
    );
  });

  it('a Service that routes in-zone gets no fix', () => {
    fc.assert(
      fc.property(clusterArb, (snapshot) => {
        const report = analyzeSnapshot(snapshot);
        const fixes = recommendFixes(snapshot, report);
        report.services.forEach((analysis, index) => {
          if (analysis.hints.state === 'populated') expect(fixes.services[index].recommendations).toEqual([]);
        });
      }),
      { numRuns: 40 },
    );
  });
});

function placementsOf(zones: readonly string[], count: number): [string, number][][] {
  if (count === 0) return [[]];
  if (zones.length === 1) return [[[zones[0], count]]];
  const [first, ...rest] = zones;
  const result: [string, number][][] = [];
  for (let here = 0; here <= count; here++) {
    for (const tail of placementsOf(rest, count - here)) {
      result.push(here > 0 ? [[first, here], ...tail] : tail);
    }
  }
  return result;
}

describe('fixes at the version analysed: a ready endpoint without a zone (trafficdist.go preferCloseHeuristic)', () => {
  const endpoints = [...['zone-a', 'zone-b', 'zone-c'].flatMap((zone) => [{ zone }, { zone }]), { nodeName: 'edge-0' }];
  const at = (version: string) =>
    parseSnapshot(
      structuredClone({
        kind: 'List',
        metadata: { annotations: { 'zonewise.io/kubernetes-version': version } },
        items: [...threeEqualZones, service(), slice('web-1', endpoints)],
      }),
    );

  it('1.31–1.32 hint it for the zone "", so PreferClose keeps every zone in-zone; the promise holds', () => {
    for (const version of ['1.31', '1.32']) {
      const snapshot = at(version);
      const fix = fixesFor(snapshot).find((entry) => entry.kind === 'trafficDistribution');
      expect(fix, version).toMatchObject({
        trafficDistribution: 'PreferClose',
        resultingState: 'populated',
        crossZone: { withHints: 0 },
      });
      expectKeptPromise(snapshot, 'web', fix as Recommendation);
    }
  });

  it('from 1.33 the endpoint stays unhinted, kube-proxy falls back, and no trafficDistribution fix is offered', () => {
    for (const version of ['1.33', '1.35']) {
      expect(
        fixesFor(at(version)).filter((entry) => entry.kind === 'trafficDistribution'),
        version,
      ).toEqual([]);
    }
  });
});
