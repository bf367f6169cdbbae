/**
 * What one Service would route like after a change to it: a routing mode set, ready endpoints added to
 * or removed from zones. The change is made to the Service's own slices exactly as the what-if
 * machinery makes it (same slices filled, same order, same nodes), and the result is the EndpointSlice
 * controller's own sync plus the traffic model `analyze` uses, so a fix's promised state is the state
 * `analyze` reports once the what-if is applied.
 *
 * One Service at a time, with the cluster-wide inputs (CPU ratios, origin shares, schedulable nodes)
 * computed once by the caller: a fleet of 10,000 Services asks this many times per analysis.
 */
import { isControllerManaged } from './analyze.js';
import { controllerSliceLabels } from './slice-management.js';
import type { HintState } from './endpointslice-controller.js';
import { serviceRoutingOf, syncServiceHints } from './endpointslice-controller.js';
import { countReadyEndpoints, isEndpointReady } from './hints.js';
import type { AddressType, Endpoint, EndpointSlice, Service } from './k8s-objects.js';
import { mapList } from './lists.js';
import type { ControllerFeatures } from './routing-mode.js';
import { overloadOfAllocation, proportionalAllocation } from './failed-allocation-overload.js';
import { type CrossZoneFractions, originZonesOf, sliceTrafficByOrigin } from './traffic-model.js';
import type { RoutingMode } from './what-if-document.js';
import { withRoutingMode } from './what-if-enable-routing.js';

/** The what-if's slice capacity (the controller's default `--max-endpoints-per-slice`). */
const MAX_ENDPOINTS_PER_SLICE = 100;

export interface ServiceChange {
  /** The routing mode to set, as the what-if's `enableRouting` sets it. */
  routing?: RoutingMode;
  /** Ready endpoints to add (positive) or remove (negative) per zone, as the what-if's `scaleReplicas`. */
  endpointsByZone?: ReadonlyMap<string, number>;
}

/** What the cluster looks like to every Service of one analysis. */
export interface OutcomeCluster {
  /** The controller's CPU ratios (null: node info insufficient). */
  ratios: ReadonlyMap<string, number> | null;
  /** Where requests originate (the analysis' `trafficOrigin.shares`). */
  originShares: ReadonlyMap<string, number>;
  /** zone -> names of the nodes a pod can be scheduled on, sorted (what the what-if places replicas on). */
  schedulableNodes: ReadonlyMap<string, readonly string[]>;
  /** The controller's feature gates of the version analysed (`analyze`'s `kubernetesVersion`); absent: 1.35. */
  features?: ControllerFeatures;
  /** Whether the snapshot labels its slices' managers, so an unlabelled slice is not the controller's. */
  recordsManagedBy?: boolean;
}

export interface ServiceOutcome {
  state: HintState;
  /** The controller's failure message when hints are removed. */
  reason: string | null;
  crossZone: CrossZoneFractions;
  /** Per origin zone, as `analyze` reports it in `zones[zone].expectedOverload`. */
  expectedOverload: Record<string, number>;
  readyEndpoints: number;
}

/**
 * The Service's outcome with the change applied. `slices` are the Service's slices in snapshot order.
 * Throws a {@link RangeError} when a removal asks for more ready endpoints than a zone has, or an
 * addition names a zone without a schedulable node (callers only ask for changes that can be made).
 */
export function serviceOutcome(
  service: Service,
  slices: readonly EndpointSlice[],
  change: ServiceChange,
  cluster: OutcomeCluster,
): ServiceOutcome {
  const changed = change.routing === undefined ? service : withRoutingMode(service, change.routing);
  const changedSlices =
    change.endpointsByZone === undefined || change.endpointsByZone.size === 0
      ? slices
      : scaledSlices(
          service,
          slices,
          change.endpointsByZone,
          cluster.schedulableNodes,
          cluster.recordsManagedBy ?? false,
        );
  return outcomeOf(changed, changedSlices, cluster);
}

