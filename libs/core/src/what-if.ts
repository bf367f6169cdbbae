/**
 * What-ifs on a snapshot: the cluster as it would be if a Service changed its routing mode, a zone
 * gained or lost replicas of a Service, or a zone lost its nodes. The answer is a new snapshot to hand to
 * `analyzeSnapshot`; the input snapshot is never changed (objects that a what-if does not touch are
 * shared with it, read-only, as everywhere in the core).
 *
 * The what-if document is checked by hand, like the snapshot reader, so every error names the JSON path
 * (`whatIf.scaleReplicas[0].delta: expected a whole number`).
 *
 * Order: the zones' nodes are removed first, replicas are then added or removed on the cluster that is
 * left, and routing modes are set last (they touch only Services).
 */
import { isControllerManaged, serviceKey } from './analyze.js';
import { controllerSliceLabels, snapshotRecordsManagedBy } from './slice-management.js';
import { isEndpointReady } from './hints.js';
import {
  type AddressType,
  type Endpoint,
  type EndpointSlice,
  type Node,
  SERVICE_NAME_LABEL,
  type Service,
} from './k8s-objects.js';
import { isExcludedNode, isNodeReady, nodeZone } from './node-info.js';
import { canonicalAddress } from './proxy-addresses.js';
import { TOPOLOGY_AWARE_HINTS_ANNOTATION, TOPOLOGY_MODE_ANNOTATION } from './routing-mode.js';
import type { Snapshot } from './snapshot-model.js';

export class WhatIfError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'WhatIfError';
  }
}

export const ROUTING_MODES = ['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'None'] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];

export interface EnableRoutingWhatIf {
  namespace: string;
  name: string;
  mode: RoutingMode;
}

export interface ScaleReplicasWhatIf {
  namespace: string;
  name: string;
  zone: string;
  /** Ready endpoints to add (positive) or remove (negative) in the zone. */
  delta: number;
}

export interface RemoveZoneNodesWhatIf {
  zone: string;
  /** Move the zone's endpoints to the remaining zones' nodes instead of dropping them. */
  reschedule?: boolean;
}

export interface WhatIf {
  enableRouting: EnableRoutingWhatIf[];
  scaleReplicas: ScaleReplicasWhatIf[];
  removeZoneNodes: RemoveZoneNodesWhatIf[];
}

/** Bounds, so that a what-if cannot blow up memory or time. */
export const WHAT_IF_LIMITS = {
  /** Entries per list. */
  entries: 1000,
  /** Endpoints added by `scaleReplicas`, all entries together (per address family). */
  addedEndpoints: 10_000,
} as const;

/** The controller's default `--max-endpoints-per-slice`. */
const MAX_ENDPOINTS_PER_SLICE = 100;

/** Applies the what-ifs (`undefined`/`null`: none) to a copy of the snapshot. */
export function applyWhatIf(snapshot: Snapshot, whatIf: unknown): Snapshot {
  const parsed = parseWhatIf(whatIf);
  checkServicesExist(snapshot, parsed);
  const state = new WorkingSnapshot(snapshot);
  removeZoneNodes(state, parsed.removeZoneNodes);
  parsed.scaleReplicas.forEach((entry, index) => scaleReplicas(state, entry, `whatIf.scaleReplicas[${index}]`));
  for (const entry of parsed.enableRouting)
    state.replaceService(entry, withRoutingMode(state.service(entry), entry.mode));
  return state.result();
}

// ---------------------------------------------------------------------------------------------
// Reading the what-if document
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

const WHAT_IF_FIELDS = ['enableRouting', 'scaleReplicas', 'removeZoneNodes'] as const;

/** Checks the shape of a what-if document; which Services and zones exist is checked against the snapshot. */
export function parseWhatIf(input: unknown): WhatIf {
  const parsed: WhatIf = { enableRouting: [], scaleReplicas: [], removeZoneNodes: [] };
  if (input === undefined || input === null) return parsed;
  const root = expectObject(input, 'whatIf', `an object with ${WHAT_IF_FIELDS.join(', ')}`);
  rejectUnknownFields(root, 'whatIf', WHAT_IF_FIELDS);
  parsed.enableRouting = listOf(root.enableRouting, 'whatIf.enableRouting', readEnableRouting);
  parsed.scaleReplicas = listOf(root.scaleReplicas, 'whatIf.scaleReplicas', readScaleReplicas);
  parsed.removeZoneNodes = listOf(root.removeZoneNodes, 'whatIf.removeZoneNodes', readRemoveZoneNodes);
  const added = parsed.scaleReplicas.reduce((sum, entry) => sum + Math.max(entry.delta, 0), 0);
  if (added > WHAT_IF_LIMITS.addedEndpoints) {
    throw new WhatIfError(
      'whatIf.scaleReplicas',
      `adds ${added} endpoints in total; at most ${WHAT_IF_LIMITS.addedEndpoints} can be added`,
    );
  }
  return parsed;
}

function listOf<T>(value: unknown, path: string, read: (entry: Json, path: string) => T): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new WhatIfError(path, `expected an array, got ${describe(value)}`);
  if (value.length > WHAT_IF_LIMITS.entries) {
    throw new WhatIfError(path, `has ${value.length} entries; at most ${WHAT_IF_LIMITS.entries} are allowed`);
  }
  return value.map((entry, index) => {
    const entryPath = `${path}[${index}]`;
    return read(expectObject(entry, entryPath, 'an object'), entryPath);
  });
}

