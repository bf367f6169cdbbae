import { describe, expect, it } from 'vitest';
import { analyzeSnapshot } from '../src/analyze.js';
import { FleetOptionsError, generateFleetSnapshot } from '../src/fleet-generator.js';
import type { EndpointSlice, Node, Service } from '../src/k8s-objects.js';
import { parseSnapshot } from '../src/snapshots.js';

describe('generateFleetSnapshot', () => {
  const options = {
    nodes: 30,
    zones: 3,
    services: 40,
    endpointsPerService: 12,
    zoneCpuWeights: [1, 1, 2],
    autoShare: 0.5,
    seed: 7,
  };

  it('produces a kubectl List of the requested size that the parser accepts', () => {
    const list = generateFleetSnapshot(options);
    const snapshot = parseSnapshot(structuredClone(list));
    expect(snapshot.nodes).toHaveLength(30);
    // 40 generated Services plus default/kubernetes and kube-system/kube-dns.
    expect(snapshot.services).toHaveLength(42);
    const endpoints = snapshot.endpointSlices.reduce((sum, slice) => sum + slice.endpoints.length, 0);
    expect(endpoints).toBe(40 * 12);
    expect(snapshot.annotatedServiceCIDRs).toEqual(['10.96.0.0/12']);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(generateFleetSnapshot(options)).toEqual(generateFleetSnapshot(options));
    expect(generateFleetSnapshot({ ...options, seed: 8 })).not.toEqual(generateFleetSnapshot(options));
  });

  it('skews allocatable CPU per zone as asked', () => {
    const report = analyzeSnapshot(parseSnapshot(generateFleetSnapshot(options)));
    const ratios = report.nodeInfo.zones.map((zone) => zone.cpuRatio);
    expect(ratios[0]).toBeCloseTo(0.25, 2);
    expect(ratios[2]).toBeCloseTo(0.5, 2);
  });

  it('annotates about the requested share of Services with topology-mode Auto', () => {
    const list = generateFleetSnapshot({ ...options, services: 1000, endpointsPerService: 1 });
    const services = list.items.filter((item): item is Service => item.kind === 'Service');
    const auto = services.filter((s) => s.metadata.annotations?.['service.kubernetes.io/topology-mode'] === 'Auto');
    expect(auto.length / 1000).toBeGreaterThan(0.45);
    expect(auto.length / 1000).toBeLessThan(0.55);
  });

  it('places endpoints on nodes of their own zone and splits slices at 100 endpoints', () => {
    const list = generateFleetSnapshot({ ...options, services: 2, endpointsPerService: 250 });
    const zoneOf = new Map(
      list.items
        .filter((item): item is Node => item.kind === 'Node')
        .map((n) => [n.metadata.name, n.metadata.labels!['topology.kubernetes.io/zone']]),
    );
    const slices = list.items.filter((item): item is EndpointSlice => item.kind === 'EndpointSlice');
    expect(slices.map((s) => s.endpoints.length)).toEqual([100, 100, 50, 100, 100, 50]);
    for (const endpoint of slices.flatMap((s) => s.endpoints))
      expect(zoneOf.get(endpoint.nodeName!)).toBe(endpoint.zone);
  });

  it('refuses options that cannot describe a cluster', () => {
    expect(() => generateFleetSnapshot({ ...options, nodes: -1 })).toThrow(FleetOptionsError);
    expect(() => generateFleetSnapshot({ ...options, zones: 0 })).toThrow('zones must be between 1 and 26');
    expect(() => generateFleetSnapshot({ ...options, nodes: 2 })).toThrow('need at least one node per zone');
    expect(() => generateFleetSnapshot({ ...options, autoShare: 2 })).toThrow('autoShare must be between 0 and 1');
  });
});
