import { describe, expect, it } from 'vitest';
import { applyWhatIf } from '../src/what-if.js';
import { autoService, node, nodes, service, slice } from './fixtures.js';
import {
  analysisOf,
  expectKeptPromise,
  fixesFor,
  fixesOf,
  ownedBy,
  snapshotOf,
  threeEqualZones,
} from './recommendation-fixtures.js';

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
