/**
 * Per-version verdicts of the EndpointSlice controller, at every modelled minor from 1.27 to 1.35,
 * each against the upstream code of that release (k8s.io/endpointslice at the matching v0.x tag).
 */
import { describe, expect, it } from 'vitest';
import { analyzeSnapshot, type ServiceAnalysis } from '../src/analyze.js';
import type { EndpointSlice, Service } from '../src/k8s-objects.js';
import { endpointsForNode } from '../src/node-endpoints.js';
import type { Snapshot } from '../src/snapshot-model.js';
import { parseSnapshot } from '../src/snapshots.js';
import { type EndpointInput, nodes, service, slice, zoneHintsOf } from './fixtures.js';

const MINORS = [27, 28, 29, 30, 31, 32, 33, 34, 35];
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const DISABLED_EVENT = {
  type: 'Warning',
  reason: 'TopologyAwareHintsDisabled',
  message: 'Topology Aware Hints has been disabled, addressType: IPv4',
};

/** A Service selecting Pods (so the EndpointSlice controller manages it). */
function selecting(svc: Service): Service {
  (svc.spec as NonNullable<Service['spec']>).selector = { app: svc.metadata.name };
  return svc;
}

function snapshotOf(services: Service[], slices: EndpointSlice[]): Snapshot {
  const items = [...nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [4] }), ...services, ...slices];
  return parseSnapshot(structuredClone({ kind: 'List', items }));
}

function analysed(snapshot: Snapshot, minor: number): Record<string, ServiceAnalysis> {
  const report = analyzeSnapshot(snapshot, { kubernetesVersion: `1.${minor}` });
  return Object.fromEntries(report.services.map((entry) => [entry.name, entry]));
}

/** One ready endpoint per zone, each hinted for its own zone (and its own node, when asked). */
function ownZoneHinted(name: string, nodeHints = false): EndpointSlice {
  const endpoints: EndpointInput[] = ZONES.map((zone) => ({
    zone,
    nodeName: `${zone}-0`,
    hints: [zone],
    ...(nodeHints ? { nodeHints: [`${zone}-0`] } : {}),
  }));
  return slice(`${name}-1`, endpoints, { service: name });
}

/** The minor from which each trafficDistribution value is on by default (reconciler.go validTrafficDistribution). */
const HONOURED_FROM: Record<string, number> = { PreferClose: 31, PreferSameZone: 34, PreferSameNode: 34 };

describe('TopologyAwareHintsDisabled only for a Service the topology cache populated (reconciler.go HasPopulatedHints)', () => {
  const snapshot = snapshotOf(
    [
      selecting(service({ name: 'close', trafficDistribution: 'PreferClose' })),
      selecting(service({ name: 'same-zone', trafficDistribution: 'PreferSameZone' })),
      selecting(service({ name: 'same-node', trafficDistribution: 'PreferSameNode' })),
      selecting(service({ name: 'unknown-value', trafficDistribution: 'PreferRegion' })),
      selecting(service({ name: 'switched-off' })),
    ],
    [
      ownZoneHinted('close'),
      ownZoneHinted('same-zone'),
      ownZoneHinted('same-node', true),
      ownZoneHinted('unknown-value'),
      ownZoneHinted('switched-off'),
    ],
  );

  it.each(MINORS)(
    'v1.%i: a Service asking only through trafficDistribution gets no event, whether the version honours the value or removes its hints',
    (minor) => {
      const services = analysed(snapshot, minor);
      for (const [name, value] of [
        ['close', 'PreferClose'],
        ['same-zone', 'PreferSameZone'],
        ['same-node', 'PreferSameNode'],
      ] as const) {
        const entry = services[name];
        expect(entry.events, `${name} at 1.${minor}`).toEqual([]);
        const honoured = minor >= HONOURED_FROM[value];
        expect(entry.routing).toBe(honoured ? value : 'None');
        // Ignored: the hints are removed (utils.go RemoveHintsFromSlices); honoured: they are already right.
        expect(zoneHintsOf(entry.endpointSlices)).toEqual([honoured ? ZONES : [null, null, null]]);
        expect(entry.rewrittenSlices).toEqual(honoured ? [] : [`${name}-1`]);
      }
    },
  );

  it.each(MINORS)(
    'v1.%i: hints left by the CPU heuristic on a Service that no longer asks (or asks with a value upstream does not define): the event',
    (minor) => {
      const services = analysed(snapshot, minor);
      for (const name of ['switched-off', 'unknown-value']) {
        expect(services[name].events, `${name} at 1.${minor}`).toEqual([DISABLED_EVENT]);
        expect(zoneHintsOf(services[name].endpointSlices)).toEqual([[null, null, null]]);
      }
    },
  );
});

