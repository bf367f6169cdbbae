import type {
  Condition,
  Endpoint,
  EndpointPort,
  EndpointSlice,
  Node,
  ObjectMeta,
  OwnedObject,
  Service,
  ServiceCIDR,
  ServicePort,
} from '@zw/core';
import { LAST_APPLIED_ANNOTATION } from '@zw/core';

/**
 * Cuts Kubernetes objects down to what the analysis core reads, so a snapshot of a large cluster stays
 * small: no managedFields, uids, resource versions, owner references, node images/addresses (of nodeInfo
only the kubelet version and operating system),
 * endpoint targetRefs other than Pods'… Objects come either from a typed list (client-node class instances,
 * timestamps as Date) or raw from a watch event (plain JSON); both give the same output.
 *
 * Decision: labels are kept whole (the core reads several, and they are small); annotations are kept only
 * on Services, where the core reads the topology and static-ClusterIP ones, and the kubectl
 * last-applied configuration (often many KiB) is reduced to the `spec.clusterIP(s)` it names, which is
 * all the core takes from it. Service selectors are kept (a few short labels): whether a Service has one
 * decides whether the EndpointSlice controller writes its slices, so without them a Service with
 * hand-written slices would pass for a controller-managed one.
 */

type Json = Record<string, unknown>;

export function compactNode(node: unknown): Node {
  const source = node as Json;
  const status = (source.status ?? {}) as Json;
  const allocatable = (status.allocatable ?? {}) as Record<string, unknown>;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Json[]) : [];
  const ready = conditions.find((condition) => condition.type === 'Ready');
  const compactStatus: NonNullable<Node['status']> = {};
  if (typeof allocatable.cpu === 'string') compactStatus.allocatable = { cpu: allocatable.cpu };
  if (ready) compactStatus.conditions = [{ type: 'Ready', status: String(ready.status) } satisfies Condition];
  // Which kube-proxy (its version follows the kubelet's) and which OS route traffic from this node.
  const nodeInfo = pick((status.nodeInfo ?? {}) as Json, ['kubeletVersion', 'operatingSystem']);
  if (Object.keys(nodeInfo).length > 0) compactStatus.nodeInfo = nodeInfo;
  return { apiVersion: 'v1', kind: 'Node', metadata: compactMetadata(source.metadata, false), status: compactStatus };
}

const SERVICE_SPEC_FIELDS = [
  'type',
  'clusterIP',
  'clusterIPs',
  'ipFamilies',
  'externalIPs',
  'internalTrafficPolicy',
  'externalTrafficPolicy',
  'trafficDistribution',
  'publishNotReadyAddresses',
] as const;

export function compactService(service: unknown): Service {
  const source = service as Json;
  const spec = (source.spec ?? {}) as Json;
  const compactSpec: NonNullable<Service['spec']> = {};
  for (const field of SERVICE_SPEC_FIELDS) {
    if (spec[field] !== undefined && spec[field] !== null) compactSpec[field] = spec[field] as never;
  }
  if (Array.isArray(spec.ports)) compactSpec.ports = (spec.ports as Json[]).map(compactServicePort);
  if (typeof spec.selector === 'object' && spec.selector !== null)
    compactSpec.selector = { ...(spec.selector as Record<string, string>) };
  const result: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: compactMetadata(source.metadata, true),
    spec: compactSpec,
  };
  const ingress = ((source.status as Json | undefined)?.loadBalancer as Json | undefined)?.ingress;
  if (Array.isArray(ingress) && ingress.length > 0) {
    result.status = {
      loadBalancer: { ingress: (ingress as Json[]).map((entry) => pick(entry, ['ip', 'hostname', 'ipMode'])) },
    };
  }
  return result;
}

function compactServicePort(port: Json): ServicePort {
  return pick(port, ['name', 'port', 'protocol', 'nodePort']) as ServicePort;
}

export function compactEndpointSlice(slice: unknown): EndpointSlice {
  const source = slice as Json;
  const endpoints = Array.isArray(source.endpoints) ? (source.endpoints as Json[]) : [];
  const result: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: compactMetadata(source.metadata, false),
    addressType: source.addressType as EndpointSlice['addressType'],
    endpoints: endpoints.map(compactEndpoint),
  };
  if (Array.isArray(source.ports))
    result.ports = (source.ports as Json[]).map((port) => pick(port, ['name', 'port', 'protocol']) as EndpointPort);
  return result;
}

