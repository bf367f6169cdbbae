import {
  analyzeSnapshot,
  type Endpoint,
  type EndpointSlice,
  LAST_APPLIED_ANNOTATION,
  type Node,
  parseSnapshot,
  SERVICE_CIDR_ANNOTATION,
  SERVICE_NAME_LABEL,
  type Service,
  type ServiceCIDR,
  ZONE_LABEL,
} from '@zw/core';
import type { ClusterObjects } from '../snapshot.js';

/**
 * Building blocks of a simulated cluster: node pools, Services with their pods spread over zones, and
 * EndpointSlices carrying the hints the EndpointSlice controller would have written (computed by the
 * analysis core itself, as a real controller would have left them). Everything is plain data and a
 * pure function of its inputs, so a cluster's state at a tick is reproducible.
 */

const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
const MANAGED_BY = { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' };

export interface NodePool {
  /** Node names are `<prefix>-<zone index><n>`. */
  prefix: string;
  /** Nodes per zone, in the order of the cluster's zones. */
  perZone: number[];
  allocatableCpu: string;
  instanceType: string;
  labels?: Record<string, string>;
  /** Leave the zone label off (a node joined before the labelling automation ran). */
  unlabelled?: boolean;
  /** Control-plane nodes are left out by the controller. */
  controlPlane?: boolean;
  notReady?: boolean;
}

export type RoutingChoice = 'Auto' | 'PreferClose' | 'PreferSameZone' | 'None';

export interface ServiceSpec {
  namespace: string;
  name: string;
  routing: RoutingChoice;
  /** Ready pods per zone, in the order of the cluster's zones. */
  podsPerZone: number[];
  /** Pods per zone that are starting or terminating (not ready). */
  notReadyPerZone?: number[];
  port?: number;
  /** A ClusterIP chosen by the user; recorded in kubectl's last-applied configuration. */
  staticClusterIP?: string;
  /** "None" for a headless Service. */
  clusterIP?: string;
  labels?: Record<string, string>;
  internalTrafficPolicy?: 'Cluster' | 'Local';
}

export interface ClusterState {
  zones: string[];
  pools: NodePool[];
  services: ServiceSpec[];
  /** The Service range: as a ServiceCIDR object (Kubernetes ≥ 1.33) or as the agent's --service-cidr. */
  serviceCidr: string;
  hasServiceCIDRObjects: boolean;
}

/** What the simulator pushes for one cluster: the objects and the List settings the agent would add. */
export interface SimulatedSnapshot {
  objects: ClusterObjects;
  /** The agent's --service-cidr, for clusters without ServiceCIDR objects. */
  serviceCidrs: string[];
}

/**
 * `clusterAnnotations` (the Kubernetes version and data plane the agent reports) are given to the
 * analysis that plays the EndpointSlice controller, so that it writes the hints that version's
 * controller would.
 */
export function renderCluster(
  state: ClusterState,
  observedHintsFrom?: ClusterState,
  clusterAnnotations: Readonly<Record<string, string>> = {},
): SimulatedSnapshot {
  const nodes = renderNodes(state);
  const services: Service[] = [];
  const rawSlices: EndpointSlice[] = [];
  const clusterIPs = clusterIpCounter(state.serviceCidr);
  state.services.forEach((spec, index) => {
    services.push(renderService(spec, clusterIPs));
    rawSlices.push(renderSlice(spec, index, state.zones, nodes));
  });
  const serviceCIDRs: ServiceCIDR[] = state.hasServiceCIDRObjects ? [serviceCidrObject(state.serviceCidr)] : [];
  const serviceCidrs = state.hasServiceCIDRObjects ? [] : [state.serviceCidr];
  // The slices as the EndpointSlice controller leaves them. A controller that lags (observedHintsFrom)
  // still shows the hints it computed for the previous state, wherever the same endpoint still exists.
  const endpointSlices = observedHintsFrom
    ? withHintsOf(
        rawSlices,
        renderCluster(observedHintsFrom, undefined, clusterAnnotations).objects.endpointSlices as EndpointSlice[],
      )
    : controllerSlices({ nodes, services, endpointSlices: rawSlices, serviceCIDRs }, serviceCidrs, clusterAnnotations);
  return { objects: { nodes, services, endpointSlices, serviceCIDRs }, serviceCidrs };
}

export function renderNodes(state: ClusterState): Node[] {
  return state.pools.flatMap((pool) => poolNodes(pool, state.zones));
}

function poolNodes(pool: NodePool, zones: string[]): Node[] {
  const nodes: Node[] = [];
  pool.perZone.forEach((count, zoneIndex) => {
    for (let n = 0; n < count; n++) {
      const name = `${pool.prefix}-${String.fromCharCode(97 + zoneIndex)}${n + 1}`;
      const labels: Record<string, string> = {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': pool.instanceType,
        ...(pool.labels ?? {}),
      };
      if (!pool.unlabelled) labels[ZONE_LABEL] = zones[zoneIndex];
      if (pool.controlPlane) labels['node-role.kubernetes.io/control-plane'] = '';
      nodes.push({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels },
        status: {
          allocatable: { cpu: pool.allocatableCpu, memory: '30Gi', pods: '110' },
          conditions: [{ type: 'Ready', status: pool.notReady ? 'False' : 'True' }],
        },
      });
    }
  });
  return nodes;
}

