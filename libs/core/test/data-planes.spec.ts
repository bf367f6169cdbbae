import { describe, expect, it } from 'vitest';
import { analyzeSnapshot, type ServiceAnalysis } from '../src/analyze.js';
import { DATA_PLANE_NAMES, type DataPlaneName } from '../src/cluster-settings.js';
import { endpointsForNode } from '../src/node-endpoints.js';
import { crossZonePrice } from '../src/savings.js';
import { snapshotSavings } from '../src/snapshot-savings.js';
import { routingSnapshot } from './fixtures.js';

function byName(services: readonly ServiceAnalysis[]): Record<string, ServiceAnalysis> {
  return Object.fromEntries(services.map((entry) => [entry.name, entry]));
}

interface PlaneRow {
  dataPlane: DataPlaneName;
  source: string;
  /** Whether hints are honoured for: topology-mode Auto, topology-aware-hints Auto, PreferClose, a hand-hinted Service without either. */
  honours: [auto: boolean, legacy: boolean, close: boolean, handHinted: boolean];
  /** A phrase of the reason given when the PreferClose Service's hints are ignored. */
  reason?: string;
}

const PLANE_ROWS: PlaneRow[] = [
  {
    dataPlane: 'kube-proxy',
    source: 'kubernetes pkg/proxy/topology.go (v1.35): hints alone',
    honours: [true, true, true, true],
  },
  {
    dataPlane: 'cilium',
    source:
      'cilium#17929, docs "Traffic Distribution and Topology Aware Hints": KPR with loadBalancer.serviceTopology=true',
    honours: [true, true, true, true],
  },
  {
    dataPlane: 'cilium-no-topology',
    source: 'cilium docs: service topology is off unless loadBalancer.serviceTopology / enable-service-topology',
    honours: [false, false, false, false],
    reason: 'loadBalancer.serviceTopology',
  },
  {
    dataPlane: 'calico-ebpf',
    source: 'calico#11751: trafficDistribution and topology-mode in the eBPF kube-proxy',
    honours: [true, true, true, false],
  },
  {
    dataPlane: 'calico-ebpf-legacy',
    source: 'calico#7241 and calico#10430: hints only with topology-aware-hints Auto/auto',
    honours: [false, true, false, false],
    reason: 'topology-aware-hints: Auto',
  },
  {
    dataPlane: 'antrea',
    source: 'antrea#6604 (ServiceTrafficDistribution) and antrea#6607 (any enabling annotation value)',
    honours: [true, true, true, false],
  },
  {
    dataPlane: 'windows-kube-proxy',
    source: 'kubernetes#123823: winkernel proxier has no topology-aware routing (kubernetes#137953 open)',
    honours: [false, false, false, false],
    reason: 'winkernel',
  },
  {
    dataPlane: 'istio-sidecar',
    source: 'istio docs "Locality Load Balancing": the sidecar chooses endpoints itself',
    honours: [false, false, false, false],
    reason: 'Istio',
  },
  {
    dataPlane: 'linkerd',
    source: 'linkerd docs "Topology Aware Routing": forZones with the annotation; trafficDistribution not supported',
    honours: [true, true, false, false],
    reason: 'trafficDistribution',
  },
];

