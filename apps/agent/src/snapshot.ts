import type { EndpointSlice, Node, Service, ServiceCIDR } from '@zw/core';
import { CAPTURED_AT_ANNOTATION, SERVICE_CIDR_ANNOTATION } from '@zw/core';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { compactEndpointSlice, compactNode, compactService, compactServiceCIDR } from './compact.js';

const gzipAsync = promisify(gzip);

export interface ClusterObjects {
  nodes: readonly unknown[];
  services: readonly unknown[];
  endpointSlices: readonly unknown[];
  serviceCIDRs: readonly unknown[];
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
  const items: (Node | Service | EndpointSlice | ServiceCIDR)[] = [
    ...sortByName(objects.nodes.map(compactNode)),
    ...sortByName(objects.services.map(compactService)),
    ...sortByName(objects.endpointSlices.map(compactEndpointSlice)),
    ...sortByName(objects.serviceCIDRs.map(compactServiceCIDR)),
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
