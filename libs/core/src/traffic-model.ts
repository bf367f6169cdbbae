import type { AddressType, Endpoint, EndpointSlice } from './k8s-objects.js';
import { mapList } from './lists.js';
import { canonicalAddress } from './proxy-addresses.js';
import {
  nodeHintsOf,
  preferredDuplicate,
  proxyConditions,
  slicesInVisitOrder,
  zoneHintsOf,
} from './proxy-endpointslice-cache.js';
import {
  decideTopology,
  hintCoverage,
  isAvailableForTopology,
  type HintCoverage,
  type TopologyCandidate,
} from './proxy-topology-mode.js';

/**
 * Where a Service's requests go, zone by zone: the fraction that crosses zones with and without
 * topology hints, and how much more than its fair share an endpoint is expected to receive.
 *
 * Model: requests originate in each zone in proportion to its origin share (the caller derives the
 * shares from allocatable CPU, the controller's own assumption, unless per-zone weights are given).
 * A client spreads its requests evenly over its candidate endpoints. Without hints the candidates
 * are all ready endpoints; with hints they are exactly the cluster endpoints kube-proxy picks for a
 * node in the client's zone (the mode decision is proxy-filter's, not re-derived here).
 */

/** One endpoint of the Service, as kube-proxy reads it (`ready` in kube-proxy's meaning). */
export interface TrafficEndpoint extends TopologyCandidate {
  address: string;
  /** The endpoint's own zone, `''` when unknown. */
  zone: string;
}

export interface TrafficModelInput {
  endpoints: readonly TrafficEndpoint[];
  /** Share of requests originating in each zone; normalised to sum 1 (non-positive shares count as 0). */
  originShares: ReadonlyMap<string, number>;
}

export interface CrossZoneFractions {
  withoutHints: number;
  withHints: number;
}

export interface TrafficModel {
  crossZone: CrossZoneFractions;
  /** Per origin zone, with hints: how far above an even share the busiest endpoint serving it is. */
  expectedOverloadByZone: Record<string, number>;
}

export function crossZoneFractions(input: TrafficModelInput): CrossZoneFractions {
  return modelTraffic(input).crossZone;
}

export function expectedOverloadByZone(input: TrafficModelInput): Record<string, number> {
  return modelTraffic(input).expectedOverloadByZone;
}

/**
 * Both results in one pass, for `analyze` (10,000 Services): the hint coverage is computed once per
 * Service and the mode once per origin zone, instead of categorizing every port for every zone.
 *
 * Decision: clients are modelled on a node of their zone that no node hint names. For such a node
 * kube-proxy's node-level step never selects PreferSameNode, so the decision is the zone-level one
 * (hence `nodeHintsEnabled: false` below gives the identical mode). A zone-level model cannot place
 * clients on the particular nodes that host endpoints.
 *
 * Decision: an endpoint whose zone is unknown (`''`) is never in the client's zone, not even for
 * clients in an unlabelled zone `''`: the traffic cannot be shown to stay in a zone.
 *
 * Decision: with no ready endpoint there is no steady-state traffic to model: fractions and
 * overloads are 0 (kube-proxy would use serving-terminating endpoints while they drain).
 */
export function modelTraffic(input: TrafficModelInput): TrafficModel {
  const origins = normalizedOrigins(input.originShares);
  const ready = input.endpoints.filter((endpoint) => endpoint.ready);
  if (ready.length === 0) {
    const expectedOverload = Object.fromEntries(origins.map((origin) => [origin.zone, 0]));
    return { crossZone: { withoutHints: 0, withHints: 0 }, expectedOverloadByZone: expectedOverload };
  }

  const coverage = hintCoverage(ready);
  const loads: number[] = new Array<number>(ready.length).fill(0);
  let loadOnEveryEndpoint = 0;
  let withoutHints = 0;
  let withHints = 0;
  const candidatesByOrigin: (number[] | null)[] = [];
  for (const origin of origins) {
    const crossWithoutHints = crossFractionOfAll(ready, origin.zone);
    withoutHints += origin.share * crossWithoutHints;
    const candidates = hintedCandidates(ready, coverage, origin.zone);
    candidatesByOrigin.push(candidates);
    if (candidates === null) {
      withHints += origin.share * crossWithoutHints;
      loadOnEveryEndpoint += origin.share / ready.length;
      continue;
    }
    const perEndpoint = origin.share / candidates.length;
    let crossing = 0;
    for (const index of candidates) {
      loads[index] += perEndpoint;
      if (!isInZone(ready[index], origin.zone)) crossing += 1;
    }
    withHints += origin.share * (crossing / candidates.length);
  }

  const busiestOverall = loadOnEveryEndpoint + highestLoad(loads, null);
  const expectedOverload = Object.fromEntries(
    origins.map((origin, position) => {
      const candidates = candidatesByOrigin[position];
      const busiest = candidates === null ? busiestOverall : loadOnEveryEndpoint + highestLoad(loads, candidates);
      return [origin.zone, overloadOf(busiest, ready.length)];
    }),
  );
  return { crossZone: { withoutHints, withHints }, expectedOverloadByZone: expectedOverload };
}

