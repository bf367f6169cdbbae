import { capturedAtField, parseTimestamp } from './captured-at.js';
import {
  DATA_PLANE_ANNOTATION,
  DATA_PLANE_NAMES,
  isDataPlaneName,
  KUBERNETES_VERSION_ANNOTATION,
} from './cluster-settings.js';
import { parseCidr } from './ip-addresses.js';
import { parseKubernetesMinor } from './kubernetes-versions.js';
import { jsonLimitProblem, jsonTextLimitProblem } from './json-limits.js';
import type { EndpointSlice, Node, OwnedObject, OwnerReference, Service, ServiceCIDR } from './k8s-objects.js';
import { parseQuantity } from './quantity.js';
import type { Snapshot } from './snapshot-model.js';

/**
 * Reads a cluster snapshot: what `kubectl get nodes,services,endpointslices,servicecidrs -A -o json`
 * prints, or the same objects wrapped as `{nodes, services, endpointSlices, serviceCIDRs}`; optionally
 * with Pods and ReplicaSets (`…,pods,replicasets`, wrapped as `pods` and `replicaSets`), of which only
 * the names and owner references are kept (the workload behind each endpoint, see workloads.ts).
 *
 * Only the fields the analysis reads are checked, and only for shape: a snapshot of 150,000 endpoints
 * must be checked in a fraction of the time JSON.parse takes, which is why this is a hand-written walk
 * rather than a schema library. Every error names the JSON path of the offending value.
 */

export const SERVICE_CIDR_ANNOTATION = 'zonewise.io/service-cidr';
export const ZONE_TRAFFIC_WEIGHTS_ANNOTATION = 'zonewise.io/zone-traffic-weights';

export class SnapshotError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path ? `${path}: ${problem}` : problem);
    this.name = 'SnapshotError';
  }
}

type Json = Record<string, unknown>;

const READ_KINDS = new Set(['Node', 'Service', 'EndpointSlice', 'ServiceCIDR', 'Pod', 'ReplicaSet']);
const ADDRESS_TYPES = new Set(['IPv4', 'IPv6', 'FQDN']);

const EXPECTED_SNAPSHOT =
  'expected a Kubernetes List ({"kind":"List","items":[…]}) or {"nodes":[…],"services":[…],"endpointSlices":[…],"serviceCIDRs":[…]}';

/**
 * Longest object name or namespace. Kubernetes allows 253 characters (a DNS subdomain); names are keys
 * of the history's indexes, which cannot hold arbitrarily long values.
 */
export const MAX_OBJECT_NAME_LENGTH = 253;

/**
 * Parses snapshot JSON text: a SyntaxError when it is not JSON, a SnapshotError naming the JSON path when
 * it breaks a limit of json-limits.ts. Cheaper than JSON.parse then {@link parseSnapshot} alone, which
 * cannot know which strings need checking; pass the result to parseSnapshot as it is.
 */
export function parseSnapshotJson(text: string): unknown {
  const document = JSON.parse(text) as unknown;
  const limit = jsonTextLimitProblem(document, text);
  if (limit) throw new SnapshotError(limit.path, limit.problem);
  return document;
}

/**
 * Checks and normalises a parsed snapshot. It normalises in place (a missing slice `endpoints` becomes
 * `[]`, a missing namespace `default`): the input is JSON the caller has just parsed, and copying
 * 150,000 endpoints would cost as much as the analysis.
 *
 * This is the one definition of a valid snapshot: the API's ingest and simulate routes, the worker and the
 * CLI all call it, so a snapshot the API accepts is one the worker can analyse. Besides the fields the
 * analysis reads, the whole document meets the limits of json-limits.ts (depth, no NUL, no lone
 * surrogates), each object appears once (kind, namespace and name), and a stated captured-at is a real
 * RFC 3339 timestamp.
 */
export function parseSnapshot(input: unknown): Snapshot {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new SnapshotError('', `${EXPECTED_SNAPSHOT}, got ${describe(input)}`);
  }
  const limit = jsonLimitProblem(input);
  if (limit) throw new SnapshotError(limit.path, limit.problem);
  const root = input as Json;
  let snapshot: Snapshot;
  if (Array.isArray(root.items)) snapshot = parseList(root);
  else if (WRAPPED_FIELDS.some(([field]) => field in root)) snapshot = parseWrapped(root);
  else throw new SnapshotError('', EXPECTED_SNAPSHOT);
  statedCapturedAt(root);
  return snapshot;
}

