import { describe, expect, it } from 'vitest';
import { analyzeSnapshot, type ServiceAnalysis } from '../src/analyze.js';
import type { Endpoint, EndpointSlice, Node, Service } from '../src/k8s-objects.js';
import type { Snapshot } from '../src/snapshot-model.js';
import { parseSnapshot } from '../src/snapshots.js';
import { applyWhatIf } from '../src/what-if.js';
import { WHAT_IF_LIMITS, WhatIfError, parseWhatIf } from '../src/what-if-document.js';
import { autoService, deepFreeze, nodes, service, slice } from './fixtures.js';

function snapshotOf(objects: { nodes: Node[]; services: Service[]; endpointSlices: EndpointSlice[] }): Snapshot {
  return parseSnapshot(structuredClone(objects));
}

function only(snapshot: Snapshot, name = 'web'): ServiceAnalysis {
  const found = analyzeSnapshot(snapshot).services.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found;
}

const OVERLOAD_MESSAGE =
  'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones)';
const threeEqualZones = nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [4] });
const fourZones = nodes({ 'zone-1a': [10], 'zone-1b': [10], 'zone-1c': [10], 'zone-1d': [10] });

/** The EKS walkthrough before the zone loss: one endpoint per zone, hints as the controller wrote them. */
function eksBefore(): Snapshot {
  const initial = snapshotOf({
    nodes: fourZones,
    services: [autoService()],
    endpointSlices: [slice('web-1', ['zone-1a', 'zone-1b', 'zone-1c', 'zone-1d'])],
  });
  const written = only(initial).endpointSlices;
  expect(written[0].endpoints.every((endpoint) => endpoint.hints?.forZones?.length === 1)).toBe(true);
  return snapshotOf({ nodes: fourZones, services: [autoService()], endpointSlices: written });
}

describe('removeZoneNodes: the EKS zone-loss walkthrough', () => {
  it('zone-1d is lost and its pod is rescheduled to zone-1a: the same analysis as the hand-built cluster', () => {
    const before = deepFreeze(eksBefore());
    const after = applyWhatIf(before, { removeZoneNodes: [{ zone: 'zone-1d', reschedule: true }] });

    const handBuilt = snapshotOf({
      nodes: fourZones.filter((node) => node.metadata.labels?.['topology.kubernetes.io/zone'] !== 'zone-1d'),
      services: [autoService()],
      endpointSlices: [
        {
          ...before.endpointSlices[0],
          endpoints: before.endpointSlices[0].endpoints.map((endpoint) => {
            if (endpoint.zone !== 'zone-1d') return endpoint;
            const { hints: _hints, ...rest } = endpoint;
            return { ...rest, zone: 'zone-1a', nodeName: 'zone-1a-0' };
          }),
        },
      ],
    });
    expect(analyzeSnapshot(after)).toEqual(analyzeSnapshot(handBuilt));
    const web = only(after);
    expect(web.hints).toEqual({ state: 'removed', reason: OVERLOAD_MESSAGE });
    expect(web.drift.observedHints).toBe(true);
    expect(after.nodes.map((node) => node.metadata.name)).toEqual(['zone-1a-0', 'zone-1b-0', 'zone-1c-0']);
  });

  it('without reschedule the pod is dropped: 3 endpoints over 3 zones keep hints', () => {
    const after = applyWhatIf(deepFreeze(eksBefore()), { removeZoneNodes: [{ zone: 'zone-1d' }] });
    expect(after.endpointSlices[0].endpoints.map((endpoint) => endpoint.zone)).toEqual([
      'zone-1a',
      'zone-1b',
      'zone-1c',
    ]);
    const web = only(after);
    expect(web.hints.state).toBe('populated');
    expect(web.readyEndpoints).toBe(3);
  });

  it('rescheduled pods go round-robin over the remaining zones, per Service, first zone first', () => {
    const before = snapshotOf({
      nodes: nodes({ 'zone-a': [4, 4], 'zone-b': [4], 'zone-c': [4], 'zone-d': [4] }),
      services: [service(), service({ name: 'api' })],
      endpointSlices: [
        slice('web-1', ['zone-d', 'zone-d', 'zone-d', 'zone-d', 'zone-a']),
        slice('api-1', ['zone-d'], { service: 'api' }),
      ],
    });
    const after = applyWhatIf(before, { removeZoneNodes: [{ zone: 'zone-d', reschedule: true }] });
    const placed = (endpoints: Endpoint[]) => endpoints.map((endpoint) => `${endpoint.zone}@${endpoint.nodeName}`);
    expect(placed(after.endpointSlices[0].endpoints)).toEqual([
      'zone-a@zone-a-0',
      'zone-b@zone-b-0',
      'zone-c@zone-c-0',
      'zone-a@zone-a-1',
      'zone-a@undefined',
    ]);
    expect(placed(after.endpointSlices[1].endpoints)).toEqual(['zone-a@zone-a-0']);
    expect(after.endpointSlices[0].endpoints.map((endpoint) => endpoint.addresses[0])).toEqual(
      before.endpointSlices[0].endpoints.map((endpoint) => endpoint.addresses[0]),
    );
  });

  it('a removed zone leaves the zone traffic weights', () => {
    const before = parseSnapshot({
      kind: 'List',
      metadata: { annotations: { 'zonewise.io/zone-traffic-weights': 'zone-a=2,zone-b=1,zone-c=1' } },
      items: structuredClone(threeEqualZones),
    });
    expect(applyWhatIf(before, { removeZoneNodes: [{ zone: 'zone-c' }] }).zoneTrafficWeights).toEqual({
      'zone-a': 2,
      'zone-b': 1,
    });
    expect(before.zoneTrafficWeights).toEqual({ 'zone-a': 2, 'zone-b': 1, 'zone-c': 1 });
  });
});

