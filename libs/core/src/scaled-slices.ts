/**
 * A Service's slices with ready endpoints added and removed zone by zone, as the what-if's
 * `scaleReplicas` makes them (what-if-scale-replicas.ts), for one Service at a time.
 */
import { isControllerManaged } from './analyze.js';
import { isEndpointReady } from './hints.js';
import type { AddressType, Endpoint, EndpointSlice, Service } from './k8s-objects.js';
import { byteOrder } from './lists.js';
import { controllerSliceLabels } from './slice-management.js';

/** The what-if's slice capacity (the controller's default `--max-endpoints-per-slice`). */
const MAX_ENDPOINTS_PER_SLICE = 100;

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
