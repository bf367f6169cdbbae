/**
 * Zone hints from the CPU heuristic ("AddHints", `service.kubernetes.io/topology-mode: Auto`), and the
 * "remove all hints" fallback every safeguard ends in.
 *
 * One run covers one Service and one address type. Slices arrive in the controller's three lists:
 * `toCreate` and `toUpdate` (written anyway) and `unchanged` (written only if their hints must change).
 * Inputs are never mutated: every slice the controller would write comes back as a new object; endpoint
 * objects whose hints stay as they were are shared with the input.
 */
import { type AllocationFailureKind, type ZoneAllocation, computeAllocations } from './allocations.js';
import {
  type ControllerEvent,
  ENDPOINTS_WITHOUT_ZONE_MESSAGE,
  NO_ZONES_ALLOCATED_MESSAGE,
  hintsDisabledEvent,
  hintsEnabledEvent,
} from './events.js';
import type { AddressType, Endpoint, EndpointHints, EndpointSlice } from './k8s-objects.js';
import { mapList } from './lists.js';

export interface SliceSets {
  toCreate: readonly EndpointSlice[];
  toUpdate: readonly EndpointSlice[];
  unchanged: readonly EndpointSlice[];
}

export interface HintedSlices {
  toCreate: EndpointSlice[];
  toUpdate: EndpointSlice[];
  /**
   * Same length as `toUpdate`: the input slice each entry was made from, i.e. an original to-update
   * slice, or an unchanged slice that had to be rewritten and moved into `toUpdate`.
   */
  toUpdateSources: EndpointSlice[];
  /** Input `unchanged` slices that are still not written, as the same objects. */
  unchanged: EndpointSlice[];
}

/**
 * The controller's per-Service cache entry (upstream keeps one map for all Services; the core passes
 * the one entry in and gets the new one back).
 */
export interface ServiceHintCache {
  /** The Service currently has hints. Per Service, not per address type. */
  readonly populated: boolean;
  /** zone -> hinted endpoints stored at the last successful run, per address type (overload check). */
  readonly hintedByAddressType: Readonly<Partial<Record<AddressType, Readonly<Record<string, number>>>>>;
}

export const EMPTY_SERVICE_HINT_CACHE: ServiceHintCache = { populated: false, hintedByAddressType: {} };

export type HintsFailureKind = AllocationFailureKind | 'EndpointsWithoutZone' | 'NoZonesAllocated';

export interface HintsFailure {
  kind: HintsFailureKind;
  /** The controller's message, without the `, addressType: <t>` suffix. */
  message: string;
}

export interface AddHintsInput {
  addressType: AddressType;
  ratios: ReadonlyMap<string, number> | null;
  slices: SliceSets;
  cache: ServiceHintCache;
}

export interface AddHintsResult extends HintedSlices {
  /** In emission order. */
  events: ControllerEvent[];
  cache: ServiceHintCache;
  /** Set when hints were written. */
  allocations: ReadonlyMap<string, ZoneAllocation> | null;
  /** The `allocated` map stored in the cache, zones ascending; set when hints were written. */
  hintedByZone: Record<string, number> | null;
  failure: HintsFailure | null;
}

/** Controller meaning of ready: `conditions.ready` present and true (absent is NOT ready). */
export function isEndpointReady(endpoint: Endpoint): boolean {
  return endpoint.conditions?.ready === true;
}

export function endpointsOf(slice: EndpointSlice): readonly Endpoint[] {
  // A Go nil slice serializes as null.
  return slice.endpoints ?? [];
}

export function countReadyEndpoints(slices: readonly EndpointSlice[]): number {
  let ready = 0;
  for (const slice of slices) for (const endpoint of endpointsOf(slice)) if (isEndpointReady(endpoint)) ready++;
  return ready;
}

/** "Forget Service+type": drop the stored counts of that address type and the populated mark. */
export function forgetAddressType(cache: ServiceHintCache, addressType: AddressType): ServiceHintCache {
  const { [addressType]: _forgotten, ...kept } = cache.hintedByAddressType;
  return { populated: false, hintedByAddressType: kept };
}

export function addHints(input: AddHintsInput): AddHintsResult {
  const { addressType, cache } = input;
  const { events, allocations, hinted, failure, ...slices } = hintByCpu(
    addressType,
    input.ratios,
    input.slices,
    cache.populated,
  );
  const hintedByZone = hinted === null ? null : sortedRecord(hinted);
  return {
    ...slices,
    events,
    cache:
      hintedByZone === null
        ? forgetAddressType(cache, addressType)
        : { populated: true, hintedByAddressType: { ...cache.hintedByAddressType, [addressType]: hintedByZone } },
    allocations,
    hintedByZone,
    failure,
  };
}

