import { groupSlicesByService, reconcileSnapshotService, serviceKey } from './analyze.js';
import { computeNodeInfo, nodeZone } from './node-info.js';
import { kubeProxyView, type ServiceEndpointsView } from './proxy-filter.js';
import type { Snapshot } from './snapshot-model.js';
import { SnapshotError } from './snapshots.js';

/** `zonewise endpoints --node`: what kube-proxy on one node programs for every Service of the snapshot. */

export interface NodeEndpointsOptions {
  /** Use the hints the core computes instead of the hints in the snapshot. */
  computedHints?: boolean;
}

export interface NodeEndpointsReport {
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
  const proxyNode = { name: nodeName, zone: nodeZone(node) };
  const nodeInfo = options.computedHints ? computeNodeInfo(snapshot.nodes) : null;
  const slicesByService = groupSlicesByService(snapshot.endpointSlices);
  const services = [...snapshot.services]
    .sort((a, b) => (serviceKey(a) < serviceKey(b) ? -1 : serviceKey(a) > serviceKey(b) ? 1 : 0))
    .map((service) => {
      const observed = slicesByService.get(serviceKey(service)) ?? [];
      const slices = nodeInfo ? reconcileSnapshotService(service, observed, nodeInfo).endpointSlices : observed;
      return kubeProxyView(service, slices, proxyNode);
    });
  return { node: nodeName, zone: proxyNode.zone, services };
}
