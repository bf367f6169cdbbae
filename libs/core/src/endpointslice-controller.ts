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
  type CpuHintsRun,
  type HintedSlices,
  type HintsFailure,
  type SliceSets,
  endpointsOf,
  hasAnyHints,
  hintByCpu,
  hintsLeft,
  removeAllHints,
  sortedRecord,
} from './hints.js';
import type { AddressType, EndpointSlice, Service } from './k8s-objects.js';
import { mapList } from './lists.js';
import type { NodeInfo } from './node-info.js';
import {
  type ControllerFeatures,
  KUBERNETES_1_35_FEATURES,
  type Routing,
  isTrafficDistribution,
  routingOf,
  usableTrafficDistribution,
} from './routing-mode.js';
import {
  type TrafficDistribution,
  applyPreferCloseUntil133,
  applyTrafficDistribution,
} from './traffic-distribution.js';

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

/**
 * Decision: the two families of a dual-stack Service are processed IPv4 first (upstream `reconciler.go
 * Reconcile` ranges over a Go set of address types, so its order is random).
 */
const ADDRESS_TYPES: readonly AddressType[] = ['IPv4', 'IPv6'];
const ONLY_IPV4: readonly AddressType[] = ['IPv4'];
const ONLY_IPV6: readonly AddressType[] = ['IPv6'];
const NO_ADDRESS_TYPES: readonly AddressType[] = [];

export function reconcileServiceHints(
  service: Service,
  slices: readonly EndpointSlice[],
  nodeInfo: Pick<NodeInfo, 'ratios'>,
): ServiceHintsResult {
  return serviceHintsResult(syncServiceHints(serviceRoutingOf(service), slices, nodeInfo.ratios, false));
}

/** What the controller reads from a Service: what decides its hints, and the IP families it declares. */
export interface ServiceRouting {
  routing: Routing;
  /** The `spec.trafficDistribution` the controller acts on (none when the annotation routes). */
  trafficDistribution: TrafficDistribution | null;
  /**
   * The Service asks for topology through `spec.trafficDistribution` alone (a value upstream defines,
   * used or ignored by this version, and no enabling annotation): it never enters the CPU heuristic's cache.
   */
  asksOnlyThroughTrafficDistribution: boolean;
  /** The 1.31–1.32 PreferClose heuristic: a ready endpoint without a zone is hinted for the zone `""`. */
  zonelessEndpointsHintedForEmptyZone: boolean;
  /** `spec.ipFamilies`, else the family of `spec.clusterIP`; IPv4/IPv6 only, IPv4 first. */
  declaredAddressTypes: readonly AddressType[];
}

export function serviceRoutingOf(
  service: Service,
  features: ControllerFeatures = KUBERNETES_1_35_FEATURES,
): ServiceRouting {
  const routing = routingOf(service, features);
  return {
    routing,
    trafficDistribution: routing === 'Auto' ? null : usableTrafficDistribution(service, features),
    asksOnlyThroughTrafficDistribution: routing !== 'Auto' && isTrafficDistribution(service.spec?.trafficDistribution),
    zonelessEndpointsHintedForEmptyZone: features.zonelessEndpointsHintedForEmptyZone === true,
    declaredAddressTypes: declaredAddressTypesOf(service),
  };
}

/** {@link reconcileServiceHints}'s result with the per-zone numbers in Maps, for callers that only read it. */
export interface ServiceHintsSync {
  routing: Routing;
  hints: ServiceHintsResult['hints'];
  events: ControllerEvent[];
  /** As in {@link ServiceHintsResult}, but the slices the controller leaves alone may be the input objects. */
  endpointSlices: EndpointSlice[];
  rewrittenSlices: string[];
  /** One entry per address type the CPU heuristic wrote hints for, IPv4 first. */
  written: WrittenHints[];
}

export interface WrittenHints {
  addressType: AddressType;
  /** The CPU heuristic targets per zone. */
  allocations: ReadonlyMap<string, ZoneAllocation>;
  /** The stored `allocated` map: zone -> hinted endpoints. */
  hinted: ReadonlyMap<string, number>;
}

/**
 * The controller's sync of one Service. Zone-keyed numbers stay in Maps: a plain object keyed by zone
 * names gets a hidden class that dies with each analysis, and optimized code built around it dies too.
 * With `reuseUnwrittenSlices`, the slices the controller does not write come back as the input objects.
 */
