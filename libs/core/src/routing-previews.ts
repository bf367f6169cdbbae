/**
 * The topology-routing preview of every Service of a snapshot that has none (opportunity.ts previews one),
 * reused from earlier snapshots of the cluster when its inputs are equal.
 */
import { type AnalysisReport, type ClusterModel, clusterModelOf, groupSlicesByService, serviceKey } from './analyze.js';
import { dataPathOf } from './data-planes.js';
import type { EndpointSlice, Service } from './k8s-objects.js';
import { computeNodeInfo, type NodeInfo } from './node-info.js';
import { type AutoRoutingPreview, autoRoutingPreview, type PreviewReuse, withAutoRouting } from './opportunity.js';
import { reusedOrComputed } from './service-reuse.js';
import { ENDPOINTSLICE_CONTROLLER, snapshotRecordsManagedBy, snapshotRecordsSelectors } from './slice-management.js';
import type { Snapshot } from './snapshot-model.js';

export interface ServicePreview {
  namespace: string;
  name: string;
  preview: AutoRoutingPreview;
}

/**
 * The preview of every Service of the snapshot that has no topology routing (`routing: None` in the
 * report), in the report's order. The report must be `analyzeSnapshot(snapshot)`'s: its traffic origin
 * is reused, so the previews use the same zone shares as the analysis.
 *
 * A Service the annotation cannot help gets no preview, so it is never an opportunity: one whose slices
 * the EndpointSlice controller does not manage (it would write no hints), a headless or ExternalName
 * Service (no proxy sees its traffic), and one whose data plane would ignore the hints even with the
 * annotation.
 *
 * `reuse` holds previews computed before: a Service's preview reads its objects and, shared by all
 * Services, the nodes, the traffic origin's shares and the cluster model, so equal ones give an equal
 * preview.
 */
export function autoRoutingPreviews(
  snapshot: Snapshot,
  report: AnalysisReport,
  reuse?: PreviewReuse,
): ServicePreview[] {
  const nodeInfo = computeNodeInfo(snapshot.nodes);
  const originShares = new Map(Object.entries(report.trafficOrigin.shares));
  const slicesByService = groupSlicesByService(snapshot.endpointSlices);
  const servicesByKey = new Map(snapshot.services.map((service) => [serviceKey(service), service]));
  const cluster = clusterModelOf(
    report,
    snapshotRecordsSelectors(snapshot.services),
    snapshotRecordsManagedBy(snapshot.endpointSlices),
  );
  const scope = reuse?.begin(snapshot.nodes, JSON.stringify([[...originShares], cluster]));
  const previews: ServicePreview[] = [];
  for (const analysis of report.services) {
    if (analysis.routing !== 'None' || analysis.managedBy !== ENDPOINTSLICE_CONTROLLER) continue;
    const key = `${analysis.namespace}/${analysis.name}`;
    const service = servicesByKey.get(key);
    if (service === undefined) continue;
    const slices = slicesByService.get(key) ?? [];
    const preview = reusedOrComputed(
      scope,
      key,
      { service, slices },
      () => '',
      () => previewIfUseful(service, slices, nodeInfo, originShares, cluster),
    );
    if (preview !== null) previews.push({ namespace: analysis.namespace, name: analysis.name, preview });
  }
  return previews;
}

/** The Service's preview, or null when the annotation cannot help it (see `autoRoutingPreviews`). */
function previewIfUseful(
  service: Service,
  slices: readonly EndpointSlice[],
  nodeInfo: Pick<NodeInfo, 'ratios'>,
  originShares: ReadonlyMap<string, number>,
  cluster: ClusterModel,
): AutoRoutingPreview | null {
  const dataPath = dataPathOf(withAutoRouting(service), cluster.dataPlane, cluster.features);
  if (dataPath.cause === 'service-type' || dataPath.cause === 'data-plane') return null;
  return autoRoutingPreview(service, slices, nodeInfo, originShares, cluster);
}
