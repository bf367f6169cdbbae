/**
 * The workload behind each endpoint: an endpoint's `targetRef` (kind Pod) leads to the Pod, the Pod's
 * controller `ownerReference` to its workload, and a ReplicaSet's own controller owner to the Deployment
 * (or another controller, e.g. an Argo Rollout) that manages it, as kube-controller-manager's
 * `replicaset.go` and `deployment_controller.go` set those references. Plain data in, plain data out.
 */
import { isControllerManaged } from './analyze.js';
import { isEndpointReady } from './hints.js';
import type { EndpointSlice, OwnedObject, OwnerReference } from './k8s-objects.js';
import { primaryAddressType } from './service-outcome.js';
import type { Snapshot } from './snapshot-model.js';

export interface WorkloadRef {
  /** `Deployment`, `StatefulSet`, `DaemonSet`, `ReplicaSet` (one no Deployment owns) or any other kind. */
  kind: string;
  namespace: string;
  name: string;
}

/** Why a Pod's workload is not known. */
export type UnknownWorkloadReason = 'no-pods' | 'pod-missing' | 'no-controller' | 'replicaset-missing' | 'node-owned';

export type PodWorkload = { workload: WorkloadRef } | { workload: null; reason: UnknownWorkloadReason };

/** The Pods and ReplicaSets of a snapshot, indexed by `namespace/name`. */
export class WorkloadIndex {
  private readonly pods = new Map<string, OwnedObject>();
  private readonly replicaSets = new Map<string, OwnedObject>();
  /** Whether the snapshot carries Pods at all (an older agent, or a plain kubectl List without them). */
  readonly hasPods: boolean;

  constructor(snapshot: Pick<Snapshot, 'pods' | 'replicaSets'>) {
    for (const pod of snapshot.pods ?? []) this.pods.set(keyOf(pod), pod);
    for (const set of snapshot.replicaSets ?? []) this.replicaSets.set(keyOf(set), set);
    this.hasPods = this.pods.size > 0;
  }

  ofPod(namespace: string, name: string): PodWorkload {
    if (!this.hasPods) return { workload: null, reason: 'no-pods' };
    const pod = this.pods.get(`${namespace}/${name}`);
    if (pod === undefined) return { workload: null, reason: 'pod-missing' };
    const owner = controllerOf(pod);
    if (owner === null) return { workload: null, reason: 'no-controller' };
    // A mirror Pod (a static Pod the kubelet reports) is owned by its Node: nothing to scale.
    if (owner.kind === 'Node') return { workload: null, reason: 'node-owned' };
    if (owner.kind !== 'ReplicaSet') return { workload: { kind: owner.kind, namespace, name: owner.name } };
    const replicaSet = this.replicaSets.get(`${namespace}/${owner.name}`);
    if (replicaSet === undefined) return { workload: null, reason: 'replicaset-missing' };
    const top = controllerOf(replicaSet);
    return { workload: top === null ? { kind: 'ReplicaSet', namespace, name: owner.name } : { ...top, namespace } };
  }
}

function keyOf(object: OwnedObject): string {
  return `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
}

/** The owner reference with `controller: true` (at most one, as the API server enforces). */
function controllerOf(object: OwnedObject): { kind: string; name: string } | null {
  const owner = (object.metadata.ownerReferences ?? []).find((ref: OwnerReference) => ref.controller === true);
  return owner === undefined ? null : { kind: owner.kind, name: owner.name };
}

/** One workload of a Service: its ready endpoints per zone (`''` for endpoints without a zone). */
export interface ServiceWorkload {
  workload: WorkloadRef;
  readyByZone: Map<string, number>;
}

export interface ServiceWorkloads {
  /** By name order of `kind/name`. */
  known: ServiceWorkload[];
  /** Ready endpoints whose workload is not known, and why (the first reason met, by endpoint order). */
  unknownEndpoints: number;
  unknownReason: UnknownWorkloadReason | null;
}

/**
 * The workloads behind a Service's ready endpoints of its primary address family, in the slices the
 * EndpointSlice controller manages (the endpoints a replicas fix counts).
 */
export function serviceWorkloads(slices: readonly EndpointSlice[], index: WorkloadIndex): ServiceWorkloads {
  const addressType = primaryAddressType(slices);
  const known = new Map<string, ServiceWorkload>();
  let unknownEndpoints = 0;
  let unknownReason: UnknownWorkloadReason | null = null;
  for (const slice of slices) {
    if (slice.addressType !== addressType || !isControllerManaged(slice)) continue;
    const namespace = slice.metadata.namespace ?? 'default';
    for (const endpoint of slice.endpoints ?? []) {
      if (!isEndpointReady(endpoint)) continue;
      const found = workloadOfEndpoint(endpoint.targetRef, namespace, index);
      if (found.workload === null) {
        unknownEndpoints++;
        unknownReason ??= found.reason;
        continue;
      }
      const key = `${found.workload.kind}/${found.workload.name}`;
      const entry = known.get(key) ?? { workload: found.workload, readyByZone: new Map<string, number>() };
      const zone = endpoint.zone ?? '';
      entry.readyByZone.set(zone, (entry.readyByZone.get(zone) ?? 0) + 1);
      known.set(key, entry);
    }
  }
  const sorted = [...known].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry);
  return { known: sorted, unknownEndpoints, unknownReason };
}

function workloadOfEndpoint(ref: unknown, sliceNamespace: string, index: WorkloadIndex): PodWorkload {
  const target = ref as { kind?: unknown; name?: unknown; namespace?: unknown } | undefined;
  if (target?.kind !== 'Pod' || typeof target.name !== 'string') {
    return { workload: null, reason: index.hasPods ? 'pod-missing' : 'no-pods' };
  }
  const namespace = typeof target.namespace === 'string' && target.namespace !== '' ? target.namespace : sliceNamespace;
  return index.ofPod(namespace, target.name);
}

/** Why the workload is not known, in words for a patch comment. */
export function unknownWorkloadText(reason: UnknownWorkloadReason | null): string {
  switch (reason) {
    case 'no-pods':
      return 'the snapshot carries no Pods, so the owner of its endpoints is not known';
    case 'pod-missing':
      return 'its endpoints name Pods the snapshot does not carry';
    case 'no-controller':
      return 'its Pods have no controller owner (bare Pods): nothing scales them';
    case 'replicaset-missing':
      return 'its Pods belong to a ReplicaSet the snapshot does not carry';
    case 'node-owned':
      return 'its Pods are static Pods owned by their Node: nothing scales them';
    default:
      return 'the owner of its endpoints is not known';
  }
}
