/**
 * Small builders for Kubernetes objects in tests. Every builder returns a fresh object, so tests may
 * freeze or compare inputs freely.
 */
import type { AddressType, Endpoint, EndpointSlice, Node, OwnedObject, Service } from '../src/k8s-objects.js';
import { SERVICE_NAME_LABEL, ZONE_LABEL } from '../src/k8s-objects.js';
import type { Snapshot } from '../src/snapshot-model.js';
import { parseSnapshot } from '../src/snapshots.js';

// ---------------------------------------------------------------- Nodes

export interface NodeSpec {
  name: string;
  /** Zone label value; `null` leaves the label out. */
  zone: string | null;
  /** `status.allocatable.cpu`; `null` leaves it out. */
  cpu?: string | null;
  /** Ready condition status; defaults to ready. `null` leaves out every condition. */
  ready?: boolean | null;
  labels?: Record<string, string>;
}

export function node(spec: NodeSpec): Node {
  const labels: Record<string, string> = { ...spec.labels };
  if (spec.zone !== null) labels[ZONE_LABEL] = spec.zone;
  const allocatable: Record<string, string> = { memory: '16Gi', pods: '110' };
  if (spec.cpu !== null) allocatable.cpu = spec.cpu ?? '4';
  const ready = spec.ready === undefined ? true : spec.ready;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: spec.name, labels },
    status: {
      allocatable,
      conditions: ready === null ? [] : [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
}

/**
 * Ready worker nodes from zone -> list of allocatable CPU quantities; node names are `<zone>-<i>`.
 * Numbers are whole CPUs: `nodes({ a: [12], b: ['4000m'] })`.
 */
export function nodes(cpuByZone: Record<string, readonly (string | number)[]>): Node[] {
  return Object.entries(cpuByZone).flatMap(([zone, cpus]) =>
    cpus.map((cpu, index) => node({ name: `${zone}-${index}`, zone, cpu: String(cpu) })),
  );
}

// ---------------------------------------------------------------- EndpointSlices

export interface EndpointSpec {
  zone?: string;
  /** `conditions.ready`; defaults to true. `null` leaves it out (controller: not ready). */
  ready?: boolean | null;
  /** `hints.forZones` names; leave out for no hints. */
  hints?: readonly string[];
  /** `hints.forNodes` names. */
  nodeHints?: readonly string[];
  nodeName?: string;
  address?: string;
}

/** A zone name is shorthand for a ready, unhinted endpoint in that zone. */
export type EndpointInput = string | EndpointSpec;

export interface SliceOptions {
  addressType?: AddressType | 'FQDN';
  namespace?: string;
  service?: string;
}

export function endpoint(input: EndpointInput, address = '10.0.0.1'): Endpoint {
  const spec: EndpointSpec = typeof input === 'string' ? { zone: input } : input;
  const result: Endpoint = { addresses: [spec.address ?? address] };
  result.conditions =
    spec.ready === null ? {} : { ready: spec.ready ?? true, serving: spec.ready ?? true, terminating: false };
  if (spec.nodeName !== undefined) result.nodeName = spec.nodeName;
  if (spec.zone !== undefined) result.zone = spec.zone;
  if (spec.hints !== undefined || spec.nodeHints !== undefined) {
    result.hints = {};
    if (spec.hints !== undefined) result.hints.forZones = spec.hints.map((name) => ({ name }));
    if (spec.nodeHints !== undefined) result.hints.forNodes = spec.nodeHints.map((name) => ({ name }));
  }
  return result;
}

/** An EndpointSlice of Service `web` in `default`; addresses are derived from the slice name and index. */
export function slice(name: string, endpoints: readonly EndpointInput[], options: SliceOptions = {}): EndpointSlice {
  const addressType = options.addressType ?? 'IPv4';
  const block = nameHash(name);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      labels: { [SERVICE_NAME_LABEL]: options.service ?? 'web' },
    },
    addressType,
    endpoints: endpoints.map((input, index) => endpoint(input, address(addressType, block, index))),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
}

function address(addressType: AddressType | 'FQDN', block: number, index: number): string {
  if (addressType === 'IPv6') return `fd00::${block.toString(16)}:${index.toString(16)}`;
  if (addressType === 'FQDN') return `host-${block}-${index}.example.com`;
  return `10.${block}.${index >> 8}.${index & 255}`;
}