/**
 * When the snapshot says it was captured (see captured-at.ts for where), or null when it does not say; a
 * SnapshotError naming the path when the value there is no RFC 3339 timestamp on a real calendar day.
 */
export function statedCapturedAt(document: Record<string, unknown>): Date | null {
  const { value, path } = capturedAtField(document);
  if (value === undefined) return null;
  const time = typeof value === 'string' ? parseTimestamp(value) : null;
  if (time === null) {
    throw new SnapshotError(
      path,
      `expected an RFC 3339 timestamp of a real date and time, such as 2026-01-31T12:00:00Z, got ${describe(value)}`,
    );
  }
  return time;
}

/**
 * Decision: an object that appears twice (same kind, namespace and name) is refused, naming both places,
 * not merged: no rule could say which copy is the cluster's, and the usual cause is a List put together
 * from two `kubectl get` outputs, which the user should know about. Keys are by kind, then namespace
 * (none for Nodes and ServiceCIDRs) and name.
 */
const NAMESPACED_KINDS = new Set(['Service', 'EndpointSlice', 'Pod', 'ReplicaSet']);

class ObjectIdentities {
  /** Kind, then namespace ('' for cluster-scoped kinds), then name: the path where it was first seen. */
  private readonly seen = new Map<string, Map<string, Map<string, string>>>();

  add(kind: string, item: Json, path: string): void {
    const metadata = item.metadata as { namespace?: string; name: string };
    const namespaced = NAMESPACED_KINDS.has(kind);
    const namespace = namespaced ? (metadata.namespace as string) : '';
    // Nested maps rather than one joined key: parsed strings keep their hashes, joined ones need new ones.
    let namespaces = this.seen.get(kind);
    if (namespaces === undefined) this.seen.set(kind, (namespaces = new Map()));
    let names = namespaces.get(namespace);
    if (names === undefined) namespaces.set(namespace, (names = new Map()));
    const first = names.get(metadata.name);
    if (first !== undefined) {
      const object = namespaced ? `${kind} ${namespace}/${metadata.name}` : `${kind} ${metadata.name}`;
      throw new SnapshotError(
        path,
        `the same object as ${first} (${object}): each object may appear once (was the List put together from two kubectl outputs?)`,
      );
    }
    names.set(metadata.name, path);
  }
}

function parseList(root: Json): Snapshot {
  const snapshot = emptySnapshot();
  const identities = new ObjectIdentities();
  const items = root.items as unknown[];
  for (let i = 0; i < items.length; i++) {
    const path = `items[${i}]`;
    const item = expectObject(items[i], path);
    const kind = expectString(item.kind, path, '.kind');
    if (!READ_KINDS.has(kind)) continue;
    addObject(snapshot, kind, item, path);
    identities.add(kind, item, path);
  }
  readListSettings(snapshot, root);
  return snapshot;
}

const WRAPPED_FIELDS: readonly [string, string][] = [
  ['nodes', 'Node'],
  ['services', 'Service'],
  ['endpointSlices', 'EndpointSlice'],
  ['serviceCIDRs', 'ServiceCIDR'],
  ['pods', 'Pod'],
  ['replicaSets', 'ReplicaSet'],
];

function parseWrapped(root: Json): Snapshot {
  const snapshot = emptySnapshot();
  const identities = new ObjectIdentities();
  for (const [field, kind] of WRAPPED_FIELDS) {
    const value = root[field];
    if (value === undefined || value === null) continue;
    if (!Array.isArray(value)) throw new SnapshotError(field, `expected an array of ${kind} objects`);
    for (let i = 0; i < value.length; i++) {
      const path = `${field}[${i}]`;
      const item = expectObject(value[i], path);
      addObject(snapshot, kind, item, path);
      identities.add(kind, item, path);
    }
  }
  readListSettings(snapshot, root);
  return snapshot;
}

function emptySnapshot(): Snapshot {
  return {
    nodes: [],
    services: [],
    endpointSlices: [],
    serviceCIDRs: [],
    annotatedServiceCIDRs: [],
    zoneTrafficWeights: null,
    pods: [],
    replicaSets: [],
  };
}

