import type { Endpoint, EndpointSlice, Node, Service, ServicePort } from './k8s-objects.js';
import { SERVICE_NAME_LABEL, ZONE_LABEL } from './k8s-objects.js';
import { SERVICE_CIDR_ANNOTATION } from './snapshots.js';

/**
 * Synthetic cluster snapshots of a chosen size, as `kubectl get … -o json` would print them. Used by the
 * benchmarks, the tests and the demo fleet. Deterministic for a given seed.
 */

export interface FleetOptions {
  nodes: number;
  zones: number;
  services: number;
  endpointsPerService: number;
  /** Relative allocatable CPU per zone, e.g. [1, 1, 2]; missing entries count as 1. */
  zoneCpuWeights?: number[];
  /** Share of Services annotated `service.kubernetes.io/topology-mode: Auto`. */
  autoShare?: number;
  /** Share of Services (among those not annotated) with `spec.trafficDistribution: PreferClose`. */
  preferCloseShare?: number;
  /** Whether slices of topology-routed Services already carry own-zone hints, as a controller left them. */
  observedHints?: boolean;
  /** Share of endpoints that are not ready. */
  notReadyShare?: number;
  serviceCIDR?: string;
  zonePrefix?: string;
  seed?: number;
}

export interface KubernetesList {
  apiVersion: 'v1';
  kind: 'List';
  metadata: { annotations: Record<string, string> };
  items: (Node | Service | EndpointSlice)[];
}

const MAX_ENDPOINTS_PER_SLICE = 100;

/** Options that cannot describe a cluster (negative counts, shares outside 0..1). */
export class FleetOptionsError extends RangeError {
  override name = 'FleetOptionsError';
}
const NODE_CPU_MILLIS = [4000, 3920, 8000, 7910, 16000, 15890];

export function generateFleetSnapshot(options: FleetOptions): KubernetesList {
  checkOptions(options);
  const random = seededRandom(options.seed ?? 1);
  const zones = zoneNames(options.zones, options.zonePrefix ?? 'zone-');
  const weights = zones.map((_, i) => options.zoneCpuWeights?.[i] ?? 1);
  const nodes = generateNodes(options.nodes, zones, weights);
  const nodesByZone = zones.map((zone) => nodes.filter((node) => node.metadata.labels?.[ZONE_LABEL] === zone));
  const items: (Node | Service | EndpointSlice)[] = [...nodes, ...wellKnownServices()];
  const podIPs = addressCounter(10 << 24); // 10.0.0.1 upwards
  for (let s = 0; s < options.services; s++) {
    const service = generateService(s, options, random);
    items.push(service);
    const endpoints = generateEndpoints(options, zones, weights, nodesByZone, podIPs, random, hasTopology(service));
    items.push(...sliceEndpoints(service, endpoints));
  }
  return {
    apiVersion: 'v1',
    kind: 'List',
    metadata: { annotations: { [SERVICE_CIDR_ANNOTATION]: options.serviceCIDR ?? '10.96.0.0/12' } },
    items,
  };
}

function checkOptions(options: FleetOptions): void {
  const counts: [string, number][] = [
    ['nodes', options.nodes],
    ['zones', options.zones],
    ['services', options.services],
    ['endpointsPerService', options.endpointsPerService],
  ];
  for (const [name, value] of counts) {
    if (!Number.isInteger(value) || value < 0)
      throw new FleetOptionsError(`${name} must be a whole number ≥ 0, got ${value}`);
  }
  if (options.zones < 1 || options.zones > 26)
    throw new FleetOptionsError(`zones must be between 1 and 26, got ${options.zones}`);
  if (options.nodes < options.zones) throw new FleetOptionsError('need at least one node per zone');
  if (options.services > 1_000_000) throw new FleetOptionsError('services must be at most 1,000,000');
  for (const [name, share] of [
    ['autoShare', options.autoShare],
    ['preferCloseShare', options.preferCloseShare],
    ['notReadyShare', options.notReadyShare],
  ] as const) {
    if (share !== undefined && !(share >= 0 && share <= 1))
      throw new FleetOptionsError(`${name} must be between 0 and 1`);
  }
}

