import type { EndpointSlice, Node, OwnedObject, Service, ServiceCIDR } from '@zw/core';
import { CAPTURED_AT_ANNOTATION, SERVICE_CIDR_ANNOTATION } from '@zw/core';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { compactEndpointSlice, compactNode, compactOwned, compactService, compactServiceCIDR } from './compact.js';

const gzipAsync = promisify(gzip);

export interface ClusterObjects {
  nodes: readonly unknown[];
  services: readonly unknown[];
  endpointSlices: readonly unknown[];
  serviceCIDRs: readonly unknown[];
  /** Pods and ReplicaSets (their owner fields are enough); only those behind an endpoint are sent. */
  pods?: readonly unknown[];
  replicaSets?: readonly unknown[];
}

export interface BuiltSnapshot {
  capturedAt: Date;
  /** SHA-256 of everything but the captured-at time: equal keys are equal cluster states. */
  contentKey: string;
  /** The List as JSON, what `kubectl get nodes,services,endpointslices,servicecidrs -A -o json` gives, compacted. */
  json: string;
  objectCount: number;
}

/**
 * The snapshot of the watched objects as a kubectl-style List. Items are in a fixed order (kind, then
 * namespace and name) so that the same cluster state always gives the same bytes.
 *
 * Decision: `serviceCidrs` (the --service-cidr flag) goes into the `zonewise.io/service-cidr` annotation
 * only when the cluster has no ServiceCIDR objects: where they exist they are the truth.
 * `clusterAnnotations` (the Kubernetes version and data plane, see cluster-profile.ts) are part of the
 * content: a data plane that changes makes a new snapshot.
 */
export function buildSnapshot(
  objects: ClusterObjects,
  capturedAt: Date,
  serviceCidrs: readonly string[],
  clusterAnnotations: Readonly<Record<string, string>> = {},
): BuiltSnapshot {
  const endpointSlices = objects.endpointSlices.map(compactEndpointSlice);
  const { pods, replicaSets } = ownersOfEndpoints(endpointSlices, objects.pods ?? [], objects.replicaSets ?? []);
  const items: (Node | Service | EndpointSlice | ServiceCIDR | OwnedObject)[] = [
    ...sortByName(objects.nodes.map(compactNode)),
    ...sortByName(objects.services.map(compactService)),
    ...sortByName(endpointSlices),
    ...sortByName(objects.serviceCIDRs.map(compactServiceCIDR)),
    ...sortByName(pods),
    ...sortByName(replicaSets),
  ];
  const settings: Record<string, string> = { ...clusterAnnotations };
  if (objects.serviceCIDRs.length === 0 && serviceCidrs.length > 0) {
    settings[SERVICE_CIDR_ANNOTATION] = serviceCidrs.join(',');
  }
  const itemsJson = JSON.stringify(items);
  const settingsJson = JSON.stringify(settings);
  const contentKey = createHash('sha256').update(settingsJson).update('\n').update(itemsJson).digest('hex');
  const annotations = JSON.stringify({ ...settings, [CAPTURED_AT_ANNOTATION]: capturedAt.toISOString() });
  return {
    capturedAt,
    contentKey,
    json: `{"apiVersion":"v1","kind":"List","metadata":{"annotations":${annotations}},"items":${itemsJson}}`,
    objectCount: items.length,
  };
}

/**
 * The Pods an endpoint names (`targetRef`) and the ReplicaSets that own those Pods, compacted. Decision:
 * only these, so a snapshot grows with the cluster's endpoints, not with every Job and completed Pod.
 */
function ownersOfEndpoints(
  slices: readonly EndpointSlice[],
  allPods: readonly unknown[],
  allReplicaSets: readonly unknown[],
): { pods: OwnedObject[]; replicaSets: OwnedObject[] } {
  const wanted = new Set<string>();
  for (const slice of slices) {
    const namespace = slice.metadata.namespace ?? '';
    for (const endpoint of slice.endpoints) {
      const ref = endpoint.targetRef as { kind?: string; name?: string } | undefined;
      if (ref?.kind === 'Pod' && ref.name) wanted.add(`${namespace}/${ref.name}`);
    }
  }
  if (wanted.size === 0) return { pods: [], replicaSets: [] };
  const pods = allPods.map((pod) => compactOwned(pod, 'Pod')).filter((pod) => wanted.has(keyOf(pod)));
  const sets = new Set(
    pods.flatMap((pod) =>
      (pod.metadata.ownerReferences ?? [])
        .filter((owner) => owner.kind === 'ReplicaSet')
        .map((owner) => `${pod.metadata.namespace ?? ''}/${owner.name}`),
    ),
  );
  const replicaSets =
    sets.size === 0
      ? []
      : allReplicaSets.map((set) => compactOwned(set, 'ReplicaSet')).filter((set) => sets.has(keyOf(set)));
  return { pods, replicaSets };
}

function keyOf(object: OwnedObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

export function gzipSnapshot(json: string): Promise<Buffer> {
  return gzipAsync(json, { level: 6 });
}

function sortByName<T extends { metadata: { namespace?: string; name: string } }>(objects: T[]): T[] {
  const key = (object: T) => `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
  return objects.sort((a, b) => {
    const left = key(a);
    const right = key(b);
    return left < right ? -1 : left > right ? 1 : 0;
  });
}