function addObject(snapshot: Snapshot, kind: string, item: Json, path: string): void {
  switch (kind) {
    case 'Node':
      snapshot.nodes.push(checkNode(item, path));
      return;
    case 'Service':
      snapshot.services.push(checkService(item, path));
      return;
    case 'EndpointSlice':
      snapshot.endpointSlices.push(checkEndpointSlice(item, path));
      return;
    case 'ServiceCIDR':
      snapshot.serviceCIDRs.push(checkServiceCIDR(item, path));
      return;
    case 'Pod':
      snapshot.pods!.push(ownedObjectOf(item, path, 'Pod'));
      return;
    case 'ReplicaSet':
      snapshot.replicaSets!.push(ownedObjectOf(item, path, 'ReplicaSet'));
      return;
  }
}

function readListSettings(snapshot: Snapshot, root: Json): void {
  if (root.metadata === undefined || root.metadata === null) return;
  const metadata = expectObject(root.metadata, 'metadata');
  const annotations = optionalStringMap(metadata.annotations, 'metadata.annotations');
  if (!annotations) return;
  const cidrs = annotations[SERVICE_CIDR_ANNOTATION];
  if (cidrs !== undefined) {
    snapshot.annotatedServiceCIDRs = parseCidrList(cidrs, annotationPath(SERVICE_CIDR_ANNOTATION));
  }
  const weights = annotations[ZONE_TRAFFIC_WEIGHTS_ANNOTATION];
  if (weights !== undefined) {
    snapshot.zoneTrafficWeights = parseZoneWeights(weights, annotationPath(ZONE_TRAFFIC_WEIGHTS_ANNOTATION));
  }
  readClusterProfile(snapshot, annotations);
}

function readClusterProfile(snapshot: Snapshot, annotations: Record<string, string>): void {
  const version = annotations[KUBERNETES_VERSION_ANNOTATION];
  if (version !== undefined && version !== '') {
    if (parseKubernetesMinor(version) === null) {
      throw new SnapshotError(
        annotationPath(KUBERNETES_VERSION_ANNOTATION),
        `"${version}" is not a Kubernetes version (expected MAJOR.MINOR, e.g. 1.31)`,
      );
    }
    snapshot.kubernetesVersion = version;
  }
  const dataPlane = annotations[DATA_PLANE_ANNOTATION];
  if (dataPlane !== undefined && dataPlane !== '') {
    if (!isDataPlaneName(dataPlane)) {
      throw new SnapshotError(annotationPath(DATA_PLANE_ANNOTATION), unknownDataPlaneProblem(dataPlane));
    }
    snapshot.dataPlane = dataPlane;
  }
}

export function unknownDataPlaneProblem(name: string): string {
  return `unknown data plane "${name}" (expected one of ${DATA_PLANE_NAMES.join(', ')})`;
}

function annotationPath(key: string): string {
  return `metadata.annotations["${key}"]`;
}

function parseCidrList(text: string, path: string): string[] {
  const cidrs = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const cidr of cidrs) checkCidr(cidr, path);
  return cidrs;
}

/** `zone-a=3,zone-b=1`: relative request volume originating in each zone. */
export function parseZoneWeights(text: string, path: string): Record<string, number> {
  // A Map first: assigning to a plain object would turn a zone named `__proto__` into its prototype.
  const weights = new Map<string, number>();
  for (const part of text.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    const separator = entry.lastIndexOf('=');
    const zone = entry.slice(0, separator).trim();
    const weight = Number(entry.slice(separator + 1).trim());
    if (separator <= 0 || zone === '' || !Number.isFinite(weight) || weight < 0) {
      throw new SnapshotError(path, `"${entry}" is not a zone weight (expected zone=number, e.g. us-east-1a=2)`);
    }
    weights.set(zone, weight);
  }
  if ([...weights.values()].every((weight) => weight === 0)) {
    throw new SnapshotError(path, 'expected at least one zone with a positive weight');
  }
  return Object.fromEntries(weights);
}

function checkNode(item: Json, path: string): Node {
  checkMetadata(item, path, false);
  if (item.status !== undefined && item.status !== null) {
    const status = expectObject(item.status, path, '.status');
    const allocatable = optionalStringMap(status.allocatable, path, '.status.allocatable');
    if (allocatable?.cpu !== undefined) checkQuantity(allocatable.cpu, path, '.status.allocatable.cpu');
    checkConditions(status.conditions, path, '.status.conditions');
  }
  return item as unknown as Node;
}

