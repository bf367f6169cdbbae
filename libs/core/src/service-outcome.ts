/**
 * What one Service would route like after a change to it: a routing mode set, ready endpoints added to
 * or removed from zones. The change is made to the Service's own slices exactly as the what-if
 * machinery makes it (same slices filled, same order, same nodes), and the result is the EndpointSlice
 * controller's own sync plus the traffic model `analyze` uses, so a fix's promised state is the state
 * `analyze` reports once the what-if is applied.
 *
 * One Service at a time, with the cluster-wide inputs (CPU ratios, origin shares, schedulable nodes)
 * computed once by the caller: a fleet of 10,000 Services asks this many times per analysis. The
 * endpoints are added and removed by scaled-slices.ts.
 */
import { isControllerManaged } from './analyze.js';
import type { HintState } from './endpointslice-controller.js';
import { serviceRoutingOf, syncServiceHints } from './endpointslice-controller.js';
import { countReadyEndpoints } from './hints.js';
import type { AddressType, EndpointSlice, Service } from './k8s-objects.js';
import { mapList } from './lists.js';
import type { ControllerFeatures } from './routing-mode.js';
import { overloadOfAllocation, proportionalAllocation } from './failed-allocation-overload.js';
import { type CrossZoneFractions, originZonesOf, sliceTrafficByOrigin } from './traffic-model.js';
import type { RoutingMode } from './what-if-document.js';
import { withRoutingMode } from './what-if-enable-routing.js';
import { scaledSlices } from './scaled-slices.js';

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
