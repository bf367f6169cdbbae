/**
 * Hints for `spec.trafficDistribution` (PreferClose, PreferSameZone, PreferSameNode): every ready
 * endpoint is hinted for its own zone, and for PreferSameNode also for its own node. No CPU ratios,
 * no minimum counts, no events, no cache.
 */
import {
  type HintedSlices,
  type SliceSets,
  endpointsOf,
  isEndpointReady,
  withEndpointHints,
  withoutEndpointHints,
  withZoneHint,
} from './hints.js';
import type { Endpoint, EndpointHints, EndpointSlice } from './k8s-objects.js';
import { mapList } from './lists.js';

export const TRAFFIC_DISTRIBUTIONS = ['PreferClose', 'PreferSameZone', 'PreferSameNode'] as const;
export type TrafficDistribution = (typeof TRAFFIC_DISTRIBUTIONS)[number];

export function wantsNodeHints(trafficDistribution: TrafficDistribution): boolean {
  return trafficDistribution === 'PreferSameNode';
}

/** Upstream `trafficdist.go ReconcileHints` with `preferCloseHeuristic` (v0.33.0 on: zone and node hints). */
export function applyTrafficDistribution(slices: SliceSets, trafficDistribution: TrafficDistribution): HintedSlices {
  const nodeHints = wantsNodeHints(trafficDistribution);
  return reconcileHints(
    slices,
    (slice) => sliceNeedsHintUpdate(slice, nodeHints),
    (endpoint) => withOwnHints(endpoint, nodeHints),
  );
}

/**
 * `PreferClose` as 1.31–1.32 hint it (`trafficdist.go preferCloseHeuristic`, k8s.io/endpointslice v0.30.0
 * to v0.32.x): every ready endpoint gets exactly `forZones: [{name: <its zone, "" when it has none>}]`,
 * so an endpoint without a zone is hinted for the zone `""` (lines 137-141 at v0.32.0) and counts as
 * hinted for kube-proxy. Only zone hints are compared (`needsUpdate`) and written (`update` replaces the
 * whole `hints`, node hints included).
 */
export function applyPreferCloseUntil133(slices: SliceSets): HintedSlices {
  const rehint = (endpoint: Endpoint) => withZoneHint(endpoint, endpoint.zone ?? '');
  return reconcileHints(slices, sliceNeedsZoneHintUntil133, rehint);
}

function sliceNeedsZoneHintUntil133(slice: EndpointSlice): boolean {
  return endpointsOf(slice).some(
    (endpoint) => isEndpointReady(endpoint) && !isExactly(endpoint.hints?.forZones, endpoint.zone ?? ''),
  );
}

/**
 * `trafficdist.go ReconcileHints`: unchanged slices the heuristic finds wrong move to the end of the
 * to-update list, then every ready endpoint of the slices to create and update is rehinted.
 */
function reconcileHints(
  slices: SliceSets,
  needsUpdate: (slice: EndpointSlice) => boolean,
  rehintEndpoint: (endpoint: Endpoint) => Endpoint,
): HintedSlices {
  const unchanged: EndpointSlice[] = [];
  const toUpdateSources = [...slices.toUpdate];
  for (const slice of slices.unchanged) (needsUpdate(slice) ? toUpdateSources : unchanged).push(slice);
  const rehint = (slice: EndpointSlice): EndpointSlice => ({
    ...slice,
    endpoints: mapList(endpointsOf(slice), (endpoint) =>
      isEndpointReady(endpoint) ? rehintEndpoint(endpoint) : endpoint,
    ),
  });
  return {
    toCreate: mapList(slices.toCreate, rehint),
    toUpdate: mapList(toUpdateSources, rehint),
    toUpdateSources,
    unchanged,
  };
}

/**
 * Whether an existing slice has a ready endpoint whose hints are not exactly "own zone" (and "own node"
 * when node hints are wanted). An endpoint whose `zone` is the empty string still "has a zone" here.
 */
export function sliceNeedsHintUpdate(slice: EndpointSlice, nodeHints: boolean): boolean {
  return endpointsOf(slice).some((endpoint) => isEndpointReady(endpoint) && !hasOwnHints(endpoint, nodeHints));
}

function hasOwnHints(endpoint: Endpoint, nodeHints: boolean): boolean {
  const { zone, nodeName, hints } = endpoint;
  const zoneOk = zone != null ? isExactly(hints?.forZones, zone) : !hints?.forZones?.length;
  const nodeOk = nodeHints && nodeName != null ? isExactly(hints?.forNodes, nodeName) : !hints?.forNodes?.length;
  return zoneOk && nodeOk;
}

function withOwnHints(endpoint: Endpoint, nodeHints: boolean): Endpoint {
  const { zone, nodeName } = endpoint;
  const hints: EndpointHints = {};
  if (zone != null) hints.forZones = [{ name: zone }];
  if (nodeHints && nodeName != null) hints.forNodes = [{ name: nodeName }];
  if (hints.forZones === undefined && hints.forNodes === undefined) return withoutEndpointHints(endpoint);
  if (sameHints(endpoint.hints, hints)) return endpoint;
  return withEndpointHints(endpoint, hints);
}

/** Reuse test: the endpoint's hints already serialize exactly like `wanted`. */
function sameHints(current: EndpointHints | undefined, wanted: EndpointHints): boolean {
  if (current == null) return false;
  return sameList(current.forZones, wanted.forZones) && sameList(current.forNodes, wanted.forNodes);
}

function sameList(current: { name: string }[] | undefined, wanted: { name: string }[] | undefined): boolean {
  if (wanted === undefined) return current === undefined;
  return isExactly(current, wanted[0]?.name ?? '');
}

function isExactly(list: readonly { name: string }[] | undefined | null, name: string): boolean {
  return list?.length === 1 && list[0]?.name === name;
}