/**
 * The traffic model straight from one Service's slices of an address type, without building a record
 * per endpoint when it need not: for a single slice whose ready endpoints carry at most one zone hint
 * each and no node hint (everything the controller itself writes, and no hints at all), the model
 * reduces to counts per zone. Anything else (several slices, so kube-proxy's duplicate rule; repeated
 * addresses; multi-zone or node hints) takes {@link modelTraffic}. Both give the same numbers; a
 * property test holds them to it.
 */
export function modelSliceTraffic(
  slices: readonly EndpointSlice[],
  addressType: AddressType,
  originShares: ReadonlyMap<string, number>,
): TrafficModel {
  const { crossZone, overloads } = sliceTrafficByOrigin(slices, addressType, originShares);
  const zones = originZonesOf(originShares);
  const expectedOverload = Object.fromEntries(zones.map((zone, position) => [zone, overloads[position]]));
  return { crossZone, expectedOverloadByZone: expectedOverload };
}

/** {@link modelSliceTraffic} with the overloads listed like {@link originZonesOf}, for `analyze`. */
export interface OriginTraffic {
  crossZone: CrossZoneFractions;
  /** Expected overload of each origin zone, in {@link originZonesOf} order. */
  overloads: number[];
}

/**
 * {@link modelSliceTraffic} without a record keyed by zone names: such records get a new hidden class
 * in every analysis, and the optimized code that builds or reads them is thrown away with it.
 */
export function sliceTrafficByOrigin(
  slices: readonly EndpointSlice[],
  addressType: AddressType,
  originShares: ReadonlyMap<string, number>,
): OriginTraffic {
  const zones = originZonesOf(originShares);
  const shares = originSharesOf(originShares);
  const counts = zoneCounts(slices, addressType, zones);
  if (counts !== null) return modelFromCounts(counts, zones, shares);
  const model = modelTraffic({ endpoints: trafficEndpointsFromSlices(slices, addressType), originShares });
  return { crossZone: model.crossZone, overloads: mapList(zones, (zone) => model.expectedOverloadByZone[zone]) };
}

/** Counts of ready endpoints; the per-zone arrays are indexed like the origin zones (other zones are never asked about). */
interface ZoneCounts {
  ready: number;
  /** Ready endpoints whose own zone is the origin zone. */
  readyInZone: number[];
  /** Ready endpoints hinted for the origin zone, and those of them that are also in it. */
  hintedFor: number[];
  hintedForOwnZone: number[];
  /** Every ready endpoint carries a zone hint (kube-proxy's precondition for filtering). */
  allHinted: boolean;
}