function outcomeOf(service: Service, slices: readonly EndpointSlice[], cluster: OutcomeCluster): ServiceOutcome {
  const listed = (slice: EndpointSlice) => isControllerManaged(slice, cluster.recordsManagedBy ?? false);
  const managed = slices.every(listed) ? slices : slices.filter(listed);
  const sync = syncServiceHints(serviceRoutingOf(service, cluster.features), managed, cluster.ratios, true);
  const computed = new Map(managed.map((slice, index) => [slice, sync.endpointSlices[index]]));
  const after = managed.length === slices.length ? sync.endpointSlices : mapList(slices, (s) => computed.get(s) ?? s);
  const addressType = primaryAddressType(slices);
  const ofType = after.filter((slice) => slice.addressType === addressType);
  const readyEndpoints = countReadyEndpoints(ofType);
  const traffic = sliceTrafficByOrigin(ofType, addressType, cluster.originShares);
  const zones = originZonesOf(cluster.originShares);
  // As `analyze`: a Service without hints is described by the proportional allocation it would need.
  const overloads =
    sync.hints.state === 'populated' || readyEndpoints === 0
      ? traffic.overloads
      : proportionalOverloads(readyEndpoints, cluster.originShares, zones);
  const expectedOverload = Object.fromEntries(zones.map((zone, position) => [zone, overloads[position]]));
  const local = service.spec?.internalTrafficPolicy === 'Local';
  return {
    state: sync.hints.state,
    reason: sync.hints.reason,
    crossZone: local ? { withoutHints: 0, withHints: 0 } : traffic.crossZone,
    expectedOverload,
    readyEndpoints,
  };
}

function proportionalOverloads(
  readyEndpoints: number,
  originShares: ReadonlyMap<string, number>,
  zones: readonly string[],
): number[] {
  const byZone = overloadOfAllocation(proportionalAllocation(readyEndpoints, originShares), originShares);
  return mapList(zones, (zone) => byZone[zone] ?? 0);
}

/** The family `analyze` describes a Service by: IPv4 unless the Service only has IPv6 slices. */
export function primaryAddressType(slices: readonly EndpointSlice[]): AddressType {
  const hasIPv4 = slices.some((slice) => slice.addressType === 'IPv4');
  const hasIPv6 = slices.some((slice) => slice.addressType === 'IPv6');
  return hasIPv6 && !hasIPv4 ? 'IPv6' : 'IPv4';
}

// ---------------------------------------------------------------------------------------------
// Scaling, as the what-if scales
// ---------------------------------------------------------------------------------------------

/**
 * The Service's slices with the endpoints added and removed zone by zone, in the order the what-if
 * applies `scaleReplicas` entries (zones by name), to every IP family the Service has controller-managed
 * slices of (else the families it declares, else IPv4).
 *
 * Decision: new endpoints get addresses from 100.64.0.0/10 that no slice of the Service uses; the
 * what-if picks them unused in the whole snapshot. Only duplicates within a Service change kube-proxy's
 * view, so both give the same outcome.
 */
export function scaledSlices(
  service: Service,
  slices: readonly EndpointSlice[],
  endpointsByZone: ReadonlyMap<string, number>,
  schedulableNodes: ReadonlyMap<string, readonly string[]>,
  recordsManagedBy = false,
): EndpointSlice[] {
  const listed = (slice: EndpointSlice) => isControllerManaged(slice, recordsManagedBy);
  const result = [...slices];
  const used = usedAddresses(slices);
  let next = 0;
  const nextAddress = (addressType: AddressType): string => {
    for (;;) {
      next++;
      const address =
        addressType === 'IPv4'
          ? `100.${64 + (next >>> 16)}.${(next >>> 8) & 255}.${next & 255}`
          : `fd00:7a77::${(next >>> 16).toString(16)}:${(next & 0xffff).toString(16)}`;
      if (!used.has(address)) return address;
    }
  };
  const zones = [...endpointsByZone.keys()].sort(byteOrder);
  for (const zone of zones) {
    const delta = endpointsByZone.get(zone) ?? 0;
    for (const addressType of familiesOf(service, result, listed)) {
      const target: SliceTarget = { slices: result, service, addressType, listed, recordsManagedBy };
      if (delta > 0) addEndpoints(target, zone, delta, schedulableNodes, nextAddress);
      if (delta < 0) removeEndpoints(target, zone, -delta);
    }
  }
  return result;
}

