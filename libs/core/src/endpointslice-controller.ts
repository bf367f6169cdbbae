/**
 * One EndpointSlice controller sync of a Service's hints, for one snapshot: which mode decides the
 * hints, what the controller writes and which Events it records.
 *
 * The snapshot's EndpointSlices of the Service are the controller's existing slices, in snapshot order:
 * they all enter as `unchanged` (membership is taken as already reconciled), so the only writes are
 * hint rewrites.
 */
import type { ZoneAllocation } from './allocations.js';
import { type ControllerEvent, HINTS_DISABLED_MESSAGE, hintsDisabledEvent } from './events.js';
import {
  type HintedSlices,
  type HintsFailure,
  type ServiceHintCache,
  type SliceSets,
  EMPTY_SERVICE_HINT_CACHE,
  addHints,
  endpointsOf,
  forgetAddressType,
  removeAllHints,
} from './hints.js';
import type { AddressType, EndpointSlice, Service } from './k8s-objects.js';
import type { NodeInfo } from './node-info.js';
import { type Routing, routingOf, usableTrafficDistribution } from './routing-mode.js';
import { type TrafficDistribution, applyTrafficDistribution } from './traffic-distribution.js';

export type HintState = 'populated' | 'removed' | 'none';

export interface ServiceHintsResult {
  routing: Routing;
  /** `reason`: the failure message without the address-type suffix, when `removed`. */
  hints: { state: HintState; reason: string | null };
  /** In emission order; IPv4 is processed before IPv6. */
  events: ControllerEvent[];
  /** Same order and names as the input, with the hints the controller leaves (new objects). */
  endpointSlices: EndpointSlice[];
  /** Names of the slices the controller would write, in the controller's to-update order. */
  rewrittenSlices: string[];
  /** CPU heuristic targets per address type, when hints were written for it. */
  allocations: Partial<Record<AddressType, Record<string, ZoneAllocation>>>;
  /** The stored `allocated` map (zone -> hinted endpoints) per address type, when hints were written. */
  hintCounts: Partial<Record<AddressType, Record<string, number>>>;
}

/** Decision (spec 0.3 / 4.6): the two families of a dual-stack Service are processed IPv4 first. */
const ADDRESS_TYPES: readonly AddressType[] = ['IPv4', 'IPv6'];

interface AddressTypeOutcome {
  slices: HintedSlices;
  events: ControllerEvent[];
  cache: ServiceHintCache;
  failure: HintsFailure | null;
  allocations: ReadonlyMap<string, ZoneAllocation> | null;
  hintedByZone: Record<string, number> | null;
}

export function reconcileServiceHints(
  service: Service,
  slices: readonly EndpointSlice[],
  nodeInfo: Pick<NodeInfo, 'ratios'>,
): ServiceHintsResult {
  const routing = routingOf(service);
  const hintsEnabled = routing === 'Auto';
  const trafficDistribution = hintsEnabled ? null : usableTrafficDistribution(service);
  let cache = observedCache(slices, trafficDistribution);

  const rewrittenFrom = new Map<EndpointSlice, EndpointSlice>();
  const result: ServiceHintsResult = {
    routing,
    hints: { state: 'none', reason: null },
    events: [],
    endpointSlices: [],
    rewrittenSlices: [],
    allocations: {},
    hintCounts: {},
  };
  let failure: HintsFailure | null = null;

  for (const addressType of addressTypesOf(service, slices)) {
    const existing: SliceSets = {
      toCreate: [],
      toUpdate: [],
      unchanged: slices.filter((slice) => slice.addressType === addressType),
    };
    const outcome = hintsEnabled
      ? addHintsOutcome(addressType, existing, nodeInfo, cache)
      : withoutCpuHeuristic(addressType, existing, cache, trafficDistribution);
    cache = outcome.cache;
    failure ??= outcome.failure;
    result.events.push(...outcome.events);
    outcome.slices.toUpdate.forEach((rewritten, index) => {
      const source = outcome.slices.toUpdateSources[index];
      if (source !== undefined) rewrittenFrom.set(source, rewritten);
      result.rewrittenSlices.push(rewritten.metadata.name);
    });
    if (outcome.allocations !== null) result.allocations[addressType] = Object.fromEntries(outcome.allocations);
    if (outcome.hintedByZone !== null) result.hintCounts[addressType] = outcome.hintedByZone;
  }

  // Decision: slices the controller does not write come back as shallow copies; their endpoint objects
  // are shared with the input (read-only by contract) to keep a 10,000-Service fleet cheap.
  result.endpointSlices = slices.map((slice) => rewrittenFrom.get(slice) ?? { ...slice });
  result.hints = hintState(routing, trafficDistribution, failure);
  return result;
}