function zoneCounts(
  slices: readonly EndpointSlice[],
  addressType: AddressType,
  zones: readonly string[],
): ZoneCounts | null {
  let only: EndpointSlice | null = null;
  for (const slice of slices) {
    if (slice.addressType !== addressType) continue;
    if (only !== null) return null;
    only = slice;
  }
  const counts: ZoneCounts = {
    ready: 0,
    readyInZone: zeros(zones.length),
    hintedFor: zeros(zones.length),
    hintedForOwnZone: zeros(zones.length),
    allHinted: true,
  };
  if (only === null) return counts;
  if (hasRepeatedAddress(only.endpoints)) return null;
  for (const endpoint of only.endpoints) {
    if (endpoint.addresses[0] === undefined || endpoint.conditions?.ready === false) continue;
    const forZones = endpoint.hints?.forZones;
    if ((endpoint.hints?.forNodes?.length ?? 0) > 0 || (forZones?.length ?? 0) > 1) return null;
    const zone = endpoint.zone ?? '';
    const own = zones.indexOf(zone);
    counts.ready++;
    if (own >= 0) counts.readyInZone[own]++;
    const hinted = forZones?.[0]?.name;
    if (hinted === undefined) {
      counts.allHinted = false;
      continue;
    }
    const target = hinted === zone ? own : zones.indexOf(hinted);
    if (target < 0) continue;
    counts.hintedFor[target]++;
    if (hinted === zone && zone !== '') counts.hintedForOwnZone[target]++;
  }
  return counts;
}

/** Pairwise for the usual slice sizes, which allocates nothing; a Set beyond. */
function hasRepeatedAddress(endpoints: readonly Endpoint[]): boolean {
  if (endpoints.length > 32) {
    const seen = new Set<string>();
    for (const endpoint of endpoints) {
      const address = endpoint.addresses[0];
      if (address !== undefined && seen.size === seen.add(address).size) return true;
    }
    return false;
  }
  for (let i = 1; i < endpoints.length; i++) {
    const address = endpoints[i].addresses[0];
    if (address === undefined) continue;
    for (let j = 0; j < i; j++) if (endpoints[j].addresses[0] === address) return true;
  }
  return false;
}

/** A packed list of zeros (`new Array(n).fill(0)` is holey, and `fill` is a slow call per Service). */
function zeros(length: number): number[] {
  const list: number[] = [];
  for (let i = 0; i < length; i++) list.push(0);
  return list;
}

/**
 * {@link modelTraffic}'s rules over counts: a zone filters when every ready endpoint is hinted and one is
 * hinted for it. `zones` and `shares` are the origins, position by position.
 */
function modelFromCounts(counts: ZoneCounts, zones: readonly string[], shares: readonly number[]): OriginTraffic {
  const overloads = zeros(zones.length);
  if (counts.ready === 0) return { crossZone: { withoutHints: 0, withHints: 0 }, overloads };
  let withoutHints = 0;
  let withHints = 0;
  let loadOnEveryEndpoint = 0;
  let busiestHintedLoad = 0;
  const filtering = (position: number) => counts.allHinted && counts.hintedFor[position] > 0;
  for (let position = 0; position < zones.length; position++) {
    const share = shares[position];
    const inZone = zones[position] === '' ? 0 : counts.readyInZone[position];
    const crossWithoutHints = (counts.ready - inZone) / counts.ready;
    withoutHints += share * crossWithoutHints;
    if (!filtering(position)) {
      withHints += share * crossWithoutHints;
      loadOnEveryEndpoint += share / counts.ready;
      continue;
    }
    const hinted = counts.hintedFor[position];
    withHints += (share * (hinted - counts.hintedForOwnZone[position])) / hinted;
    busiestHintedLoad = Math.max(busiestHintedLoad, share / hinted);
  }
  for (let position = 0; position < zones.length; position++) {
    const busiest = filtering(position)
      ? loadOnEveryEndpoint + shares[position] / counts.hintedFor[position]
      : loadOnEveryEndpoint + busiestHintedLoad;
    overloads[position] = overloadOf(busiest, counts.ready);
  }
  return { crossZone: { withoutHints, withHints }, overloads };
}

/** The highest of `loads` (only at `indexes` when given). A loop: spreading 150,000 values overflows the stack. */
function highestLoad(loads: readonly number[], indexes: readonly number[] | null): number {
  let highest = 0;
  if (indexes === null) for (const load of loads) highest = Math.max(highest, load);
  else for (const index of indexes) highest = Math.max(highest, loads[index]);
  return highest;
}

/**
 * Decision: the overload of a zone is that of the busiest endpoint its requests can reach:
 * its load relative to an even share (1 / ready endpoints), minus 1, never below 0. Float noise
 * below 1e-9 is reported as 0 so balanced allocations read as exactly 0.
 */
function overloadOf(load: number, readyCount: number): number {
  const overload = load * readyCount - 1;
  return overload < 1e-9 ? 0 : overload;
}

