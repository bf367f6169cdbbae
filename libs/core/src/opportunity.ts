/**
 * The opportunity of topology routing: for a Service that does not route in-zone today, what the
 * EndpointSlice controller and kube-proxy would do if it had `service.kubernetes.io/topology-mode: Auto`
 * (every Service of a snapshot: routing-previews.ts; which would save the most: opportunity-ranking.ts).
 *
 * The preview runs the same controller sync and traffic model as `analyze`, on a copy of the Service
 * with the annotation set and the same slices, so it equals the analysis of a snapshot in which the
 * annotation was added.
 */
import { type ClusterModel, reconcileSnapshotService } from './analyze.js';
import type { AddressType, EndpointSlice, Service } from './k8s-objects.js';
import type { NodeInfo } from './node-info.js';
import { TOPOLOGY_AWARE_HINTS_ANNOTATION, TOPOLOGY_MODE_ANNOTATION } from './routing-mode.js';
import type { RoutingPreviewOutcome } from './service-cost.js';
import type { ServiceReuse } from './service-reuse.js';
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