export function syncServiceHints(
  service: ServiceRouting,
  slices: readonly EndpointSlice[],
  ratios: ReadonlyMap<string, number> | null,
  reuseUnwrittenSlices: boolean,
): ServiceHintsSync {
  const { routing, trafficDistribution, asksOnlyThroughTrafficDistribution } = service;
  const copy = reuseUnwrittenSlices ? null : shallowCopy;
  // Without routing, the controller only removes hints: when no slice carries any, it writes nothing.
  if (routing === 'None' && !slices.some(hasIpSliceHints)) return unroutedSync(slicesAfterSync(slices, null, copy));

  const sync: ServiceHintsSync = {
    routing,
    hints: { state: 'none', reason: null },
    events: [],
    endpointSlices: [],
    rewrittenSlices: [],
    written: [],
  };
  const rewrittenFrom = new Map<EndpointSlice, EndpointSlice>();
  let populated = !asksOnlyThroughTrafficDistribution && observedPopulated(slices);
  let failure: HintsFailure | null = null;
  for (const addressType of addressTypesOf(service, slices)) {
    const existing: SliceSets = { toCreate: [], toUpdate: [], unchanged: slicesOfType(slices, addressType) };
    const run =
      routing === 'Auto'
        ? hintByCpu(addressType, ratios, existing, populated)
        : withoutCpuHeuristic(addressType, existing, populated, service);
    populated = run.hinted !== null;
    failure ??= run.failure;
    addRun(sync, addressType, run, rewrittenFrom);
  }
  // Decision: slices the controller does not write come back as shallow copies (or, on request, as the
  // input objects); their endpoint objects are shared with the input (read-only by contract) to keep a
  // 10,000-Service fleet cheap.
  sync.endpointSlices = slicesAfterSync(slices, rewrittenFrom.size > 0 ? rewrittenFrom : null, copy);
  sync.hints = hintState(routing, trafficDistribution, failure);
  return sync;
}

/** One address type's events, writes and stored counts, added to the Service's sync. */
function addRun(
  sync: ServiceHintsSync,
  addressType: AddressType,
  run: CpuHintsRun,
  rewrittenFrom: Map<EndpointSlice, EndpointSlice>,
): void {
  sync.events.push(...run.events);
  for (let index = 0; index < run.toUpdate.length; index++) {
    const source = run.toUpdateSources[index];
    if (source !== undefined) rewrittenFrom.set(source, run.toUpdate[index]);
    sync.rewrittenSlices.push(run.toUpdate[index].metadata.name);
  }
  if (run.allocations !== null && run.hinted !== null) {
    sync.written.push({ addressType, allocations: run.allocations, hinted: run.hinted });
  }
}

/** The public result: per-zone numbers as records, zones ascending in `hintCounts`. */
export function serviceHintsResult(sync: ServiceHintsSync): ServiceHintsResult {
  const { written, ...result } = sync;
  return {
    ...result,
    allocations: Object.fromEntries(written.map((hints) => [hints.addressType, Object.fromEntries(hints.allocations)])),
    hintCounts: Object.fromEntries(written.map((hints) => [hints.addressType, sortedRecord(hints.hinted)])),
  };
}

/**
 * The slices after the sync, in input order. `copy` null: the slices not written are the input objects,
 * and when none is written the list is the input list itself (typed mutable for the report; never changed).
 */
function slicesAfterSync(
  slices: readonly EndpointSlice[],
  rewrittenFrom: ReadonlyMap<EndpointSlice, EndpointSlice> | null,
  copy: ((slice: EndpointSlice) => EndpointSlice) | null,
): EndpointSlice[] {
  if (rewrittenFrom === null && copy === null) return slices as EndpointSlice[];
  return mapList(slices, (slice) => rewrittenFrom?.get(slice) ?? copy?.(slice) ?? slice);
}

function unroutedSync(endpointSlices: EndpointSlice[]): ServiceHintsSync {
  return {
    routing: 'None',
    hints: { state: 'none', reason: null },
    events: [],
    endpointSlices,
    rewrittenSlices: [],
    written: [],
  };
}

function shallowCopy(slice: EndpointSlice): EndpointSlice {
  return { ...slice };
}

/** Whether "remove all hints" would rewrite the slice: an IPv4/IPv6 slice with any `hints` object. */
function hasIpSliceHints(slice: EndpointSlice): boolean {
  return isIpSlice(slice) && hasAnyHints(slice);
}

