import {
  type AnalyzeOptions,
  type ClusterModel,
  type ClusterProfile,
  clusterModelOf,
  clusterProfileOf,
  groupSlicesByService,
  reconcileSnapshotService,
  serviceKey,
} from './analyze.js';
import { dataPathOf, isSkippedForLabels, readsNodeHints } from './data-planes.js';
import { hasAnyHints, withoutHints } from './hints.js';
import type { EndpointSlice, Service } from './k8s-objects.js';
import { computeNodeInfo, nodeZone } from './node-info.js';
import { kubeProxyView, type ServiceEndpointsView } from './proxy-filter.js';
import type { ProxyNode } from './proxy-topology-mode.js';
import { snapshotRecordsManagedBy, snapshotRecordsSelectors } from './slice-management.js';
import type { Snapshot } from './snapshot-model.js';
import { SnapshotError } from './snapshots.js';

/**
 * `zonewise endpoints --node`: what the Service proxy on one node programs for every Service of the
 * snapshot, for the cluster's Kubernetes version and data plane.
 */

export interface NodeEndpointsOptions extends Pick<AnalyzeOptions, 'kubernetesVersion' | 'dataPlane'> {
  /** Use the hints the core computes instead of the hints in the snapshot. */
  computedHints?: boolean;
}

export interface NodeEndpointsReport extends ClusterProfile {
  node: string;
  zone: string;
  services: ServiceEndpointsView[];
}

export function endpointsForNode(
  snapshot: Snapshot,
  nodeName: string,
  options: NodeEndpointsOptions = {},
): NodeEndpointsReport {
  const node = snapshot.nodes.find((candidate) => candidate.metadata.name === nodeName);
  if (!node) {
    throw new SnapshotError('', `node "${nodeName}" is not in the snapshot (it has ${snapshot.nodes.length} nodes)`);
  }
  const profile = clusterProfileOf(snapshot, options);
  const cluster = snapshotClusterModel(snapshot, options);
  const proxyNode = { name: nodeName, zone: nodeZone(node) };
  const nodeInfo = options.computedHints ? computeNodeInfo(snapshot.nodes) : null;
  const slicesByService = groupSlicesByService(snapshot.endpointSlices);
  const services = [...snapshot.services]
    .sort((a, b) => (serviceKey(a) < serviceKey(b) ? -1 : serviceKey(a) > serviceKey(b) ? 1 : 0))
    .map((service) => {
      const observed = slicesByService.get(serviceKey(service)) ?? [];
      const slices = nodeInfo
        ? reconcileSnapshotService(service, observed, nodeInfo, cluster).endpointSlices
        : observed;
      return serviceProxyView(service, slices, proxyNode, cluster);
    });
  return { node: nodeName, zone: proxyNode.zone, services, ...profile };
}

/** The cluster model of a snapshot (its annotations, else the defaults), for callers that view one Service at a time. */
export function snapshotClusterModel(
  snapshot: Snapshot,
  options: Pick<AnalyzeOptions, 'kubernetesVersion' | 'dataPlane'> = {},
): ClusterModel {
  return clusterModelOf(
    clusterProfileOf(snapshot, options),
    snapshotRecordsSelectors(snapshot.services),
    snapshotRecordsManagedBy(snapshot.endpointSlices),
  );
}

/**
 * What the Service proxy on `node` programs for one Service on this cluster's data path: kube-proxy's view
 * with the version's node-hint rule; a data plane that ignores the Service's hints programs every
 * endpoint, and the view says why when the slices carry some.
 */
export function serviceProxyView(
  service: Service,
  slices: readonly EndpointSlice[],
  node: ProxyNode,
  cluster: ClusterModel,
): ServiceEndpointsView {
  const options = {
    nodeHintsEnabled: readsNodeHints(cluster.dataPlane, cluster.features),
    filtersOnNodeWithoutZone: cluster.features.proxyFiltersOnNodeWithoutZone,
  };
  const dataPath = dataPathOf(service, cluster.dataPlane, cluster.features);
  if (isSkippedForLabels(service, cluster.dataPlane)) return unprogrammedView(service, dataPath.reason);
  if (dataPath.cause !== 'data-plane') return kubeProxyView(service, slices, node, options);
  const view = kubeProxyView(service, slices.map(withoutHints), node, options);
  return slices.some(hasAnyHints) ? { ...view, reason: dataPath.reason } : view;
}

/**
 * A Service kube-proxy never programs (its informers skip it by label: `cmd/kube-proxy/app/server.go`):
 * no list at all, as for a headless Service, and the reason.
 */
function unprogrammedView(service: Service, reason: string | null): ServiceEndpointsView {
  return {
    namespace: service.metadata.namespace ?? '',
    name: service.metadata.name,
    clusterEndpoints: null,
    localEndpoints: null,
    topologyFiltered: false,
    topologyMode: null,
    reason,
    hasAnyEndpoints: false,
    ports: [],
  };
}