function nameHash(name: string): number {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 251;
  return hash + 1;
}

/** Zone hints of every endpoint, per slice: `[['b', 'a'], …]`; endpoints without hints give `null`. */
export function zoneHintsOf(slices: readonly EndpointSlice[]): (string | null)[][] {
  return slices.map((s) =>
    s.endpoints.map((e) => (e.hints?.forZones ? e.hints.forZones.map((z) => z.name).join(',') : null)),
  );
}

// ---------------------------------------------------------------- Services

export interface ServiceOptions {
  name?: string;
  namespace?: string;
  annotations?: Record<string, string>;
  trafficDistribution?: string;
  ipFamilies?: string[];
  clusterIP?: string;
}

export function service(options: ServiceOptions = {}): Service {
  const spec: NonNullable<Service['spec']> = {
    type: 'ClusterIP',
    clusterIP: options.clusterIP ?? '10.96.0.10',
    ipFamilies: options.ipFamilies ?? ['IPv4'],
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  };
  if (options.trafficDistribution !== undefined) spec.trafficDistribution = options.trafficDistribution;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: options.name ?? 'web',
      namespace: options.namespace ?? 'default',
      annotations: { ...options.annotations },
    },
    spec,
  };
}

/** A Service with `service.kubernetes.io/topology-mode: Auto`. */
export function autoService(options: ServiceOptions = {}): Service {
  return service({
    ...options,
    annotations: { 'service.kubernetes.io/topology-mode': 'Auto', ...options.annotations },
  });
}

/**
 * Three equal zones and one Service per way of asking for topology routing, each with 3 ready endpoints
 * per zone (so the CPU heuristic populates hints): `auto` (topology-mode: Auto), `legacy`
 * (topology-aware-hints: Auto), `close`, `same-zone`, `same-node` (trafficDistribution), `plain` (no
 * routing), all selecting Pods, plus `hand-hinted`: no routing and no selector, its hand-written slice
 * carrying own-zone hints. `annotations` go on the List.
 */
export function routingSnapshot(annotations: Record<string, string> = {}): Snapshot {
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const endpoints = zones.flatMap((zone) => [0, 1, 2].map(() => ({ zone, nodeName: `${zone}-0` })));
  const sliceOf = (name: string, hinted = false): EndpointSlice =>
    slice(
      `${name}-1`,
      endpoints.map((entry) => (hinted ? { ...entry, hints: [entry.zone] } : entry)),
      { service: name },
    );
  const selecting: Service[] = [
    autoService({ name: 'auto' }),
    service({ name: 'legacy', annotations: { 'service.kubernetes.io/topology-aware-hints': 'Auto' } }),
    service({ name: 'close', trafficDistribution: 'PreferClose' }),
    service({ name: 'same-zone', trafficDistribution: 'PreferSameZone' }),
    service({ name: 'same-node', trafficDistribution: 'PreferSameNode' }),
    service({ name: 'plain' }),
  ];
  for (const entry of selecting) (entry.spec as NonNullable<Service['spec']>).selector = { app: entry.metadata.name };
  const names = [...selecting.map((entry) => entry.metadata.name), 'hand-hinted'];
  return parseSnapshot(
    structuredClone({
      kind: 'List',
      metadata: { annotations },
      items: [
        ...nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [4] }),
        ...selecting,
        service({ name: 'hand-hinted' }),
        ...names.map((name) => sliceOf(name, name === 'hand-hinted')),
      ],
    }),
  );
}

/** Recursively freezes a value, so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// kube-proxy / traffic-model fixtures (proxy-filter.spec.ts, traffic-model.spec.ts)
// ---------------------------------------------------------------------------------------------

import type * as ProxyFixtureK8s from '../src/k8s-objects.js';

export interface ProxyTestEndpointOptions {
  zone?: string;
  node?: string;
  /** `hints.forZones` names; omitted or empty = no zone hints. */
  forZones?: string[];
  /** `hints.forNodes` names; omitted or empty = no node hints. */
  forNodes?: string[];
  /** Each condition: `undefined` leaves the key out, `null` writes an explicit null. */
  ready?: boolean | null;
  serving?: boolean | null;
  terminating?: boolean | null;
}