const ENABLE_ROUTING_FIELDS = ['namespace', 'name', 'mode'] as const;
const SCALE_REPLICAS_FIELDS = ['namespace', 'name', 'zone', 'delta'] as const;
const REMOVE_ZONE_NODES_FIELDS = ['zone', 'reschedule'] as const;

function readEnableRouting(entry: Json, path: string): EnableRoutingWhatIf {
  rejectUnknownFields(entry, path, ENABLE_ROUTING_FIELDS);
  const mode = entry.mode;
  if (!(ROUTING_MODES as readonly unknown[]).includes(mode)) {
    throw new WhatIfError(`${path}.mode`, `expected one of ${ROUTING_MODES.join(', ')}, got ${describe(mode)}`);
  }
  return {
    namespace: expectName(entry.namespace, `${path}.namespace`),
    name: expectName(entry.name, `${path}.name`),
    mode: mode as RoutingMode,
  };
}

function readScaleReplicas(entry: Json, path: string): ScaleReplicasWhatIf {
  rejectUnknownFields(entry, path, SCALE_REPLICAS_FIELDS);
  const delta = entry.delta;
  if (typeof delta !== 'number' || !Number.isInteger(delta)) {
    throw new WhatIfError(`${path}.delta`, `expected a whole number, got ${describe(delta)}`);
  }
  const bound = WHAT_IF_LIMITS.addedEndpoints;
  if (Math.abs(delta) > bound) {
    throw new WhatIfError(`${path}.delta`, `expected a whole number between -${bound} and ${bound}, got ${delta}`);
  }
  return {
    namespace: expectName(entry.namespace, `${path}.namespace`),
    name: expectName(entry.name, `${path}.name`),
    zone: expectName(entry.zone, `${path}.zone`),
    delta,
  };
}

function readRemoveZoneNodes(entry: Json, path: string): RemoveZoneNodesWhatIf {
  rejectUnknownFields(entry, path, REMOVE_ZONE_NODES_FIELDS);
  const reschedule = entry.reschedule;
  if (reschedule !== undefined && reschedule !== null && typeof reschedule !== 'boolean') {
    throw new WhatIfError(`${path}.reschedule`, `expected true or false, got ${describe(reschedule)}`);
  }
  return { zone: expectName(entry.zone, `${path}.zone`), reschedule: reschedule === true };
}

function expectObject(value: unknown, path: string, expected: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new WhatIfError(path, `expected ${expected}, got ${describe(value)}`);
  }
  return value as Json;
}

function expectName(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new WhatIfError(path, `expected a non-empty string, got ${describe(value)}`);
  }
  return value;
}

