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
} from './hints.js';
import type { Endpoint, EndpointHints, EndpointSlice } from './k8s-objects.js';
import { mapList } from './lists.js';

export const TRAFFIC_DISTRIBUTIONS = ['PreferClose', 'PreferSameZone', 'PreferSameNode'] as const;
export type TrafficDistribution = (typeof TRAFFIC_DISTRIBUTIONS)[number];

export function wantsNodeHints(trafficDistribution: TrafficDistribution): boolean {
  return trafficDistribution === 'PreferSameNode';
}

export function applyTrafficDistribution(slices: SliceSets, trafficDistribution: TrafficDistribution): HintedSlices {
  const nodeHints = wantsNodeHints(trafficDistribution);
  const unchanged: EndpointSlice[] = [];
  const toUpdateSources = [...slices.toUpdate];
  for (const slice of slices.unchanged) {
    (sliceNeedsHintUpdate(slice, nodeHints) ? toUpdateSources : unchanged).push(slice);
  }
  const rehint = (slice: EndpointSlice): EndpointSlice => ({
    ...slice,
    endpoints: mapList(endpointsOf(slice), (endpoint) =>
      isEndpointReady(endpoint) ? withOwnHints(endpoint, nodeHints) : endpoint,
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