/** One address type's CPU-heuristic run, with its per-zone numbers in Maps. */
export interface CpuHintsRun extends HintedSlices {
  /** In emission order. */
  events: ControllerEvent[];
  /** Set when hints were written. */
  allocations: ReadonlyMap<string, ZoneAllocation> | null;
  /** zone -> hinted endpoints (the stored `allocated` map, in counting order); set when hints were written. */
  hinted: ReadonlyMap<string, number> | null;
  failure: HintsFailure | null;
}

/**
 * {@link addHints} without the cache bookkeeping: `populated` is the cache's mark, and no per-zone
 * record is built. The controller's sync of a whole fleet runs this; records whose keys are zone names
 * get a new hidden class in every analysis, which would throw away the optimized code that builds them.
 */
export function hintByCpu(
  addressType: AddressType,
  ratios: ReadonlyMap<string, number> | null,
  slices: SliceSets,
  populated: boolean,
): CpuHintsRun {
  const readyEndpoints =
    countReadyEndpoints(slices.toCreate) + countReadyEndpoints(slices.toUpdate) + countReadyEndpoints(slices.unchanged);
  const allocation = computeAllocations(ratios, readyEndpoints);
  if (!allocation.ok) return giveUp(slices, allocation.failure, addressType);
  const allocations = allocation.zones;

  const { unchanged, invalid, allocated } = validateUnchangedSlices(slices.unchanged, allocations);
  const lists = { toCreate: slices.toCreate, toUpdate: [...slices.toUpdate, ...invalid], unchanged };
  if (!countSameZoneHints(lists.toCreate, allocated) || !countSameZoneHints(lists.toUpdate, allocated)) {
    return giveUp(lists, { kind: 'EndpointsWithoutZone', message: ENDPOINTS_WITHOUT_ZONE_MESSAGE }, addressType);
  }

  // Nothing to write, nothing to redistribute: most Services of a settled cluster end here.
  const nothingToWrite = lists.toCreate.length === 0 && lists.toUpdate.length === 0;
  const rehint = nothingToWrite
    ? null
    : hintWriter(redistributor(givingAndReceiving(allocations, allocated), allocated));
  // Visiting order matters: the earliest ready endpoints of a giving zone are the ones that move.
  const toCreate = rehint === null ? [] : mapList(lists.toCreate, rehint);
  const toUpdate = rehint === null ? [] : mapList(lists.toUpdate, rehint);

  if (allocated.size === 0) {
    // Believed unreachable: a successful allocation implies at least one ready endpoint somewhere.
    return giveUp(lists, { kind: 'NoZonesAllocated', message: NO_ZONES_ALLOCATED_MESSAGE }, addressType);
  }
  return {
    toCreate,
    toUpdate,
    toUpdateSources: lists.toUpdate,
    unchanged,
    events: populated ? [] : [hintsEnabledEvent(addressType)],
    allocations,
    hinted: allocated,
    failure: null,
  };
}

function giveUp(slices: SliceSets, failure: HintsFailure, addressType: AddressType): CpuHintsRun {
  return hintsLeft(removeAllHints(slices), [hintsDisabledEvent(failure.message, addressType)], failure);
}

/**
 * A run that wrote no CPU-heuristic hints. Spelled out rather than spread: an object made by a spread
 * plus more keys gets a hidden class that lives only as long as such objects do, i.e. one analysis.
 */
export function hintsLeft(
  slices: HintedSlices,
  events: ControllerEvent[],
  failure: HintsFailure | null = null,
): CpuHintsRun {
  return {
    toCreate: slices.toCreate,
    toUpdate: slices.toUpdate,
    toUpdateSources: slices.toUpdateSources,
    unchanged: slices.unchanged,
    events,
    allocations: null,
    hinted: null,
    failure,
  };
}

/**
 * Upstream `sliceinfo.go getAllocatedHintsByZone` (called by `topologycache.go AddHints`): unchanged slices
 * keep their hints while those stay within every zone's maximum, judged against what earlier valid slices
 * already account for. The others must be rewritten.
 */
function validateUnchangedSlices(
  slices: readonly EndpointSlice[],
  allocations: ReadonlyMap<string, ZoneAllocation>,
): { unchanged: EndpointSlice[]; invalid: EndpointSlice[]; allocated: Map<string, number> } {
  const allocated = new Map<string, number>();
  const unchanged: EndpointSlice[] = [];
  const invalid: EndpointSlice[] = [];
  for (const slice of slices) {
    const counts = validHintCounts(slice, allocations, allocated);
    if (counts === null) {
      invalid.push(slice);
      continue;
    }
    unchanged.push(slice);
    for (const [zone, count] of counts) addCount(allocated, zone, count);
  }
  return { unchanged, invalid, allocated };
}