function rejectUnknownFields(value: Json, path: string, known: readonly string[]): void {
  const unknown = Object.keys(value).find((field) => !known.includes(field));
  if (unknown !== undefined) {
    throw new WhatIfError(`${path}.${unknown}`, `unknown field (expected ${known.join(', ')})`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function checkServicesExist(snapshot: Snapshot, whatIf: WhatIf): void {
  const keys = new Set(snapshot.services.map(serviceKey));
  const check = (list: readonly { namespace: string; name: string }[], path: string) =>
    list.forEach((entry, index) => {
      const key = `${entry.namespace}/${entry.name}`;
      if (!keys.has(key)) throw new WhatIfError(`${path}[${index}]`, `no Service ${key} in the snapshot`);
    });
  check(whatIf.enableRouting, 'whatIf.enableRouting');
  check(whatIf.scaleReplicas, 'whatIf.scaleReplicas');
}

// ---------------------------------------------------------------------------------------------
// The snapshot being changed: copy on write
// ---------------------------------------------------------------------------------------------

class WorkingSnapshot {
  nodes: Node[];
  readonly slices: EndpointSlice[];
  /** Zones whose nodes a what-if removed. */
  readonly removedZones = new Set<string>();
  private readonly services: Service[];
  private readonly serviceIndex: Map<string, number>;
  /** Slices already copied by this what-if, which may be changed in place. */
  private readonly ownSlices = new Set<EndpointSlice>();
  private readonly addresses: AddressPool;
  /** `namespace/name` of every slice, so new slice names never collide. */
  private readonly sliceNames: Set<string>;
  /** Whether the snapshot labels its slices' managers (see slice-management.ts), so new slices follow suit. */
  readonly recordsManagedBy: boolean;

  constructor(private readonly snapshot: Snapshot) {
    this.nodes = [...snapshot.nodes];
    this.slices = [...snapshot.endpointSlices];
    this.services = [...snapshot.services];
    this.serviceIndex = new Map(this.services.map((service, index) => [serviceKey(service), index]));
    this.addresses = new AddressPool(snapshot.endpointSlices);
    this.sliceNames = new Set(this.slices.map(sliceName));
    this.recordsManagedBy = snapshotRecordsManagedBy(snapshot.endpointSlices);
  }

  service(ref: { namespace: string; name: string }): Service {
    return this.services[this.serviceIndex.get(`${ref.namespace}/${ref.name}`) ?? -1];
  }

  replaceService(ref: { namespace: string; name: string }, service: Service): void {
    const index = this.serviceIndex.get(`${ref.namespace}/${ref.name}`);
    if (index !== undefined) this.services[index] = service;
  }

  /** Indexes (into {@link slices}) of the Service's controller-managed IP slices, in snapshot order. */
  managedSliceIndexes(namespace: string, name: string, addressType: AddressType): number[] {
    const indexes: number[] = [];
    this.slices.forEach((slice, index) => {
      if (slice.addressType !== addressType || !isControllerManaged(slice, this.recordsManagedBy)) return;
      if ((slice.metadata.namespace ?? 'default') !== namespace) return;
      if (slice.metadata.labels?.[SERVICE_NAME_LABEL] === name) indexes.push(index);
    });
    return indexes;
  }

  /** The slice at `index`, copied once (with its own endpoint list) so it may be changed. */
  writableSlice(index: number): EndpointSlice {
    const current = this.slices[index];
    if (this.ownSlices.has(current)) return current;
    const copy: EndpointSlice = { ...current, endpoints: [...(current.endpoints ?? [])] };
    this.slices[index] = copy;
    this.ownSlices.add(copy);
    return copy;
  }

  addSlice(slice: EndpointSlice): number {
    this.ownSlices.add(slice);
    this.sliceNames.add(sliceName(slice));
    return this.slices.push(slice) - 1;
  }

  sliceNameTaken(namespace: string, name: string): boolean {
    return this.sliceNames.has(`${namespace}/${name}`);
  }

  nextAddress(addressType: AddressType): string {
    return this.addresses.next(addressType);
  }

  result(): Snapshot {
    return {
      ...this.snapshot,
      nodes: this.nodes,
      services: this.services,
      endpointSlices: this.slices,
      serviceCIDRs: [...this.snapshot.serviceCIDRs],
      annotatedServiceCIDRs: [...this.snapshot.annotatedServiceCIDRs],
      zoneTrafficWeights: this.remainingZoneWeights(),
    };
  }

  /**
   * Decision: a zone without nodes has no clients, so it leaves the snapshot's zone traffic weights too;
   * when no weighted zone is left, the analysis falls back to allocatable CPU.
   */
  private remainingZoneWeights(): Record<string, number> | null {
    const weights = this.snapshot.zoneTrafficWeights;
    if (weights === null) return null;
    const kept = Object.entries(weights).filter(([zone]) => !this.removedZones.has(zone));
    return kept.length === 0 ? null : Object.fromEntries(kept);
  }
}

function sliceName(slice: EndpointSlice): string {
  return `${slice.metadata.namespace ?? 'default'}/${slice.metadata.name}`;
}

/**
 * Decision: synthesized endpoint addresses are taken in order from 100.64.0.1 (IPv4, the shared address
 * space) and fd00:7a77::1 (IPv6), skipping every address any slice of the snapshot already uses, so
 * they are deterministic and never collide with a real endpoint or with each other.
 */
class AddressPool {
  private readonly used = new Set<string>();
  private readonly counters: Record<AddressType, number> = { IPv4: 0, IPv6: 0 };

  constructor(slices: readonly EndpointSlice[]) {
    for (const slice of slices) {
      if (slice.addressType === 'FQDN') continue;
      for (const endpoint of slice.endpoints ?? []) {
        for (const address of endpoint.addresses ?? []) this.used.add(canonicalAddress(address));
      }
    }
  }

  next(addressType: AddressType): string {
    for (;;) {
      const n = ++this.counters[addressType];
      const address = addressType === 'IPv4' ? ipv4Address(n) : canonicalAddress(ipv6Address(n));
      if (this.used.has(address)) continue;
      this.used.add(address);
      return address;
    }
  }
}

/** The n-th address of 100.64.0.0/10 (n < 2^22). */
function ipv4Address(n: number): string {
  return `100.${64 + (n >>> 16)}.${(n >>> 8) & 255}.${n & 255}`;
}

function ipv6Address(n: number): string {
  return `fd00:7a77::${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
}

// ---------------------------------------------------------------------------------------------
// removeZoneNodes
// ---------------------------------------------------------------------------------------------

/**
 * Drops the zones' nodes; the endpoints in those zones (or on those nodes) are dropped, or with
 * `reschedule` moved to the nodes left, like pods the scheduler places elsewhere.
 *
 * Decision: every zone is removed before anything is rescheduled, so no pod moves into a zone that is
 * removed too. Moved endpoints go round-robin over the remaining zones in byte-wise name order (within
 * a zone over its ready worker nodes by name), counted per Service and address family and starting at
 * the first zone: the EKS walkthrough's lone pod from zone-1d lands in zone-1a. A moved endpoint keeps
 * its address and readiness and loses its hints (the controller has not written any for it yet).
 */
function removeZoneNodes(state: WorkingSnapshot, entries: readonly RemoveZoneNodesWhatIf[]): void {
  if (entries.length === 0) return;
  const zones = new Map<string, { reschedule: boolean; path: string }>();
  entries.forEach((entry, index) => {
    const path = `whatIf.removeZoneNodes[${index}]`;
    if (zones.has(entry.zone))
      throw new WhatIfError(`${path}.zone`, `zone ${JSON.stringify(entry.zone)} is listed twice`);
    if (!state.nodes.some((node) => nodeZone(node) === entry.zone)) {
      throw new WhatIfError(`${path}.zone`, `no node in zone ${JSON.stringify(entry.zone)} in the snapshot`);
    }
    zones.set(entry.zone, { reschedule: entry.reschedule === true, path });
    state.removedZones.add(entry.zone);
  });
  const removedNodes = new Map<string, string>();
  for (const node of state.nodes) if (zones.has(nodeZone(node))) removedNodes.set(node.metadata.name, nodeZone(node));
  state.nodes = state.nodes.filter((node) => !zones.has(nodeZone(node)));
  const targets = rescheduleTargets(state.nodes);
  const moved = new Map<string, number>();

  state.slices.forEach((slice, index) => {
    if (slice.addressType === 'FQDN') return;
    const lostZoneOf = (endpoint: Endpoint) =>
      zones.has(endpoint.zone ?? '') ? (endpoint.zone as string) : removedNodes.get(endpoint.nodeName ?? '');
    if (!(slice.endpoints ?? []).some((endpoint) => lostZoneOf(endpoint) !== undefined)) return;
    const writable = state.writableSlice(index);
    const counterKey = `${writable.metadata.namespace ?? 'default'}/${writable.metadata.labels?.[SERVICE_NAME_LABEL] ?? ''}/${writable.addressType}`;
    writable.endpoints = writable.endpoints.flatMap((endpoint) => {
      const lostZone = lostZoneOf(endpoint);
      if (lostZone === undefined) return [endpoint];
      const removal = zones.get(lostZone);
      if (!removal?.reschedule) return [];
      if (targets.length === 0) {
        throw new WhatIfError(
          `${removal.path}.reschedule`,
          'no ready worker node is left in another zone to reschedule onto',
        );
      }
      const count = moved.get(counterKey) ?? 0;
      moved.set(counterKey, count + 1);
      return [movedEndpoint(endpoint, targets[count % targets.length])];
    });
  });
}

interface NodePlace {
  name: string;
  zone: string;
}

/** Ready worker nodes with a zone, interleaved by zone: first node of each zone, then the second, … */
function rescheduleTargets(nodes: readonly Node[]): NodePlace[] {
  const byZone = schedulableNodesByZone(nodes);
  const zones = [...byZone.keys()].sort(byteOrder);
  const rounds = Math.max(0, ...zones.map((zone) => byZone.get(zone)?.length ?? 0));
  const targets: NodePlace[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const zone of zones) {
      const names = byZone.get(zone) ?? [];
      targets.push({ zone, name: names[round % names.length] });
    }
  }
  return targets;
}

/** zone -> names (sorted) of the nodes a pod can be scheduled on: ready, not control plane, with a zone. */
function schedulableNodesByZone(nodes: readonly Node[]): Map<string, string[]> {
  const byZone = new Map<string, string[]>();
  for (const node of nodes) {
    const zone = nodeZone(node);
    if (zone === '' || isExcludedNode(node) || !isNodeReady(node)) continue;
    const names = byZone.get(zone);
    if (names) names.push(node.metadata.name);
    else byZone.set(zone, [node.metadata.name]);
  }
  for (const names of byZone.values()) names.sort(byteOrder);
  return byZone;
}

function movedEndpoint(endpoint: Endpoint, target: NodePlace): Endpoint {
  const { hints: _hints, ...rest } = endpoint;
  return { ...rest, nodeName: target.name, zone: target.zone };
}

// ---------------------------------------------------------------------------------------------
// scaleReplicas
// ---------------------------------------------------------------------------------------------

/**
 * Decision: a replica is one pod, so it is added to (or removed from) every IP family the Service has
 * controller-managed slices of (else the families it declares, else IPv4), as dual-stack pods appear in
 * both families' slices.
 */
function scaleReplicas(state: WorkingSnapshot, entry: ScaleReplicasWhatIf, path: string): void {
  const service = state.service(entry);
  for (const addressType of familiesOf(state, service, entry)) {
    if (entry.delta > 0) addEndpoints(state, entry, addressType, path);
    if (entry.delta < 0) removeEndpoints(state, entry, addressType, path);
  }
}

function familiesOf(state: WorkingSnapshot, service: Service, ref: ScaleReplicasWhatIf): AddressType[] {
  const withSlices = (['IPv4', 'IPv6'] as const).filter(
    (type) => state.managedSliceIndexes(ref.namespace, ref.name, type).length > 0,
  );
  if (withSlices.length > 0) return withSlices;
  const declared = (['IPv4', 'IPv6'] as const).filter((type) => service.spec?.ipFamilies?.includes(type));
  return declared.length > 0 ? declared : ['IPv4'];
}

/**
 * New ready endpoints on the zone's ready worker nodes, round-robin by node name. They go into the
 * Service's last managed slice of the family while it has room (100 endpoints, the controller's
 * default), else into new slices named `<service>-whatif-<n>`.
 */
function addEndpoints(
  state: WorkingSnapshot,
  entry: ScaleReplicasWhatIf,
  addressType: AddressType,
  path: string,
): void {
  const nodes = schedulableNodesByZone(state.nodes).get(entry.zone);
  if (nodes === undefined) {
    throw new WhatIfError(
      `${path}.zone`,
      `no ready worker node in zone ${JSON.stringify(entry.zone)} to add replicas on`,
    );
  }
  const indexes = state.managedSliceIndexes(entry.namespace, entry.name, addressType);
  let sliceIndex = indexes.length > 0 ? indexes[indexes.length - 1] : null;
  for (let added = 0; added < entry.delta; added++) {
    if (sliceIndex === null || (state.slices[sliceIndex].endpoints ?? []).length >= MAX_ENDPOINTS_PER_SLICE) {
      sliceIndex = state.addSlice(newSlice(state, entry, addressType, sliceIndex));
    }
    const slice = state.writableSlice(sliceIndex);
    slice.endpoints.push({
      addresses: [state.nextAddress(addressType)],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: nodes[added % nodes.length],
      zone: entry.zone,
    });
  }
}

function newSlice(
  state: WorkingSnapshot,
  entry: ScaleReplicasWhatIf,
  addressType: AddressType,
  template: number | null,
): EndpointSlice {
  let n = 1;
  while (state.sliceNameTaken(entry.namespace, `${entry.name}-whatif-${n}`)) n++;
  const ports = template === null ? servicePorts(state.service(entry)) : (state.slices[template].ports ?? null);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${entry.name}-whatif-${n}`,
      namespace: entry.namespace,
      labels: controllerSliceLabels(entry.name, state.recordsManagedBy),
    },
    addressType,
    endpoints: [],
    ports: ports === null ? null : structuredClone(ports),
  };
}

/** The endpoint ports the controller derives from the Service's ports (numeric target ports as given). */
function servicePorts(service: Service): EndpointSlice['ports'] {
  return (service.spec?.ports ?? []).map((port) => {
    const target = port.targetPort;
    return {
      ...(port.name !== undefined ? { name: port.name } : {}),
      port: typeof target === 'number' ? target : port.port,
      protocol: port.protocol ?? 'TCP',
    };
  });
}

/** Removes ready endpoints of the zone, last slice and last endpoint first. */
function removeEndpoints(
  state: WorkingSnapshot,
  entry: ScaleReplicasWhatIf,
  addressType: AddressType,
  path: string,
): void {
  const wanted = -entry.delta;
  const indexes = state.managedSliceIndexes(entry.namespace, entry.name, addressType);
  const isRemovable = (endpoint: Endpoint) => isEndpointReady(endpoint) && endpoint.zone === entry.zone;
  const available = indexes.reduce(
    (sum, index) => sum + (state.slices[index].endpoints ?? []).filter(isRemovable).length,
    0,
  );
  if (available < wanted) {
    throw new WhatIfError(
      `${path}.delta`,
      `cannot remove ${wanted} endpoints: Service ${entry.namespace}/${entry.name} has ${available} ready ${addressType} endpoint${available === 1 ? '' : 's'} in zone ${JSON.stringify(entry.zone)}`,
    );
  }
  let left = wanted;
  for (const index of [...indexes].reverse()) {
    if (left === 0) break;
    if (!(state.slices[index].endpoints ?? []).some(isRemovable)) continue;
    const slice = state.writableSlice(index);
    for (let position = slice.endpoints.length - 1; position >= 0 && left > 0; position--) {
      if (!isRemovable(slice.endpoints[position])) continue;
      slice.endpoints.splice(position, 1);
      left--;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// enableRouting
// ---------------------------------------------------------------------------------------------

/**
 * The Service with its routing mode set. Decision: `Auto` sets `topology-mode: Auto` and drops the
 * deprecated `topology-aware-hints` annotation (it wins by mere presence) and leaves
 * `spec.trafficDistribution` alone (the annotation wins over it); a `trafficDistribution` mode sets the
 * field and drops both annotations (an enabling annotation would win over it); `None` drops both
 * annotations and the field.
 */
export function withRoutingMode(service: Service, mode: RoutingMode): Service {
  const annotations = { ...service.metadata.annotations };
  delete annotations[TOPOLOGY_AWARE_HINTS_ANNOTATION];
  const spec = { ...service.spec };
  if (mode === 'Auto') annotations[TOPOLOGY_MODE_ANNOTATION] = 'Auto';
  else delete annotations[TOPOLOGY_MODE_ANNOTATION];
  if (mode === 'None') delete spec.trafficDistribution;
  else if (mode !== 'Auto') spec.trafficDistribution = mode;
  return { ...service, metadata: { ...service.metadata, annotations }, spec };
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