const SERVICE_STRING_FIELDS = [
  'type',
  'clusterIP',
  'internalTrafficPolicy',
  'externalTrafficPolicy',
  'trafficDistribution',
];

function checkService(item: Json, path: string): Service {
  checkMetadata(item, path, true);
  if (item.spec === undefined || item.spec === null) return item as unknown as Service;
  const spec = expectObject(item.spec, path, '.spec');
  for (const field of SERVICE_STRING_FIELDS) optionalString(spec[field], path, `.spec.${field}`);
  optionalStringArray(spec.clusterIPs, path, '.spec.clusterIPs');
  optionalStringArray(spec.externalIPs, path, '.spec.externalIPs');
  optionalStringMap(spec.selector, path, '.spec.selector');
  optionalStringArray(spec.ipFamilies, path, '.spec.ipFamilies');
  optionalBoolean(spec.publishNotReadyAddresses, path, '.spec.publishNotReadyAddresses');
  if (spec.ports !== undefined && spec.ports !== null) {
    const ports = expectArray(spec.ports, path, '.spec.ports');
    for (let i = 0; i < ports.length; i++) {
      const portField = `.spec.ports[${i}]`;
      const port = expectObject(ports[i], path, portField);
      expectPort(port.port, path, `${portField}.port`);
      optionalString(port.name, path, `${portField}.name`);
      optionalString(port.protocol, path, `${portField}.protocol`);
      if (port.nodePort !== undefined && port.nodePort !== null)
        expectPort(port.nodePort, path, `${portField}.nodePort`);
    }
  }
  checkLoadBalancerStatus(item.status, path);
  return item as unknown as Service;
}

function checkLoadBalancerStatus(value: unknown, path: string): void {
  if (value === undefined || value === null) return;
  const status = expectObject(value, path, '.status');
  if (status.loadBalancer === undefined || status.loadBalancer === null) return;
  const loadBalancer = expectObject(status.loadBalancer, path, '.status.loadBalancer');
  if (loadBalancer.ingress === undefined || loadBalancer.ingress === null) return;
  const ingress = expectArray(loadBalancer.ingress, path, '.status.loadBalancer.ingress');
  for (let i = 0; i < ingress.length; i++) {
    const field = `.status.loadBalancer.ingress[${i}]`;
    const entry = expectObject(ingress[i], path, field);
    for (const key of ['ip', 'hostname', 'ipMode']) optionalString(entry[key], path, `${field}.${key}`);
  }
}

function checkEndpointSlice(item: Json, path: string): EndpointSlice {
  checkMetadata(item, path, true);
  const addressType = expectString(item.addressType, path, '.addressType');
  if (!ADDRESS_TYPES.has(addressType)) {
    throw new SnapshotError(
      `${path}.addressType`,
      `"${addressType}" is not an address type (expected IPv4, IPv6 or FQDN)`,
    );
  }
  if (item.endpoints === undefined || item.endpoints === null) {
    // The API server omits `endpoints` for an empty slice; the analysis reads it as [].
    item.endpoints = [];
  }
  const endpoints = expectArray(item.endpoints, path, '.endpoints');
  for (let i = 0; i < endpoints.length; i++) {
    if (!isPlainEndpoint(endpoints[i])) checkEndpoint(endpoints[i], `${path}.endpoints[${i}]`);
  }
  if (item.ports !== undefined && item.ports !== null) {
    const ports = expectArray(item.ports, path, '.ports');
    for (let i = 0; i < ports.length; i++) {
      const portField = `.ports[${i}]`;
      const port = expectObject(ports[i], path, portField);
      if (port.port !== undefined && port.port !== null) expectPort(port.port, path, `${portField}.port`);
      optionalString(port.name, path, `${portField}.name`);
      optionalString(port.protocol, path, `${portField}.protocol`);
    }
  }
  return item as unknown as EndpointSlice;
}

/**
 * The common endpoint, checked without building a single path string: only when this says no does
 * {@link checkEndpoint} walk the endpoint again to name what is wrong. At 150,000 endpoints the eager
 * path strings alone cost more than the checks.
 */