describe('scaleReplicas', () => {
  const fourOverThree = () =>
    snapshotOf({
      nodes: threeEqualZones,
      services: [autoService()],
      endpointSlices: [slice('web-1', ['zone-a', 'zone-b', 'zone-c', 'zone-a'])],
    });

  it('4 endpoints over 3 zones, +1 in zone-b and +1 in zone-c: hints populated, as in the hand-built cluster', () => {
    const before = deepFreeze(fourOverThree());
    expect(only(before).hints).toEqual({ state: 'removed', reason: OVERLOAD_MESSAGE });
    const after = applyWhatIf(before, {
      scaleReplicas: [
        { namespace: 'default', name: 'web', zone: 'zone-b', delta: 1 },
        { namespace: 'default', name: 'web', zone: 'zone-c', delta: 1 },
      ],
    });
    const added = (address: string, zone: string): Endpoint => ({
      addresses: [address],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: `${zone}-0`,
      zone,
    });
    const handBuilt = snapshotOf({
      nodes: threeEqualZones,
      services: [autoService()],
      endpointSlices: [
        {
          ...before.endpointSlices[0],
          endpoints: [
            ...before.endpointSlices[0].endpoints,
            added('100.64.0.1', 'zone-b'),
            added('100.64.0.2', 'zone-c'),
          ],
        },
      ],
    });
    expect(analyzeSnapshot(after)).toEqual(analyzeSnapshot(handBuilt));
    const web = only(after);
    expect(web.hints.state).toBe('populated');
    expect(Object.values(web.zones).map((zone) => zone.allocated)).toEqual([2, 2, 2]);
    expect(web.crossZone.withHints).toBe(0);
  });

  it('a negative delta removes ready endpoints of the zone, last first', () => {
    const before = deepFreeze(fourOverThree());
    const after = applyWhatIf(before, {
      scaleReplicas: [{ namespace: 'default', name: 'web', zone: 'zone-a', delta: -1 }],
    });
    expect(after.endpointSlices[0].endpoints).toEqual(before.endpointSlices[0].endpoints.slice(0, 3));
    expect(only(after).hints.state).toBe('populated');
  });

  it('new endpoints fill the last slice up to 100, then go to a new slice with the Service’s labels', () => {
    const full = slice(
      'web-1',
      Array.from({ length: 99 }, (_, index) => ['zone-a', 'zone-b', 'zone-c'][index % 3]),
    );
    const before = deepFreeze(
      snapshotOf({ nodes: threeEqualZones, services: [autoService()], endpointSlices: [full] }),
    );
    const after = applyWhatIf(before, {
      scaleReplicas: [{ namespace: 'default', name: 'web', zone: 'zone-a', delta: 3 }],
    });
    expect(after.endpointSlices.map((s) => [s.metadata.name, s.endpoints.length])).toEqual([
      ['web-1', 100],
      ['web-whatif-1', 2],
    ]);
    const created = after.endpointSlices[1];
    // A snapshot whose slices carry no managed-by label gets none on the new slice either (slice-management.ts).
    expect(created.metadata).toEqual({
      name: 'web-whatif-1',
      namespace: 'default',
      labels: { 'kubernetes.io/service-name': 'web' },
    });
    expect(created.ports).toEqual(full.ports);
    expect(only(after).readyEndpoints).toBe(102);
  });

  it('in a snapshot labelling its slices, the new slice carries the controller’s managed-by label', () => {
    const full = slice(
      'web-1',
      Array.from({ length: 100 }, (_, index) => ['zone-a', 'zone-b', 'zone-c'][index % 3]),
    );
    full.metadata.labels!['endpointslice.kubernetes.io/managed-by'] = 'endpointslice-controller.k8s.io';
    const before = deepFreeze(
      snapshotOf({ nodes: threeEqualZones, services: [autoService()], endpointSlices: [full] }),
    );
    const after = applyWhatIf(before, {
      scaleReplicas: [{ namespace: 'default', name: 'web', zone: 'zone-a', delta: 1 }],
    });
    expect(after.endpointSlices[1].metadata.labels).toEqual({
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(only(after).readyEndpoints).toBe(101);
  });

  it('synthesized addresses skip every address already in the snapshot, and never repeat', () => {
    const taken = slice('web-1', ['zone-a', 'zone-b', 'zone-c']);
    taken.endpoints[0].addresses = ['100.64.0.1'];
    taken.endpoints[1].addresses = ['100.64.0.3'];
    const other = slice('api-1', ['zone-a'], { service: 'api' });
    other.endpoints[0].addresses = ['100.64.0.4'];
    const after = applyWhatIf(
      snapshotOf({
        nodes: threeEqualZones,
        services: [autoService(), service({ name: 'api' })],
        endpointSlices: [taken, other],
      }),
      {
        scaleReplicas: [
          { namespace: 'default', name: 'web', zone: 'zone-a', delta: 2 },
          { namespace: 'default', name: 'api', zone: 'zone-b', delta: 1 },
        ],
      },
    );
    expect(after.endpointSlices[0].endpoints.slice(3).map((endpoint) => endpoint.addresses[0])).toEqual([
      '100.64.0.2',
      '100.64.0.5',
    ]);
    expect(after.endpointSlices[1].endpoints[1].addresses).toEqual(['100.64.0.6']);
  });

  it('replicas go round-robin over the zone’s ready worker nodes', () => {
    const after = applyWhatIf(
      snapshotOf({
        nodes: nodes({ 'zone-a': [4, 4, 4], 'zone-b': [4] }),
        services: [service()],
        endpointSlices: [slice('web-1', ['zone-b'])],
      }),
      { scaleReplicas: [{ namespace: 'default', name: 'web', zone: 'zone-a', delta: 4 }] },
    );
    expect(after.endpointSlices[0].endpoints.slice(1).map((endpoint) => endpoint.nodeName)).toEqual([
      'zone-a-0',
      'zone-a-1',
      'zone-a-2',
      'zone-a-0',
    ]);
  });

  it('a dual-stack Service gets the replica in both families; a Service without slices gets a new one', () => {
    const dual = service({ ipFamilies: ['IPv4', 'IPv6'] });
    const after = applyWhatIf(
      snapshotOf({
        nodes: threeEqualZones,
        services: [dual, service({ name: 'empty' })],
        endpointSlices: [slice('web-v4', ['zone-a']), slice('web-v6', ['zone-a'], { addressType: 'IPv6' })],
      }),
      {
        scaleReplicas: [
          { namespace: 'default', name: 'web', zone: 'zone-b', delta: 1 },
          { namespace: 'default', name: 'empty', zone: 'zone-c', delta: 1 },
        ],
      },
    );
    expect(
      after.endpointSlices.map((s) => [s.metadata.name, s.addressType, s.endpoints.map((e) => e.addresses[0])]),
    ).toEqual([
      ['web-v4', 'IPv4', [expect.any(String), '100.64.0.1']],
      ['web-v6', 'IPv6', [expect.any(String), 'fd00:7a77::1']],
      ['empty-whatif-1', 'IPv4', ['100.64.0.2']],
    ]);
    expect(after.endpointSlices[2].ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP' }]);
  });
});

describe('enableRouting', () => {
  const objects = () => ({
    nodes: threeEqualZones,
    services: [service()],
    endpointSlices: [slice('web-1', ['zone-a', 'zone-b', 'zone-c'])],
  });

  it('Auto: the same analysis as the Service with the annotation written by hand', () => {
    const before = deepFreeze(snapshotOf(objects()));
    const after = applyWhatIf(before, { enableRouting: [{ namespace: 'default', name: 'web', mode: 'Auto' }] });
    const handBuilt = snapshotOf({ ...objects(), services: [autoService()] });
    expect(analyzeSnapshot(after)).toEqual(analyzeSnapshot(handBuilt));
    expect(only(after).hints.state).toBe('populated');
    expect(only(before).routing).toBe('None');
  });

  it('Auto also drops the deprecated annotation, which would win by presence', () => {
    const disabled = service({ annotations: { 'service.kubernetes.io/topology-aware-hints': 'disabled' } });
    const after = applyWhatIf(snapshotOf({ ...objects(), services: [disabled] }), {
      enableRouting: [{ namespace: 'default', name: 'web', mode: 'Auto' }],
    });
    expect(after.services[0].metadata.annotations).toEqual({ 'service.kubernetes.io/topology-mode': 'Auto' });
    expect(only(after).routing).toBe('Auto');
  });

  it('a trafficDistribution mode sets the field and drops the annotations; None drops everything', () => {
    const auto = snapshotOf({ ...objects(), services: [autoService({ trafficDistribution: 'PreferClose' })] });
    const preferSameZone = applyWhatIf(auto, {
      enableRouting: [{ namespace: 'default', name: 'web', mode: 'PreferSameZone' }],
    });
    expect(preferSameZone.services[0].spec?.trafficDistribution).toBe('PreferSameZone');
    expect(preferSameZone.services[0].metadata.annotations).toEqual({});
    expect(only(preferSameZone).routing).toBe('PreferSameZone');

    const none = applyWhatIf(auto, { enableRouting: [{ namespace: 'default', name: 'web', mode: 'None' }] });
    expect(none.services[0].spec).not.toHaveProperty('trafficDistribution');
    expect(only(none).routing).toBe('None');
    expect(auto.services[0].spec?.trafficDistribution).toBe('PreferClose');
  });

  it('turning Auto off where hints were written: the controller reports that it disabled them', () => {
    const written = only(snapshotOf({ ...objects(), services: [autoService()] })).endpointSlices;
    const after = applyWhatIf(snapshotOf({ ...objects(), services: [autoService()], endpointSlices: written }), {
      enableRouting: [{ namespace: 'default', name: 'web', mode: 'None' }],
    });
    expect(only(after).events.map((event) => event.message)).toEqual([
      'Topology Aware Hints has been disabled, addressType: IPv4',
    ]);
  });
});

describe('applyWhatIf: inputs and bounds', () => {
  it('never mutates the snapshot, and always answers a new one', () => {
    const before = eksBefore();
    const copy = structuredClone(before);
    deepFreeze(before);
    const after = applyWhatIf(before, {
      removeZoneNodes: [{ zone: 'zone-1d', reschedule: true }],
      scaleReplicas: [{ namespace: 'default', name: 'web', zone: 'zone-1b', delta: 2 }],
      enableRouting: [{ namespace: 'default', name: 'web', mode: 'PreferClose' }],
    });
    expect(before).toEqual(copy);
    expect(after).not.toBe(before);
    expect(after.endpointSlices[0]).not.toBe(before.endpointSlices[0]);
    const untouched = applyWhatIf(before, undefined);
    expect(untouched).toEqual(before);
    expect(untouched).not.toBe(before);
    expect(untouched.nodes).not.toBe(before.nodes);
    expect(applyWhatIf(before, null)).toEqual(before);
    expect(applyWhatIf(before, {})).toEqual(before);
  });

  const snapshot = () =>
    snapshotOf({
      nodes: threeEqualZones,
      services: [service()],
      endpointSlices: [slice('web-1', ['zone-a', 'zone-b', 'zone-c'])],
    });
  const web = { namespace: 'default', name: 'web' };

  it.each([
    ['nope', 'whatIf: expected an object with enableRouting, scaleReplicas, removeZoneNodes, got the string "nope"'],
    [[], 'whatIf: expected an object with enableRouting, scaleReplicas, removeZoneNodes, got an array'],
    [{ scale: [] }, 'whatIf.scale: unknown field (expected enableRouting, scaleReplicas, removeZoneNodes)'],
    [{ enableRouting: {} }, 'whatIf.enableRouting: expected an array, got an object'],
    [{ enableRouting: [7] }, 'whatIf.enableRouting[0]: expected an object, got 7'],
    [
      { enableRouting: [{ ...web, mode: 'auto' }] },
      'whatIf.enableRouting[0].mode: expected one of Auto, PreferClose, PreferSameZone, PreferSameNode, None, got the string "auto"',
    ],
    [
      {
        enableRouting: [
          { ...web, mode: 'Auto' },
          { namespace: 'shop', name: 'cart', mode: 'Auto' },
        ],
      },
      'whatIf.enableRouting[1]: no Service shop/cart in the snapshot',
    ],
    [
      { enableRouting: [{ name: 'web', mode: 'Auto' }] },
      'whatIf.enableRouting[0].namespace: expected a non-empty string, got nothing',
    ],
    [
      { enableRouting: [{ ...web, mode: 'Auto', replicas: 3 }] },
      'whatIf.enableRouting[0].replicas: unknown field (expected namespace, name, mode)',
    ],
    [
      { scaleReplicas: [{ ...web, zone: 'zone-a', delta: 1.5 }] },
      'whatIf.scaleReplicas[0].delta: expected a whole number, got 1.5',
    ],
    [
      { scaleReplicas: [{ ...web, zone: 'zone-a', delta: '2' }] },
      'whatIf.scaleReplicas[0].delta: expected a whole number, got the string "2"',
    ],
    [
      { scaleReplicas: [{ ...web, zone: 'zone-a', delta: 10_001 }] },
      'whatIf.scaleReplicas[0].delta: expected a whole number between -10000 and 10000, got 10001',
    ],
    [
      {
        scaleReplicas: [
          { ...web, zone: 'zone-a', delta: 6000 },
          { ...web, zone: 'zone-b', delta: 6000 },
        ],
      },
      'whatIf.scaleReplicas: adds 12000 endpoints in total; at most 10000 can be added',
    ],
    [
      { scaleReplicas: [{ namespace: 'default', name: 'cart', zone: 'zone-a', delta: 1 }] },
      'whatIf.scaleReplicas[0]: no Service default/cart in the snapshot',
    ],
    [
      { scaleReplicas: [{ ...web, zone: 'zone-x', delta: 1 }] },
      'whatIf.scaleReplicas[0].zone: no ready worker node in zone "zone-x" to add replicas on',
    ],
    [
      { scaleReplicas: [{ ...web, zone: 'zone-a', delta: -2 }] },
      'whatIf.scaleReplicas[0].delta: cannot remove 2 endpoints: Service default/web has 1 ready IPv4 endpoint in zone "zone-a"',
    ],
    [
      { removeZoneNodes: [{ zone: 'zone-x' }] },
      'whatIf.removeZoneNodes[0].zone: no node in zone "zone-x" in the snapshot',
    ],
    [
      { removeZoneNodes: [{ zone: 'zone-a' }, { zone: 'zone-a' }] },
      'whatIf.removeZoneNodes[1].zone: zone "zone-a" is listed twice',
    ],
    [
      { removeZoneNodes: [{ zone: 'zone-a', reschedule: 'yes' }] },
      'whatIf.removeZoneNodes[0].reschedule: expected true or false, got the string "yes"',
    ],
    [
      { removeZoneNodes: [{ zone: 'zone-a' }, { zone: 'zone-b' }, { zone: 'zone-c', reschedule: true }] },
      'whatIf.removeZoneNodes[2].reschedule: no ready worker node is left in another zone to reschedule onto',
    ],
    [
      { removeZoneNodes: [{ zone: 'zone-a' }], scaleReplicas: [{ ...web, zone: 'zone-a', delta: 1 }] },
      'whatIf.scaleReplicas[0].zone: no ready worker node in zone "zone-a" to add replicas on',
    ],
  ])('rejects %j naming the path', (whatIf, message) => {
    const before = deepFreeze(snapshot());
    let caught: unknown;
    try {
      applyWhatIf(before, whatIf);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WhatIfError);
    expect((caught as WhatIfError).message).toBe(message);
    expect((caught as WhatIfError).path).toBe(message.slice(0, message.indexOf(':')));
  });

  it('bounds the number of entries per list', () => {
    const entries = Array.from({ length: WHAT_IF_LIMITS.entries + 1 }, () => ({ zone: 'zone-a' }));
    expect(() => parseWhatIf({ removeZoneNodes: entries })).toThrow(
      'whatIf.removeZoneNodes: has 1001 entries; at most 1000 are allowed',
    );
  });
});