/**
 * Decision: the controller's in-memory `populated` mark (upstream `topologycache.go HasPopulatedHints`,
 * set only by `AddHints`) cannot be observed, so it is seeded from the hints the slices carry: the
 * Service counts as populated when any IPv4/IPv6 slice has a `forZones` hint. This yields the
 * controller's real events: no `enabled` event when hints already exist and stay, `has been disabled`
 * when the annotation was switched off but CPU-heuristic hints remain. The stored per-zone counts only
 * feed the overload requeue and are not modelled.
 *
 * A Service that asks for topology only through `spec.trafficDistribution` is never seeded: its hints
 * came from the trafficDistribution path (`trafficdist.go ReconcileHints`), which never marks the cache,
 * and a value this version ignores (every value before 1.31, PreferSameZone and PreferSameNode before
 * 1.34) never reached `AddHints` either. `reconciler.go reconcileByAddressType` raises
 * `TopologyAwareHintsDisabled` only when `HasPopulatedHints` is true (k8s.io/endpointslice v0.28.0
 * lines 267-276, v0.30.0 304-314, v0.33.0 328-338; the same test in kubernetes v1.27.0
 * pkg/controller/endpointslice/reconciler.go), so such a Service gets no event while its hints are removed.
 */
function observedPopulated(slices: readonly EndpointSlice[]): boolean {
  return slices.some(
    (slice) => isIpSlice(slice) && endpointsOf(slice).some((endpoint) => (endpoint.hints?.forZones?.length ?? 0) > 0),
  );
}

/** Hints not enabled by annotation: announce the switch-off once, then trafficDistribution or no hints. */
function withoutCpuHeuristic(
  addressType: AddressType,
  existing: SliceSets,
  populated: boolean,
  service: ServiceRouting,
): CpuHintsRun {
  // Dual-stack: the first address type consumes the populated mark, so only one event per switch-off.
  const events = populated ? [hintsDisabledEvent(HINTS_DISABLED_MESSAGE, addressType)] : [];
  const { trafficDistribution } = service;
  let slices: HintedSlices;
  if (trafficDistribution === null) slices = removeAllHints(existing);
  else if (trafficDistribution === 'PreferClose' && service.zonelessEndpointsHintedForEmptyZone)
    slices = applyPreferCloseUntil133(existing);
  else slices = applyTrafficDistribution(existing, trafficDistribution);
  return hintsLeft(slices, events);
}

/**
 * Decision: the address types synced are the Service's IP families (`spec.ipFamilies`, else the family
 * of `spec.clusterIP`) plus those of its existing IPv4/IPv6 slices. Slices of a family the Service no
 * longer has would be deleted upstream; they are synced here as if the family were still there, since a
 * deletion has no place in the per-slice output. A Service declaring no family and owning no IP slice is
 * treated as single-stack IPv4, as the API server defaults it. FQDN slices are never touched.
 */
function addressTypesOf(service: ServiceRouting, slices: readonly EndpointSlice[]): readonly AddressType[] {
  const synced = (type: AddressType) =>
    service.declaredAddressTypes.includes(type) || slices.some((slice) => slice.addressType === type);
  const ipv6 = synced('IPv6');
  if (synced('IPv4')) return ipv6 ? ADDRESS_TYPES : ONLY_IPV4;
  return ipv6 ? ONLY_IPV6 : ONLY_IPV4;
}

function declaredAddressTypesOf(service: Service): readonly AddressType[] {
  const ipFamilies: Iterable<string> = service.spec?.ipFamilies ?? [];
  const families = Array.isArray(ipFamilies) ? (ipFamilies as readonly string[]) : [...new Set(ipFamilies)];
  const clusterIP = service.spec?.clusterIP;
  if (families.length === 0 && clusterIP && clusterIP !== 'None')
    return clusterIP.includes(':') ? ONLY_IPV6 : ONLY_IPV4;
  const ipv6 = families.includes('IPv6');
  if (families.includes('IPv4')) return ipv6 ? ADDRESS_TYPES : ONLY_IPV4;
  return ipv6 ? ONLY_IPV6 : NO_ADDRESS_TYPES;
}

/** The slices of one address type; the input array itself when they all are (single-stack). */
function slicesOfType(slices: readonly EndpointSlice[], addressType: AddressType): readonly EndpointSlice[] {
  const ofType = (slice: EndpointSlice) => slice.addressType === addressType;
  return slices.every(ofType) ? slices : slices.filter(ofType);
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
