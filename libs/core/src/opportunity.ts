/**
 * The opportunity of topology routing: for a Service that does not route in-zone today, what the
 * EndpointSlice controller and kube-proxy would do if it had `service.kubernetes.io/topology-mode: Auto`,
 * and which such Services would save the most.
 *
 * The preview runs the same controller sync and traffic model as `analyze`, on a copy of the Service
 * with the annotation set and the same slices, so it equals the analysis of a snapshot in which the
 * annotation was added.
 */
import {
  type AnalysisReport,
  type ClusterModel,
  clusterModelOf,
  groupSlicesByService,
  reconcileSnapshotService,
  serviceKey,
} from './analyze.js';
import { dataPathOf } from './data-planes.js';
import type { AddressType, EndpointSlice, Service } from './k8s-objects.js';
import { computeNodeInfo, type NodeInfo } from './node-info.js';
import { TOPOLOGY_AWARE_HINTS_ANNOTATION, TOPOLOGY_MODE_ANNOTATION, type Routing } from './routing-mode.js';
import type { CrossZonePrice } from './savings.js';
import type { MonthlyTraffic } from './monthly-traffic.js';
import { type MissedSavings, missedSavings, type RoutingPreviewOutcome } from './service-cost.js';
import { reusedOrComputed, type ServiceReuse } from './service-reuse.js';
import { ENDPOINTSLICE_CONTROLLER, snapshotRecordsManagedBy, snapshotRecordsSelectors } from './slice-management.js';
import type { Snapshot } from './snapshot-model.js';
import { type CrossZoneFractions, modelSliceTraffic } from './traffic-model.js';

export interface AutoRoutingPreview extends RoutingPreviewOutcome {
  state: 'populated' | 'removed';
  /** The controller's failure message when hints would be removed, else null. */
  reason: string | null;
  /** Cross-zone request fractions with the hints the controller would write. */
  crossZone: CrossZoneFractions;
}

/** Previews computed before (see `autoRoutingPreviews`); null for a Service the annotation cannot help. */
export type PreviewReuse = ServiceReuse<AutoRoutingPreview | null>;

/**
 * What `topology-mode: Auto` would give the Service, with its slices as they are.
 *
 * Decision: the preview also drops the deprecated `service.kubernetes.io/topology-aware-hints`
 * annotation, which wins over `topology-mode` by mere presence: someone enabling the CPU heuristic
 * removes it, and keeping it could turn the preview into "no routing".
 */
export function autoRoutingPreview(
  service: Service,
  slices: readonly EndpointSlice[],
  nodeInfo: Pick<NodeInfo, 'ratios'>,
  originShares: ReadonlyMap<string, number>,
  cluster?: ClusterModel,
): AutoRoutingPreview {
  const result = reconcileSnapshotService(withAutoRouting(service), slices, nodeInfo, cluster);
  const state = result.hints.state === 'populated' ? 'populated' : 'removed';
  return { state, reason: result.hints.reason, crossZone: crossZoneOf(service, result.endpointSlices, originShares) };
}

/** The Service with `topology-mode: Auto` and without the deprecated annotation; the input is untouched. */
export function withAutoRouting(service: Service): Service {
  const annotations: Record<string, string> = { ...service.metadata.annotations, [TOPOLOGY_MODE_ANNOTATION]: 'Auto' };
  delete annotations[TOPOLOGY_AWARE_HINTS_ANNOTATION];
  return { ...service, metadata: { ...service.metadata, annotations } };
}

/**
 * As `analyze` computes it: the traffic model over the Service's primary address family, and nothing
 * crossing zones for `internalTrafficPolicy: Local`, whose in-cluster traffic stays on the client node.
 */
function crossZoneOf(
  service: Service,
  slices: readonly EndpointSlice[],
  originShares: ReadonlyMap<string, number>,
): CrossZoneFractions {
  if (service.spec?.internalTrafficPolicy === 'Local') return { withoutHints: 0, withHints: 0 };
  const addressType = primaryAddressType(slices);
  const ofType = slices.filter((slice) => slice.addressType === addressType);
  return modelSliceTraffic(ofType, addressType, originShares).crossZone;
}

/** The family `analyze` describes a Service by: IPv4 unless the Service only has IPv6 slices. */
function primaryAddressType(slices: readonly EndpointSlice[]): AddressType {
  const hasIPv4 = slices.some((slice) => slice.addressType === 'IPv4');
  const hasIPv6 = slices.some((slice) => slice.addressType === 'IPv6');
  return hasIPv6 && !hasIPv4 ? 'IPv6' : 'IPv4';
}

// ---------------------------------------------------------------------------------------------
// Every Service of a snapshot
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Ranking
// ---------------------------------------------------------------------------------------------

export interface OpportunityCandidate {
  namespace: string;
  name: string;
  /** The Service's routing today (the analysis' `routing`). */
  routing: Routing;
  /** GB per month (a {@link MonthlyTraffic} keeps its provenance). */
  traffic: number | MonthlyTraffic;
  /** Cross-zone fractions today (the analysis' `crossZone`). */
  crossZone: CrossZoneFractions;
  /** {@link autoRoutingPreview}'s answer for the Service. */
  preview: RoutingPreviewOutcome;
}

export interface Opportunity {
  namespace: string;
  name: string;
  missed: MissedSavings;
}

/**
 * The Services without topology routing for which enabling it would populate hints, largest estimated
 * saving first, ties by namespace then name (byte order).
 *
 * Decision: a Service that already asks for routing (`Auto` or a `trafficDistribution`) is no
 * opportunity, even when its hints are removed: enabling what is already enabled changes nothing, and
 * the reason is reported with its hint state. A Service whose preview would be removed is left out too;
 * one that would populate hints is kept even when its saving is 0 (no traffic, or no crossing), so the
 * list answers "which Services could route in-zone".
 *
 * Decision: equal costs (a free cloud such as Azure prices every saving at 0) are ranked by the
 * cross-zone GB saved before the names, so the ranking still says where the traffic would stay.
 */
export function rankOpportunities(
  candidates: readonly OpportunityCandidate[],
  pricePerGb: number | CrossZonePrice,
): Opportunity[] {
  return candidates
    .filter((candidate) => candidate.routing === 'None' && candidate.preview.state === 'populated')
    .map((candidate) => ({
      namespace: candidate.namespace,
      name: candidate.name,
      missed: missedSavings({
        trafficGb: candidate.traffic,
        pricePerGb,
        current: candidate.crossZone,
        ifEnabled: candidate.preview,
      }),
    }))
    .sort(bySavingsThenName);
}

function bySavingsThenName(a: Opportunity, b: Opportunity): number {
  const bySavings = b.missed.savings.cost - a.missed.savings.cost;
  if (bySavings !== 0) return bySavings;
  const byCrossZoneGb = b.missed.savings.crossZoneGb - a.missed.savings.crossZoneGb;
  if (byCrossZoneGb !== 0) return byCrossZoneGb;
  return byteOrder(a.namespace, b.namespace) || byteOrder(a.name, b.name);
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