interface Origin {
  zone: string;
  share: number;
}

/** Decision: zones are visited in byte-wise name order; if no share is positive, no traffic originates. */
export function normalizedOrigins(originShares: ReadonlyMap<string, number>): Origin[] {
  const shares = originSharesOf(originShares);
  return originZonesOf(originShares).map((zone, position) => ({ zone, share: shares[position] }));
}

/**
 * The origin zones in byte-wise name order. Computed once per share map (one analysis hands the same
 * map to every Service); arrays rather than objects, so the hot code depends on no per-analysis hidden class.
 */
export function originZonesOf(originShares: ReadonlyMap<string, number>): readonly string[] {
  let zones = originZonesCache.get(originShares);
  if (zones === undefined) {
    zones = [...originShares.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    originZonesCache.set(originShares, zones);
  }
  return zones;
}

/** The normalised share of each zone of {@link originZonesOf}, position by position (non-positive shares count as 0). */
function originSharesOf(originShares: ReadonlyMap<string, number>): readonly number[] {
  let shares = originSharesCache.get(originShares);
  if (shares === undefined) {
    const zones = originZonesOf(originShares);
    const shareOf = (zone: string) => {
      const share = originShares.get(zone) ?? 0;
      return Number.isFinite(share) && share > 0 ? share : 0;
    };
    const total = zones.reduce((sum, zone) => sum + shareOf(zone), 0);
    shares = mapList(zones, (zone) => (total > 0 ? shareOf(zone) / total : 0));
    originSharesCache.set(originShares, shares);
  }
  return shares;
}

const originZonesCache = new WeakMap<ReadonlyMap<string, number>, readonly string[]>();
const originSharesCache = new WeakMap<ReadonlyMap<string, number>, readonly number[]>();

function crossFractionOfAll(ready: readonly TrafficEndpoint[], zone: string): number {
  let inZone = 0;
  for (const endpoint of ready) if (isInZone(endpoint, zone)) inZone += 1;
  return (ready.length - inZone) / ready.length;
}

function isInZone(endpoint: TrafficEndpoint, zone: string): boolean {
  return zone !== '' && endpoint.zone === zone;
}

/** Indexes (into `ready`) of kube-proxy's cluster endpoints for a client in `zone`; null = all ready. */
function hintedCandidates(ready: readonly TrafficEndpoint[], coverage: HintCoverage, zone: string): number[] | null {
  const node = { name: '', zone };
  const mode = decideTopology(coverage, node, false).topologyMode;
  if (mode === null) return null;
  const candidates: number[] = [];
  ready.forEach((endpoint, index) => {
    if (isAvailableForTopology(endpoint, mode, node)) candidates.push(index);
  });
  return candidates;
}

/** A traffic endpoint read from EndpointSlices, with the terminating flag kube-proxy's duplicate rule needs. */
export interface SliceTrafficEndpoint extends TrafficEndpoint {
  terminating: boolean;
}

/**
 * The Service's endpoints of one address type as kube-proxy holds them, by address: kube-proxy's
 * readiness, duplicates resolved by its rule, slices visited in name order, FQDN slices ignored.
 *
 * Decision: the traffic model works per address, not per port (ports normally share endpoints).
 */
export function trafficEndpointsFromSlices(
  slices: readonly EndpointSlice[],
  addressType: AddressType,
): SliceTrafficEndpoint[] {
  const byAddress = new Map<string, SliceTrafficEndpoint>();
  for (const slice of slicesInVisitOrder(slices)) {
    if (slice.addressType !== addressType) continue;
    for (const endpoint of slice.endpoints ?? []) {
      const first = endpoint.addresses?.[0];
      if (first === undefined) continue;
      const address = canonicalAddress(first);
      const conditions = proxyConditions(endpoint);
      const candidate: SliceTrafficEndpoint = {
        address,
        zone: endpoint.zone ?? '',
        ready: conditions.ready,
        terminating: conditions.terminating,
        zoneHints: zoneHintsOf(endpoint),
        nodeHints: nodeHintsOf(endpoint),
      };
      byAddress.set(address, preferredDuplicate(byAddress.get(address), candidate));
    }
  }
  return [...byAddress.values()];
}