/**
 * Decision: the controller's in-memory `populated` mark cannot be observed, so it is seeded from the
 * hints the slices carry: the Service counts as populated when any IPv4/IPv6 slice has a `forZones`
 * hint, unless the Service is on the trafficDistribution path (those hints were written by that path,
 * which never marks the cache). This yields the controller's real events: no `enabled` event when hints
 * already exist and stay, `has been disabled` when the annotation was switched off but CPU-heuristic
 * hints remain. The stored per-zone counts only feed the overload requeue and start empty.
 */
function observedCache(
  slices: readonly EndpointSlice[],
  trafficDistribution: TrafficDistribution | null,
): ServiceHintCache {
  if (trafficDistribution !== null) return EMPTY_SERVICE_HINT_CACHE;
  const hinted = slices.some(
    (slice) => isIpSlice(slice) && endpointsOf(slice).some((endpoint) => (endpoint.hints?.forZones?.length ?? 0) > 0),
  );
  return hinted ? { ...EMPTY_SERVICE_HINT_CACHE, populated: true } : EMPTY_SERVICE_HINT_CACHE;
}

function addHintsOutcome(
  addressType: AddressType,
  existing: SliceSets,
  nodeInfo: Pick<NodeInfo, 'ratios'>,
  cache: ServiceHintCache,
): AddressTypeOutcome {
  const {
    events,
    cache: nextCache,
    failure,
    allocations,
    hintedByZone,
    ...slices
  } = addHints({
    addressType,
    ratios: nodeInfo.ratios,
    slices: existing,
    cache,
  });
  return { slices, events, cache: nextCache, failure, allocations, hintedByZone };
}

/** Hints not enabled by annotation: announce the switch-off once, then trafficDistribution or no hints. */
function withoutCpuHeuristic(
  addressType: AddressType,
  existing: SliceSets,
  cache: ServiceHintCache,
  trafficDistribution: TrafficDistribution | null,
): AddressTypeOutcome {
  // Dual-stack: the first address type consumes the populated mark, so only one event per switch-off.
  const events = cache.populated ? [hintsDisabledEvent(HINTS_DISABLED_MESSAGE, addressType)] : [];
  return {
    slices:
      trafficDistribution === null ? removeAllHints(existing) : applyTrafficDistribution(existing, trafficDistribution),
    events,
    cache: forgetAddressType(cache, addressType),
    failure: null,
    allocations: null,
    hintedByZone: null,
  };
}

/**
 * Decision: the address types synced are the Service's IP families (`spec.ipFamilies`, else the family
 * of `spec.clusterIP`) plus those of its existing IPv4/IPv6 slices. Slices of a family the Service no
 * longer has would be deleted upstream; they are synced here as if the family were still there, since a
 * deletion has no place in the per-slice output. A Service declaring no family and owning no IP slice is
 * treated as single-stack IPv4, as the API server defaults it. FQDN slices are never touched.
 */
function addressTypesOf(service: Service, slices: readonly EndpointSlice[]): AddressType[] {
  const types = new Set<string>(service.spec?.ipFamilies ?? []);
  const clusterIP = service.spec?.clusterIP;
  if (types.size === 0 && clusterIP && clusterIP !== 'None') types.add(clusterIP.includes(':') ? 'IPv6' : 'IPv4');
  for (const slice of slices) types.add(slice.addressType);
  const synced = ADDRESS_TYPES.filter((type) => types.has(type));
  return synced.length > 0 ? synced : ['IPv4'];
}

/**
 * Decision: for a dual-stack Service whose address types disagree, `removed` wins: hints are
 * `populated` only when every address type got them, and `reason` is the first failure in processing
 * order.
 */
function hintState(
  routing: Routing,
  trafficDistribution: TrafficDistribution | null,
  failure: HintsFailure | null,
): ServiceHintsResult['hints'] {
  if (routing === 'Auto') {
    return failure === null ? { state: 'populated', reason: null } : { state: 'removed', reason: failure.message };
  }
  return { state: trafficDistribution === null ? 'none' : 'populated', reason: null };
}

function isIpSlice(slice: EndpointSlice): boolean {
  return slice.addressType === 'IPv4' || slice.addressType === 'IPv6';
}