function renderService(spec: ServiceSpec, nextClusterIP: () => string): Service {
  const annotations: Record<string, string> = {};
  if (spec.routing === 'Auto') annotations[TOPOLOGY_MODE] = 'Auto';
  const dynamicIP = nextClusterIP(); // every Service takes its turn, so adding one shifts no other address
  const clusterIP = spec.clusterIP ?? spec.staticClusterIP ?? dynamicIP;
  if (spec.staticClusterIP) {
    annotations[LAST_APPLIED_ANNOTATION] = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: spec.name, namespace: spec.namespace, labels: spec.labels ?? {} },
      spec: { clusterIP: spec.staticClusterIP, ports: [{ port: spec.port ?? 80 }], selector: { app: spec.name } },
    });
  }
  const service: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: spec.name,
      namespace: spec.namespace,
      labels: { app: spec.name, ...(spec.labels ?? {}) },
      annotations,
    },
    spec: {
      type: 'ClusterIP',
      clusterIP,
      clusterIPs: [clusterIP],
      ipFamilies: ['IPv4'],
      ports: [{ name: 'http', port: spec.port ?? 80, protocol: spec.port === 53 ? 'UDP' : 'TCP' }],
      internalTrafficPolicy: spec.internalTrafficPolicy ?? 'Cluster',
    },
  };
  if (spec.routing === 'PreferClose' || spec.routing === 'PreferSameZone')
    service.spec!.trafficDistribution = spec.routing;
  return service;
}