/** An EndpointSlice endpoint with one address; only the fields given are written. */
export function proxyTestEndpoint(address: string, options: ProxyTestEndpointOptions = {}): ProxyFixtureK8s.Endpoint {
  const conditions: ProxyFixtureK8s.EndpointConditions = {};
  if (options.ready !== undefined) conditions.ready = options.ready;
  if (options.serving !== undefined) conditions.serving = options.serving;
  if (options.terminating !== undefined) conditions.terminating = options.terminating;
  const hints: ProxyFixtureK8s.EndpointHints = {};
  if (options.forZones?.length) hints.forZones = options.forZones.map((name) => ({ name }));
  if (options.forNodes?.length) hints.forNodes = options.forNodes.map((name) => ({ name }));
  return {
    addresses: [address],
    conditions,
    ...(options.node !== undefined ? { nodeName: options.node } : {}),
    ...(options.zone !== undefined ? { zone: options.zone } : {}),
    ...(hints.forZones || hints.forNodes ? { hints } : {}),
  };
}

export interface ProxyTestSliceOptions {
  addressType?: ProxyFixtureK8s.EndpointSlice['addressType'];
  ports?: ProxyFixtureK8s.EndpointPort[];
  service?: string;
  namespace?: string;
}

/** An EndpointSlice of Service `web` in `default`, port `http` 8080/TCP unless told otherwise. */
export function proxyTestSlice(
  name: string,
  endpoints: ProxyFixtureK8s.Endpoint[],
  options: ProxyTestSliceOptions = {},
): ProxyFixtureK8s.EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      labels: { 'kubernetes.io/service-name': options.service ?? 'web' },
    },
    addressType: options.addressType ?? 'IPv4',
    endpoints,
    ports: options.ports ?? [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
}

/** Service `default/web`, ClusterIP 10.96.0.10, port `http` 80/TCP; `spec`/`status` fields override. */
export function proxyTestService(
  spec: NonNullable<ProxyFixtureK8s.Service['spec']> = {},
  status?: ProxyFixtureK8s.Service['status'],
): ProxyFixtureK8s.Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      ipFamilies: ['IPv4'],
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      ...spec,
    },
    ...(status ? { status } : {}),
  };
}

// ---------------------------------------------------------------- Pods and their owners

/** Who owns an endpoint's Pod: a workload kind and name, or null for a bare Pod. */
export type PodOwner = { kind: string; name: string } | null;

/**
 * Pods for every endpoint of the slices, as the controllers create them: each endpoint's `targetRef` is
 * set (in place) to its Pod; a Deployment owns its Pods through a ReplicaSet `<name>-5d4f7b9c8`, as
 * `deployment_controller.go` names them, any other kind owns them directly, and null makes a bare Pod.
 */
export function podsOwnedBy(
  slices: readonly EndpointSlice[],
  ownerOf: (slice: EndpointSlice, index: number) => PodOwner,
): { pods: OwnedObject[]; replicaSets: OwnedObject[] } {
  const pods: OwnedObject[] = [];
  const replicaSets = new Map<string, OwnedObject>();
  for (const entry of slices) {
    const namespace = entry.metadata.namespace ?? 'default';
    entry.endpoints.forEach((endpointOfSlice, index) => {
      const owner = ownerOf(entry, index);
      const name = `${entry.metadata.name}-pod-${index}`;
      endpointOfSlice.targetRef = { kind: 'Pod', namespace, name };
      const controller = (kind: string, ownerName: string) => [
        { apiVersion: 'apps/v1', kind, name: ownerName, controller: true },
      ];
      if (owner === null) {
        pods.push({ kind: 'Pod', metadata: { name, namespace } });
        return;
      }
      if (owner.kind !== 'Deployment') {
        pods.push({ kind: 'Pod', metadata: { name, namespace, ownerReferences: controller(owner.kind, owner.name) } });
        return;
      }
      const replicaSet = `${owner.name}-5d4f7b9c8`;
      replicaSets.set(`${namespace}/${replicaSet}`, {
        kind: 'ReplicaSet',
        metadata: { name: replicaSet, namespace, ownerReferences: controller('Deployment', owner.name) },
      });
      pods.push({ kind: 'Pod', metadata: { name, namespace, ownerReferences: controller('ReplicaSet', replicaSet) } });
    });
  }
  return { pods, replicaSets: [...replicaSets.values()] };
}