/**
 * Upstream `utils.go getHintsByZone`: per-zone hint counts of one existing slice's ready endpoints, or
 * null when its hints are not acceptable: a ready endpoint without zone hints, a hint for a zone without allocation, or a zone
 * pushed over its maximum. Only `forZones` is looked at.
 */
export function validHintCounts(
  slice: EndpointSlice,
  allocations: ReadonlyMap<string, ZoneAllocation>,
  allocated: ReadonlyMap<string, number>,
): Map<string, number> | null {
  const counts = new Map<string, number>();
  for (const endpoint of endpointsOf(slice)) {
    if (!isEndpointReady(endpoint)) continue;
    const forZones = endpoint.hints?.forZones;
    if (!forZones || forZones.length === 0) return null;
    for (const { name } of forZones) {
      if (!allocations.has(name)) return null;
      addCount(counts, name, 1);
    }
  }
  for (const [zone, count] of counts) {
    const maximum = allocations.get(zone)?.maximum ?? 0;
    if (count + (allocated.get(zone) ?? 0) > maximum) return null;
  }
  return counts;
}

/**
 * `topologycache.go AddHints`, its same-zone pass, counting: every ready endpoint of the slices about to
 * be written will be hinted for its own zone. Returns false when one has no zone (missing or ''), which disables hints. Zone-less endpoints
 * in valid unchanged slices are not looked at.
 */
function countSameZoneHints(allocatable: readonly EndpointSlice[], allocated: Map<string, number>): boolean {
  for (const slice of allocatable) {
    for (const endpoint of endpointsOf(slice)) {
      if (!isEndpointReady(endpoint)) continue;
      if (!endpoint.zone) return false;
      addCount(allocated, endpoint.zone, 1);
    }
  }
  return true;
}

/**
 * `topologycache.go AddHints` (same-zone pass) and `utils.go redistributeHints`, writing: a copy of the slice whose ready endpoints are hinted for the zone
 * `zoneFor(own zone)` picks. Non-ready endpoints keep whatever hints they had: upstream's attempt to
 * clear them writes to a temporary copy.
 */
function hintWriter(zoneFor: (ownZone: string) => string): (slice: EndpointSlice) => EndpointSlice {
  return (slice) => ({
    ...slice,
    endpoints: mapList(endpointsOf(slice), (endpoint) =>
      isEndpointReady(endpoint) && endpoint.zone ? withZoneHint(endpoint, zoneFor(endpoint.zone)) : endpoint,
    ),
  });
}

/**
 * Upstream `utils.go getGivingAndReceivingZones`: how many endpoints each zone gives away and receives,
 * moving one endpoint at a time from the zone with the largest surplus to the zone with the largest
 * deficit.
 *
 * Decision: ties go to the zone whose name sorts first (upstream's `utils.go getMost` iterates a Go map,
 * so it picks at random); the returned maps list their zones in ascending name order.
 */
export function computeGivingAndReceiving(
  allocations: ReadonlyMap<string, Pick<ZoneAllocation, 'desired'>>,
  allocated: ReadonlyMap<string, number>,
): { giving: Map<string, number>; receiving: Map<string, number> } {
  const { zones, given, received } = givingAndReceiving(allocations, allocated);
  return { giving: positiveCounts(zones, given), receiving: positiveCounts(zones, received) };
}

/** `getGivingAndReceivingZones`' outcome as counts per zone, position by position with `zones` (ascending). */
interface ZoneMoves {
  zones: readonly string[];
  given: number[];
  received: number[];
}

/** {@link computeGivingAndReceiving} over arrays: it runs for every Service whose hints change. */
function givingAndReceiving(
  allocations: ReadonlyMap<string, Pick<ZoneAllocation, 'desired'>>,
  allocated: ReadonlyMap<string, number>,
): ZoneMoves {
  const zones = ascendingKeys(allocations);
  const surplus: number[] = [];
  const deficit: number[] = [];
  const given: number[] = [];
  const received: number[] = [];
  for (const zone of zones) {
    const hinted = allocated.get(zone) ?? 0;
    const desired = allocations.get(zone)?.desired ?? 0;
    surplus.push(hinted > desired ? hinted - desired : 0);
    deficit.push(hinted < desired ? desired - hinted : 0);
    given.push(0);
    received.push(0);
  }
  for (;;) {
    const giver = largestPositive(surplus);
    const receiver = largestPositive(deficit);
    if (giver < 0 || receiver < 0) break;
    const giverSurplus = surplus[giver];
    const receiverDeficit = deficit[receiver];
    if ((giverSurplus < 1 && receiverDeficit < 1) || giverSurplus < 0.5 || receiverDeficit < 0.5) break;
    given[giver] += 1;
    surplus[giver] = giverSurplus - 1;
    received[receiver] += 1;
    deficit[receiver] = receiverDeficit - 1;
  }
  return { zones, given, received };
}