describe('PreferClose and a ready endpoint without a zone (trafficdist.go preferCloseHeuristic)', () => {
  /** Two ready endpoints per zone and one without a zone: 5 of 7 endpoints are in another zone for any client. */
  const endpoints: EndpointInput[] = [
    ...ZONES.flatMap((zone) => [0, 1].map(() => ({ zone, nodeName: `${zone}-0` }))),
    { nodeName: 'edge-0' },
  ];
  const snapshot = snapshotOf(
    [selecting(service({ name: 'close', trafficDistribution: 'PreferClose' }))],
    [slice('close-1', endpoints, { service: 'close' })],
  );
  const zoneHints = (entry: ServiceAnalysis) =>
    entry.endpointSlices[0].endpoints.map((endpoint) => endpoint.hints?.forZones?.map((hint) => hint.name) ?? null);
  const ownZones = ZONES.flatMap((zone) => [[zone], [zone]]);

  it.each(MINORS)('v1.%i', (minor) => {
    const close = analysed(snapshot, minor).close;
    const view = endpointsForNode(snapshot, 'zone-a-0', { computedHints: true, kubernetesVersion: `1.${minor}` })
      .services[0];
    expect(close.crossZone.withoutHints).toBeCloseTo(5 / 7, 12);
    if (minor <= 30) {
      // ServiceTrafficDistribution is off (alpha in 1.30): the value is ignored and no hint is written.
      expect(close.routing).toBe('None');
      expect(zoneHints(close)).toEqual([...ownZones.map(() => null), null]);
      expect(close.crossZone.withHints).toBeCloseTo(5 / 7, 12);
      expect(view.topologyFiltered).toBe(false);
    } else if (minor <= 32) {
      // v0.30.0 to v0.32.x: the endpoint without a zone is hinted for the zone "", so every ready endpoint
      // is hinted and kube-proxy on a zoned node keeps its own zone's endpoints.
      expect(close.routing).toBe('PreferClose');
      expect(close.hints).toEqual({ state: 'populated', reason: null });
      expect(zoneHints(close)).toEqual([...ownZones, ['']]);
      expect(close.crossZone.withHints).toBe(0);
      expect(view).toMatchObject({ topologyFiltered: true, topologyMode: 'PreferSameZone', reason: null });
      expect(view.clusterEndpoints).toHaveLength(2);
    } else {
      // v0.33.0 on: no zone, no zone hint; one unhinted ready endpoint makes kube-proxy fall back everywhere.
      expect(close.routing).toBe('PreferClose');
      expect(zoneHints(close)).toEqual([...ownZones, null]);
      expect(close.crossZone.withHints).toBeCloseTo(5 / 7, 12);
      expect(view).toMatchObject({
        topologyFiltered: false,
        reason: 'Ignoring same-zone topology hints for service since one or more endpoints is missing a zone hint',
      });
      expect(view.clusterEndpoints).toHaveLength(7);
    }
  });

  it.each(MINORS)(
    'v1.%i: kube-proxy on a node without a zone label filters on a "" hint only from 1.33 (topology.go topologyModeFromHints; canUseTopology before)',
    (minor) => {
      const hinted = ZONES.map((zone) => ({ zone, nodeName: `${zone}-0`, hints: [zone] }));
      const withUnlabelledNode = parseSnapshot(
        structuredClone({
          kind: 'List',
          items: [
            ...nodes({ 'zone-a': [4], 'zone-b': [4] }),
            { ...nodes({ x: [4] })[0], metadata: { name: 'edge-0', labels: {} } },
            selecting(service({ name: 'close', trafficDistribution: 'PreferClose' })),
            slice('close-1', [...hinted, { nodeName: 'edge-0', hints: [''] }], { service: 'close' }),
          ],
        }),
      );
      const view = endpointsForNode(withUnlabelledNode, 'edge-0', { kubernetesVersion: `1.${minor}` }).services[0];
      if (minor >= 33) {
        expect(view).toMatchObject({ topologyFiltered: true, topologyMode: 'PreferSameZone' });
        expect(view.clusterEndpoints).toHaveLength(1);
      } else {
        expect(view.topologyFiltered).toBe(false);
        expect(view.clusterEndpoints).toHaveLength(4);
      }
    },
  );
});