/** One slice per Service (the simulated Services are small); pods go round-robin over a zone's nodes. */
function renderSlice(spec: ServiceSpec, index: number, zones: string[], nodes: Node[]): EndpointSlice {
  const endpoints: Endpoint[] = [];
  zones.forEach((zone, zoneIndex) => {
    const zoneNodes = nodes.filter(
      (node) =>
        node.metadata.labels?.[ZONE_LABEL] === zone &&
        !('node-role.kubernetes.io/control-plane' in (node.metadata.labels ?? {})),
    );
    const ready = spec.podsPerZone[zoneIndex] ?? 0;
    const notReady = spec.notReadyPerZone?.[zoneIndex] ?? 0;
    for (let pod = 0; pod < ready + notReady; pod++) {
      const node = zoneNodes.length > 0 ? zoneNodes[pod % zoneNodes.length] : undefined;
      const isReady = pod < ready;
      endpoints.push({
        addresses: [podIP(index, zoneIndex, pod)],
        conditions: { ready: isReady, serving: isReady, terminating: false },
        ...(node ? { nodeName: node.metadata.name } : {}),
        zone,
      });
    }
  });
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${spec.name}-${sliceSuffix(spec.name)}`,
      namespace: spec.namespace,
      labels: { [SERVICE_NAME_LABEL]: spec.name, ...MANAGED_BY },
    },
    addressType: 'IPv4',
    endpoints,
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
}

/** Pod addresses stable per (Service, zone, pod index): a pod keeps its address while it exists. */
function podIP(serviceIndex: number, zoneIndex: number, pod: number): string {
  return `10.${64 + zoneIndex * 4 + Math.floor(serviceIndex / 256)}.${serviceIndex % 256}.${(pod % 250) + 2}`;
}

function sliceSuffix(name: string): string {
  return (stringHash(name) % 36 ** 5).toString(36).padStart(5, '0');
}

export function stringHash(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
  return hash;
}

/** Dynamic-band addresses of the range, one per Service in order (the static band is left for DNS and friends). */
function clusterIpCounter(cidr: string): () => string {
  const [base, prefix] = cidr.split('/');
  const start = base.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(prefix));
  let next = start + Math.min(Math.max(16, Math.floor(size / 16)), 256) + 1;
  return () => {
    const value = next++;
    return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
  };
}

function serviceCidrObject(cidr: string): ServiceCIDR {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: 'kubernetes' },
    spec: { cidrs: [cidr] },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function controllerSlices(
  objects: ClusterObjects,
  serviceCidrs: string[],
  clusterAnnotations: Readonly<Record<string, string>>,
): EndpointSlice[] {
  const document = {
    apiVersion: 'v1',
    kind: 'List',
    metadata: {
      annotations: {
        ...clusterAnnotations,
        ...(serviceCidrs.length > 0 ? { [SERVICE_CIDR_ANNOTATION]: serviceCidrs.join(',') } : {}),
      },
    },
    items: structuredClone([...objects.nodes, ...objects.services, ...objects.endpointSlices, ...objects.serviceCIDRs]),
  };
  return analyzeSnapshot(parseSnapshot(document)).services.flatMap((service) => service.endpointSlices);
}

/** The new slices with, per endpoint address, the hints the older slices carried (none for new addresses). */
function withHintsOf(slices: EndpointSlice[], older: EndpointSlice[]): EndpointSlice[] {
  const hints = new Map<string, Endpoint['hints']>();
  for (const slice of older)
    for (const endpoint of slice.endpoints) if (endpoint.hints) hints.set(endpoint.addresses[0], endpoint.hints);
  return slices.map((slice) => ({
    ...slice,
    endpoints: slice.endpoints.map((endpoint) => {
      const hint = endpoint.conditions?.ready ? hints.get(endpoint.addresses[0]) : undefined;
      return hint ? { ...endpoint, hints: hint } : endpoint;
    }),
  }));
}

/** Services every cluster has: the API server's own and the cluster DNS on its conventional static address. */
export function wellKnownServices(serviceCidr: string, zonesCount: number): ServiceSpec[] {
  const base = serviceCidr.split('/')[0].split('.').slice(0, 3).join('.');
  const dnsPods = Array.from({ length: zonesCount }, (_, i) => (i < 2 ? 1 : 0));
  return [
    {
      namespace: 'default',
      name: 'kubernetes',
      routing: 'None',
      podsPerZone: dnsPods.map(() => 1),
      port: 443,
      clusterIP: `${base}.1`,
      labels: { component: 'apiserver' },
    },
    {
      namespace: 'kube-system',
      name: 'kube-dns',
      routing: 'None',
      podsPerZone: dnsPods,
      port: 53,
      clusterIP: `${base}.10`,
      labels: { 'k8s-app': 'kube-dns' },
    },
  ];
}