function isPlainEndpoint(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const endpoint = value as Json;
  const addresses = endpoint.addresses;
  if (!Array.isArray(addresses)) return false;
  for (let i = 0; i < addresses.length; i++) if (typeof addresses[i] !== 'string') return false;
  if (!isOptional(endpoint.zone, 'string') || !isOptional(endpoint.nodeName, 'string')) return false;
  const conditions = endpoint.conditions;
  if (conditions !== undefined && conditions !== null) {
    if (typeof conditions !== 'object' || Array.isArray(conditions)) return false;
    const { ready, serving, terminating } = conditions as Json;
    if (!isOptional(ready, 'boolean') || !isOptional(serving, 'boolean') || !isOptional(terminating, 'boolean'))
      return false;
  }
  const hints = endpoint.hints;
  if (hints === undefined || hints === null) return true;
  if (typeof hints !== 'object' || Array.isArray(hints)) return false;
  return isNamedList((hints as Json).forZones) && isNamedList((hints as Json).forNodes);
}

function isOptional(value: unknown, type: 'string' | 'boolean'): boolean {
  return value === undefined || value === null || typeof value === type;
}

function isNamedList(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (!Array.isArray(value)) return false;
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null || typeof (entry as Json).name !== 'string') return false;
  }
  return true;
}

function checkEndpoint(value: unknown, path: string): void {
  const endpoint = expectObject(value, path);
  const addresses = expectArray(endpoint.addresses, path, '.addresses');
  for (let i = 0; i < addresses.length; i++) expectString(addresses[i], `${path}.addresses[${i}]`);
  optionalString(endpoint.zone, path, '.zone');
  optionalString(endpoint.nodeName, path, '.nodeName');
  if (endpoint.conditions !== undefined && endpoint.conditions !== null) {
    const conditions = expectObject(endpoint.conditions, path, '.conditions');
    optionalBoolean(conditions.ready, path, '.conditions.ready');
    optionalBoolean(conditions.serving, path, '.conditions.serving');
    optionalBoolean(conditions.terminating, path, '.conditions.terminating');
  }
  if (endpoint.hints !== undefined && endpoint.hints !== null) {
    const hints = expectObject(endpoint.hints, path, '.hints');
    checkNamedList(hints.forZones, `${path}.hints.forZones`);
    checkNamedList(hints.forNodes, `${path}.hints.forNodes`);
  }
}

function checkNamedList(value: unknown, path: string): void {
  if (value === undefined || value === null) return;
  const entries = expectArray(value, path);
  for (let i = 0; i < entries.length; i++) {
    expectString(expectObject(entries[i], `${path}[${i}]`).name, `${path}[${i}].name`);
  }
}

function checkServiceCIDR(item: Json, path: string): ServiceCIDR {
  checkMetadata(item, path, false);
  const spec = expectObject(item.spec, path, '.spec');
  const cidrs = expectArray(spec.cidrs, path, '.spec.cidrs');
  for (let i = 0; i < cidrs.length; i++)
    checkCidr(expectString(cidrs[i], `${path}.spec.cidrs[${i}]`), `${path}.spec.cidrs[${i}]`);
  if (item.status !== undefined && item.status !== null) {
    checkConditions(expectObject(item.status, `${path}.status`).conditions, path, '.status.conditions');
  }
  return item as unknown as ServiceCIDR;
}

/**
 * A Pod or ReplicaSet reduced to what the workload lookup reads: a full Pod from kubectl is many KiB,
 * and a snapshot may carry one per endpoint.
 */
function ownedObjectOf(item: Json, path: string, kind: 'Pod' | 'ReplicaSet'): OwnedObject {
  checkMetadata(item, path, true);
  const metadata = item.metadata as Json;
  const owners: OwnerReference[] = [];
  if (metadata.ownerReferences !== undefined && metadata.ownerReferences !== null) {
    const references = expectArray(metadata.ownerReferences, path, '.metadata.ownerReferences');
    for (let i = 0; i < references.length; i++) {
      const field = `.metadata.ownerReferences[${i}]`;
      const reference = expectObject(references[i], path, field);
      const ownerKind = expectString(reference.kind, path, `${field}.kind`);
      const name = expectString(reference.name, path, `${field}.name`);
      optionalBoolean(reference.controller, path, `${field}.controller`);
      owners.push(
        reference.controller === true ? { kind: ownerKind, name, controller: true } : { kind: ownerKind, name },
      );
    }
  }
  const compact: OwnedObject['metadata'] = { name: metadata.name as string, namespace: metadata.namespace as string };
  if (owners.length > 0) compact.ownerReferences = owners;
  return { kind, metadata: compact };
}