/**
 * Upstream `utils.go redistributeHints`, one endpoint at a time in visiting order: returns the zone an
 * endpoint of `ownZone` is hinted for. While its zone still has to give, it goes to the first zone (by
 * name) that still receives (upstream: the first in Go map order, i.e. any).
 * `allocated` follows every move.
 */
function redistributor(
  { zones, given, received }: ZoneMoves,
  allocated: Map<string, number>,
): (ownZone: string) => string {
  return (ownZone) => {
    const giver = zones.indexOf(ownZone);
    if (giver < 0 || given[giver] <= 0) return ownZone;
    const receiver = firstPositive(received);
    if (receiver < 0) return ownZone;
    given[giver] -= 1;
    received[receiver] -= 1;
    addCount(allocated, ownZone, -1);
    addCount(allocated, zones[receiver], 1);
    return zones[receiver];
  };
}

/**
 * "Remove all hints": every to-create and to-update slice loses all hints; unchanged slices that carry
 * any hint (ready endpoint or not) are rewritten without them and move to `toUpdate`.
 */
export function removeAllHints(slices: SliceSets): HintedSlices {
  const unchanged: EndpointSlice[] = [];
  const toUpdateSources = [...slices.toUpdate];
  for (const slice of slices.unchanged) (hasAnyHints(slice) ? toUpdateSources : unchanged).push(slice);
  return {
    toCreate: mapList(slices.toCreate, withoutHints),
    toUpdate: mapList(toUpdateSources, withoutHints),
    toUpdateSources,
    unchanged,
  };
}

export function hasAnyHints(slice: EndpointSlice): boolean {
  return endpointsOf(slice).some((endpoint) => endpoint.hints != null);
}

export function withoutHints(slice: EndpointSlice): EndpointSlice {
  return { ...slice, endpoints: mapList(endpointsOf(slice), withoutEndpointHints) };
}

export function withoutEndpointHints(endpoint: Endpoint): Endpoint {
  if (endpoint.hints === undefined) return endpoint;
  const { hints: _removed, ...rest } = endpoint;
  return rest;
}

/** The endpoint hinted for exactly one zone (no node hints), reusing it when it already is. */
export function withZoneHint(endpoint: Endpoint, zone: string): Endpoint {
  const hints = endpoint.hints;
  const forZones = hints?.forZones;
  if (hints?.forNodes === undefined && forZones?.length === 1 && forZones[0]?.name === zone) return endpoint;
  return withEndpointHints(endpoint, { forZones: [{ name: zone }] });
}

/** A copy of the endpoint with `hints` replaced (or added last, as a spread would). */
export function withEndpointHints(endpoint: Endpoint, hints: EndpointHints): Endpoint {
  if (endpoint.hints !== undefined) return { ...endpoint, hints };
  // `{ ...endpoint, hints }` that ADDS a key falls off V8's fast object-clone path: about 6x slower over
  // a 150,000-endpoint fleet. A key-by-key copy stays fast and keeps the same key order.
  const copy: Record<string, unknown> = {};
  for (const key in endpoint) copy[key] = endpoint[key];
  copy.hints = hints;
  return copy as Endpoint;
}

/** The position of the largest positive value, the first one on ties (zones ascend); -1 when none is positive. */
function largestPositive(values: readonly number[]): number {
  let best = -1;
  for (let i = 0; i < values.length; i++) if (values[i] > 0 && (best < 0 || values[i] > values[best])) best = i;
  return best;
}

function firstPositive(values: readonly number[]): number {
  for (let i = 0; i < values.length; i++) if (values[i] > 0) return i;
  return -1;
}

function positiveCounts(zones: readonly string[], counts: readonly number[]): Map<string, number> {
  const byZone = new Map<string, number>();
  for (let i = 0; i < zones.length; i++) if (counts[i] > 0) byZone.set(zones[i], counts[i]);
  return byZone;
}

/** The keys in ascending order; the allocations already come that way, so sorting is rarely needed. */
function ascendingKeys(map: ReadonlyMap<string, unknown>): readonly string[] {
  const keys = [...map.keys()];
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return keys.sort();
  return keys;
}

function addCount(counts: Map<string, number>, zone: string, delta: number): void {
  counts.set(zone, (counts.get(zone) ?? 0) + delta);
}

export function sortedRecord(counts: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