function usedAddresses(slices: readonly EndpointSlice[]): Set<string> {
  const used = new Set<string>();
  for (const slice of slices)
    for (const endpoint of slice.endpoints ?? []) for (const a of endpoint.addresses ?? []) used.add(a);
  return used;
}

/** The slices being changed, for one address type of the Service, and which of them the controller lists. */
interface SliceTarget {
  slices: EndpointSlice[];
  service: Service;
  addressType: AddressType;
  listed: (slice: EndpointSlice) => boolean;
  recordsManagedBy: boolean;
}

function familiesOf(
  service: Service,
  slices: readonly EndpointSlice[],
  listed: (slice: EndpointSlice) => boolean,
): AddressType[] {
  const withSlices = (['IPv4', 'IPv6'] as const).filter((type) =>
    slices.some((slice) => slice.addressType === type && listed(slice)),
  );
  if (withSlices.length > 0) return withSlices;
  const declared = (['IPv4', 'IPv6'] as const).filter((type) => service.spec?.ipFamilies?.includes(type));
  return declared.length > 0 ? declared : ['IPv4'];
}

function managedIndexes({ slices, addressType, listed }: SliceTarget): number[] {
  const indexes: number[] = [];
  slices.forEach((slice, index) => {
    if (slice.addressType === addressType && listed(slice)) indexes.push(index);
  });
  return indexes;
}

function addEndpoints(
  target: SliceTarget,
  zone: string,
  count: number,
  schedulableNodes: ReadonlyMap<string, readonly string[]>,
  nextAddress: (addressType: AddressType) => string,
): void {
  const { slices, service, addressType } = target;
  const nodes = schedulableNodes.get(zone);
  if (nodes === undefined || nodes.length === 0) throw new RangeError(`no schedulable node in zone ${zone}`);
  const indexes = managedIndexes(target);
  let index = indexes.length > 0 ? indexes[indexes.length - 1] : -1;
  let copied = -1;
  for (let added = 0; added < count; added++) {
    if (index < 0 || (slices[index].endpoints ?? []).length >= MAX_ENDPOINTS_PER_SLICE) {
      index = slices.push(newSlice(service, addressType, target.recordsManagedBy)) - 1;
      copied = index;
    }
    if (copied !== index) {
      slices[index] = { ...slices[index], endpoints: [...(slices[index].endpoints ?? [])] };
      copied = index;
    }
    slices[index].endpoints.push({
      addresses: [nextAddress(addressType)],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: nodes[added % nodes.length],
      zone,
    });
  }
}

/** A slice the controller would create, labelled as the snapshot labels the controller's (as the what-if does). */
function newSlice(service: Service, addressType: AddressType, recordsManagedBy: boolean): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${service.metadata.name}-fix`,
      namespace: service.metadata.namespace ?? 'default',
      labels: controllerSliceLabels(service.metadata.name, recordsManagedBy),
    },
    addressType,
    endpoints: [],
    ports: null,
  };
}

/** Removes ready endpoints of the zone, last slice and last endpoint first, as the what-if does. */
function removeEndpoints(target: SliceTarget, zone: string, count: number): void {
  const { slices, service } = target;
  const removable = (endpoint: Endpoint) => isEndpointReady(endpoint) && endpoint.zone === zone;
  let left = count;
  for (const index of managedIndexes(target).reverse()) {
    if (left === 0) break;
    const endpoints = [...(slices[index].endpoints ?? [])];
    for (let position = endpoints.length - 1; position >= 0 && left > 0; position--) {
      if (!removable(endpoints[position])) continue;
      endpoints.splice(position, 1);
      left--;
    }
    slices[index] = { ...slices[index], endpoints };
  }
  if (left > 0) {
    throw new RangeError(`Service ${service.metadata.name} has too few ready endpoints in zone ${zone} to remove`);
  }
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