function compactEndpoint(endpoint: Json): Endpoint {
  const result: Endpoint = { addresses: Array.isArray(endpoint.addresses) ? (endpoint.addresses as string[]) : [] };
  const conditions = endpoint.conditions as Json | undefined;
  if (conditions) result.conditions = pick(conditions, ['ready', 'serving', 'terminating']);
  if (typeof endpoint.nodeName === 'string') result.nodeName = endpoint.nodeName;
  if (typeof endpoint.zone === 'string') result.zone = endpoint.zone;
  // Pod references map a traffic source's per-Pod bytes (Beyla, OpenCost) to Services; nothing else reads
  // them. Only the name: the EndpointSlice controller references Pods of the slice's own namespace.
  const ref = endpoint.targetRef as Json | undefined;
  if (ref?.kind === 'Pod' && typeof ref.name === 'string') result.targetRef = { kind: 'Pod', name: ref.name };
  const hints = endpoint.hints as Json | undefined;
  if (hints) {
    const names = (list: unknown) =>
      Array.isArray(list) ? (list as Json[]).map((entry) => ({ name: String(entry.name) })) : undefined;
    const forZones = names(hints.forZones);
    const forNodes = names(hints.forNodes);
    result.hints = { ...(forZones ? { forZones } : {}), ...(forNodes ? { forNodes } : {}) };
  }
  return result;
}

export function compactServiceCIDR(serviceCIDR: unknown): ServiceCIDR {
  const source = serviceCIDR as Json;
  const spec = (source.spec ?? {}) as Json;
  const result: ServiceCIDR = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: compactMetadata(source.metadata, false),
    spec: { cidrs: Array.isArray(spec.cidrs) ? (spec.cidrs as string[]) : [] },
  };
  const conditions = (source.status as Json | undefined)?.conditions;
  if (Array.isArray(conditions)) {
    result.status = {
      conditions: (conditions as Json[]).map((condition) => pick(condition, ['type', 'status', 'reason']) as Condition),
    };
  }
  return result;
}

/**
 * A Pod or ReplicaSet as the workload lookup reads it: name, namespace and the controller owner
 * reference (kind and name), nothing else.
 */
export function compactOwned(object: unknown, kind: 'Pod' | 'ReplicaSet'): OwnedObject {
  const metadata = ((object as Json).metadata ?? {}) as Json;
  const references = Array.isArray(metadata.ownerReferences) ? (metadata.ownerReferences as Json[]) : [];
  const controller = references.find((reference) => reference.controller === true);
  const result: OwnedObject = {
    apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1',
    kind,
    metadata: { name: String(metadata.name ?? '') },
  };
  if (typeof metadata.namespace === 'string' && metadata.namespace !== '')
    result.metadata.namespace = metadata.namespace;
  if (controller && typeof controller.kind === 'string' && typeof controller.name === 'string') {
    result.metadata.ownerReferences = [{ kind: controller.kind, name: controller.name, controller: true }];
  }
  return result;
}

function compactMetadata(metadata: unknown, keepAnnotations: boolean): ObjectMeta {
  const source = (metadata ?? {}) as Json;
  const result: ObjectMeta = { name: String(source.name ?? '') };
  if (typeof source.namespace === 'string' && source.namespace !== '') result.namespace = source.namespace;
  const labels = source.labels as Record<string, string> | undefined;
  if (labels && Object.keys(labels).length > 0) result.labels = { ...labels };
  const annotations = keepAnnotations
    ? compactAnnotations(source.annotations as Record<string, string> | undefined)
    : null;
  if (annotations) result.annotations = annotations;
  const deletion = source.deletionTimestamp;
  // One spelling whether the object came typed (a Date) or raw (RFC 3339 text), so the bytes do not flip.
  if (deletion instanceof Date) result.deletionTimestamp = deletion.toISOString();
  else if (typeof deletion === 'string')
    result.deletionTimestamp = Number.isNaN(Date.parse(deletion)) ? deletion : new Date(deletion).toISOString();
  return result;
}

function compactAnnotations(annotations: Record<string, string> | undefined): Record<string, string> | null {
  if (!annotations) return null;
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations)) {
    if (key !== LAST_APPLIED_ANNOTATION) result[key] = value;
  }
  const lastApplied = compactLastApplied(annotations[LAST_APPLIED_ANNOTATION]);
  if (lastApplied !== null) result[LAST_APPLIED_ANNOTATION] = lastApplied;
  return Object.keys(result).length > 0 ? result : null;
}

/** The last-applied configuration reduced to the ClusterIPs it requested; null when it names none. */
export function compactLastApplied(text: string | undefined): string | null {
  if (text === undefined) return null;
  let spec: unknown;
  try {
    spec = (JSON.parse(text) as Json | null)?.spec;
  } catch {
    return null;
  }
  if (typeof spec !== 'object' || spec === null) return null;
  const kept = pick(spec as Json, ['clusterIP', 'clusterIPs']);
  return Object.keys(kept).length > 0 ? JSON.stringify({ spec: kept }) : null;
}

function pick<K extends string>(source: Json, keys: readonly K[]): Partial<Record<K, never>> {
  const result: Json = {};
  for (const key of keys) {
    if (source[key] !== undefined && source[key] !== null) result[key] = source[key];
  }
  return result as Partial<Record<K, never>>;
}