function checkMetadata(item: Json, path: string, namespaced: boolean): void {
  const metadata = expectObject(item.metadata, path, '.metadata');
  checkObjectName(metadata.name, path, '.metadata.name');
  optionalStringMap(metadata.labels, path, '.metadata.labels');
  optionalStringMap(metadata.annotations, path, '.metadata.annotations');
  // `null` maps are no maps: the model's readers take them as absent (a destructuring default would not).
  if (metadata.labels === null) delete metadata.labels;
  if (metadata.annotations === null) delete metadata.annotations;
  optionalString(metadata.deletionTimestamp, path, '.metadata.deletionTimestamp');
  if (namespaced) {
    // Decision: a namespaced object without a namespace (hand-written input) lives in `default`,
    // as kubectl would have created it.
    if (metadata.namespace === undefined || metadata.namespace === null) metadata.namespace = 'default';
    checkObjectName(metadata.namespace, path, '.metadata.namespace');
  }
}

function checkObjectName(value: unknown, path: string, field: string): void {
  const name = expectString(value, path, field);
  if (name === '') throw new SnapshotError(path + field, 'expected a non-empty name');
  if (name.length > MAX_OBJECT_NAME_LENGTH) {
    throw new SnapshotError(path + field, `expected at most ${MAX_OBJECT_NAME_LENGTH} characters, got ${name.length}`);
  }
}

function checkConditions(value: unknown, path: string, field = ''): void {
  if (value === undefined || value === null) return;
  const conditions = expectArray(value, path, field);
  for (let i = 0; i < conditions.length; i++) {
    const condition = expectObject(conditions[i], path, `${field}[${i}]`);
    expectString(condition.type, path, `${field}[${i}].type`);
    expectString(condition.status, path, `${field}[${i}].status`);
  }
}

/** Whole cores or millicores, the forms the kubelet reports: valid without the full quantity grammar. */
const PLAIN_CPU = /^[0-9]{1,15}m?$/;

function checkQuantity(value: string, path: string, field = ''): void {
  if (PLAIN_CPU.test(value)) return;
  try {
    parseQuantity(value);
  } catch (error) {
    throw new SnapshotError(path + field, (error as Error).message);
  }
}

function checkCidr(value: string, path: string): void {
  try {
    parseCidr(value);
  } catch (error) {
    throw new SnapshotError(path, (error as Error).message);
  }
}

function expectObject(value: unknown, path: string, field = ''): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SnapshotError(path + field, `expected an object, got ${describe(value)}`);
  }
  return value as Json;
}

function expectArray(value: unknown, path: string, field = ''): unknown[] {
  if (!Array.isArray(value)) throw new SnapshotError(path + field, `expected an array, got ${describe(value)}`);
  return value;
}

function expectString(value: unknown, path: string, field = ''): string {
  if (typeof value !== 'string') throw new SnapshotError(path + field, `expected a string, got ${describe(value)}`);
  return value;
}

function expectPort(value: unknown, path: string, field = ''): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    throw new SnapshotError(path + field, `expected a port number 0-65535, got ${describe(value)}`);
  }
}

function optionalString(value: unknown, path: string, field = ''): void {
  if (value !== undefined && value !== null) expectString(value, path, field);
}

function optionalBoolean(value: unknown, path: string, field = ''): void {
  if (value !== undefined && value !== null && typeof value !== 'boolean') {
    throw new SnapshotError(path + field, `expected true, false or null, got ${describe(value)}`);
  }
}

function optionalStringArray(value: unknown, path: string, field = ''): void {
  if (value === undefined || value === null) return;
  const entries = expectArray(value, path, field);
  for (let i = 0; i < entries.length; i++) {
    if (typeof entries[i] !== 'string') expectString(entries[i], `${path}${field}[${i}]`);
  }
}

function optionalStringMap(value: unknown, path: string, field = ''): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  const map = expectObject(value, path, field);
  for (const key in map) {
    if (typeof map[key] !== 'string') {
      throw new SnapshotError(`${path}${field}["${key}"]`, `expected a string, got ${describe(map[key])}`);
    }
  }
  return map as Record<string, string>;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  if (value === undefined) return 'nothing (the field is missing)';
  return `${typeof value} ${String(value)}`;
}