describe('data planes: each against its upstream source', () => {
  it('the table covers every data-plane name', () => {
    expect(PLANE_ROWS.map((row) => row.dataPlane).sort()).toEqual([...DATA_PLANE_NAMES].sort());
  });

  it.each(PLANE_ROWS)('$dataPlane ($source)', (row) => {
    const report = analyzeSnapshot(routingSnapshot(), { dataPlane: row.dataPlane });
    expect(report.dataPlane).toEqual({ name: row.dataPlane, source: 'flag' });
    const services = byName(report.services);
    const targets = [services.auto, services.legacy, services.close, services['hand-hinted']];
    expect(targets.map((entry) => entry.dataPath.honoursHints)).toEqual(row.honours);
    for (const entry of targets) {
      // Hints are still written (the controller does not know the data plane); they only count where honoured.
      expect(entry.crossZone.withoutHints).toBeCloseTo(2 / 3, 12);
      expect(entry.crossZone.withHints).toBeCloseTo(entry.dataPath.honoursHints ? 0 : 2 / 3, 12);
      expect(entry.kubeProxy).toEqual({ usesHints: entry.dataPath.honoursHints, reason: entry.dataPath.reason });
      expect(entry.dataPath.reason === null).toBe(entry.dataPath.honoursHints);
    }
    if (row.reason !== undefined) expect(services.close.dataPath.reason).toContain(row.reason);
    // Hints written but ignored: the PreferClose verdict holds for the PreferSameZone and PreferSameNode Services too.
    const [auto, legacy, close, handHinted] = row.honours;
    const ignored = [auto, legacy, close, close, close, handHinted].filter((honoured) => !honoured).length;
    expect(report.summary.servicesWithIgnoredHints).toBe(ignored);
  });

  it('the same snapshot gives different, correct verdicts for kube-proxy and cilium-no-topology', () => {
    const snapshot = routingSnapshot();
    const price = crossZonePrice({ cloud: 'aws', region: 'us-east-1' });
    const onKubeProxy = analyzeSnapshot(snapshot);
    const onCilium = analyzeSnapshot(snapshot, { dataPlane: 'cilium-no-topology' });
    expect(byName(onKubeProxy.services).auto.crossZone.withHints).toBe(0);
    expect(byName(onCilium.services).auto.crossZone.withHints).toBeCloseTo(2 / 3, 12);
    expect(onCilium.summary.crossZone.withHints).toBeCloseTo(onCilium.summary.crossZone.withoutHints, 12);

    const savedOnKubeProxy = snapshotSavings({ snapshot, report: onKubeProxy, price });
    const savedOnCilium = snapshotSavings({ snapshot, report: onCilium, price });
    expect(savedOnKubeProxy.totals.realizedSavings.cost).toBeGreaterThan(0);
    expect(savedOnCilium.totals.realizedSavings.cost).toBe(0);
    // `plain` could route in-zone on kube-proxy; on Cilium without service topology the annotation saves nothing.
    expect(savedOnKubeProxy.opportunities.map((entry) => entry.name)).toContain('plain');
    expect(savedOnCilium.opportunities).toEqual([]);
  });

  it('endpoints --node: a data plane that ignores hints programs every endpoint, and says why', () => {
    const snapshot = routingSnapshot();
    const auto = (dataPlane: DataPlaneName) =>
      endpointsForNode(snapshot, 'zone-a-0', { computedHints: true, dataPlane }).services.find(
        (entry) => entry.name === 'auto',
      );
    expect(auto('kube-proxy')).toMatchObject({ topologyFiltered: true, reason: null });
    expect(auto('kube-proxy')?.clusterEndpoints).toHaveLength(3);
    const ignored = auto('windows-kube-proxy');
    expect(ignored).toMatchObject({ topologyFiltered: false });
    expect(ignored?.clusterEndpoints).toHaveLength(9);
    expect(ignored?.reason).toContain('winkernel');
  });

  it('the snapshot annotation names the data plane when no flag does; an unknown name is refused', () => {
    expect(analyzeSnapshot(routingSnapshot({ 'zonewise.io/data-plane': 'antrea' })).dataPlane).toEqual({
      name: 'antrea',
      source: 'snapshot',
    });
    expect(analyzeSnapshot(routingSnapshot()).dataPlane).toEqual({ name: 'kube-proxy', source: 'default' });
    expect(() => routingSnapshot({ 'zonewise.io/data-plane': 'flannel' })).toThrow(
      /unknown data plane "flannel" \(expected one of kube-proxy, cilium, .*linkerd\)/,
    );
  });
});