function zoneNames(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${String.fromCharCode(97 + i)}`);
}

function generateNodes(count: number, zones: string[], weights: number[]): Node[] {
  return Array.from({ length: count }, (_, i) => {
    const zone = i % zones.length;
    const millis = Math.round(NODE_CPU_MILLIS[Math.floor(i / zones.length) % NODE_CPU_MILLIS.length] * weights[zone]);
    const name = `node-${String(i + 1).padStart(5, '0')}`;
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { [ZONE_LABEL]: zones[zone], 'kubernetes.io/hostname': name } },
      status: {
        allocatable: { cpu: millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`, memory: '16Gi' },
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    };
  });
}

function generateService(index: number, options: FleetOptions, random: () => number): Service {
  const name = `svc-${String(index + 1).padStart(5, '0')}`;
  const namespace = `team-${String((index % 40) + 1).padStart(2, '0')}`;
  const annotations: Record<string, string> = {};
  const spec: NonNullable<Service['spec']> = {
    type: 'ClusterIP',
    clusterIP: clusterIPFor(index),
    clusterIPs: [clusterIPFor(index)],
    ipFamilies: ['IPv4'],
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
    internalTrafficPolicy: 'Cluster',
  };
  if (random() < (options.autoShare ?? 0.5)) annotations['service.kubernetes.io/topology-mode'] = 'Auto';
  else if (random() < (options.preferCloseShare ?? 0.1)) spec.trafficDistribution = 'PreferClose';
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, annotations }, spec };
}

/** The API server's own Service and the cluster DNS on its conventional static address. */
function wellKnownServices(): Service[] {
  const service = (
    namespace: string,
    name: string,
    clusterIP: string,
    labels: Record<string, string>,
    port: ServicePort,
  ): Service => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels },
    spec: { type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ipFamilies: ['IPv4'], ports: [port] },
  });
  return [
    service('default', 'kubernetes', '10.96.0.1', { component: 'apiserver' }, { name: 'https', port: 443 }),
    service(
      'kube-system',
      'kube-dns',
      '10.96.0.10',
      { 'k8s-app': 'kube-dns' },
      { name: 'dns', port: 53, protocol: 'UDP' },
    ),
  ];
}

/** Dynamic-band addresses of 10.96.0.0/12, counted up from 10.96.1.1. */
function clusterIPFor(index: number): string {
  const value = (10 << 24) + (96 << 16) + 257 + index;
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

function hasTopology(service: Service): boolean {
  return (
    service.metadata.annotations?.['service.kubernetes.io/topology-mode'] !== undefined ||
    !!service.spec?.trafficDistribution
  );
}

function generateEndpoints(
  options: FleetOptions,
  zones: string[],
  weights: number[],
  nodesByZone: Node[][],
  podIPs: () => string,
  random: () => number,
  topologyRouted: boolean,
): Endpoint[] {
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  return Array.from({ length: options.endpointsPerService }, () => {
    const zone = pickWeighted(weights, totalWeight, random);
    const zoneNodes = nodesByZone[zone];
    const node = zoneNodes[Math.floor(random() * zoneNodes.length)];
    const ready = random() >= (options.notReadyShare ?? 0);
    const endpoint: Endpoint = {
      addresses: [podIPs()],
      conditions: { ready, serving: ready, terminating: false },
      nodeName: node.metadata.name,
      zone: zones[zone],
    };
    if (topologyRouted && ready && (options.observedHints ?? true))
      endpoint.hints = { forZones: [{ name: zones[zone] }] };
    return endpoint;
  });
}

function pickWeighted(weights: number[], total: number, random: () => number): number {
  let point = random() * total;
  for (let i = 0; i < weights.length; i++) {
    point -= weights[i];
    if (point < 0) return i;
  }
  return weights.length - 1;
}

function sliceEndpoints(service: Service, endpoints: Endpoint[]): EndpointSlice[] {
  const slices: EndpointSlice[] = [];
  for (let start = 0, part = 0; start < endpoints.length || part === 0; start += MAX_ENDPOINTS_PER_SLICE, part++) {
    slices.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${service.metadata.name}-${part.toString(36).padStart(5, 'x')}`,
        namespace: service.metadata.namespace,
        labels: {
          [SERVICE_NAME_LABEL]: service.metadata.name,
          'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
        },
      },
      addressType: 'IPv4',
      endpoints: endpoints.slice(start, start + MAX_ENDPOINTS_PER_SLICE),
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    });
  }
  return slices;
}

function addressCounter(start: number): () => string {
  let next = start;
  return () => {
    next++;
    return [next >>> 24, (next >>> 16) & 255, (next >>> 8) & 255, next & 255].join('.');
  };
}

/** mulberry32: a tiny, fast, seedable PRNG; quality is ample for synthetic fixtures. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
