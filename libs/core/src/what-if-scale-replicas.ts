/**
 * The what-if `scaleReplicas`: ready endpoints added to or removed from one zone of a Service, in every
 * IP family it has, the way the EndpointSlice controller fills its slices.
 */
import { isEndpointReady } from './hints.js';
import type { AddressType, Endpoint, EndpointSlice, Service } from './k8s-objects.js';
import { controllerSliceLabels } from './slice-management.js';
import { type ScaleReplicasWhatIf, WhatIfError } from './what-if-document.js';
import { schedulableNodesByZone } from './what-if-remove-zone-nodes.js';
import type { WorkingSnapshot } from './what-if-snapshot.js';

/** The controller's default `--max-endpoints-per-slice`. */
const MAX_ENDPOINTS_PER_SLICE = 100;

/**
 * Decision: a replica is one pod, so it is added to (or removed from) every IP family the Service has
 * controller-managed slices of (else the families it declares, else IPv4), as dual-stack pods appear in
 * both families' slices.
 */
export function scaleReplicas(state: WorkingSnapshot, entry: ScaleReplicasWhatIf, path: string): void {
  const service = state.service(entry);
  for (const addressType of familiesOf(state, service, entry)) {
    if (entry.delta > 0) addEndpoints(state, entry, addressType, path);
    if (entry.delta < 0) removeEndpoints(state, entry, addressType, path);
  }
}

function familiesOf(state: WorkingSnapshot, service: Service, ref: ScaleReplicasWhatIf): AddressType[] {
  const withSlices = (['IPv4', 'IPv6'] as const).filter(
    (type) => state.managedSliceIndexes(ref.namespace, ref.name, type).length > 0,
  );
  if (withSlices.length > 0) return withSlices;
  const declared = (['IPv4', 'IPv6'] as const).filter((type) => service.spec?.ipFamilies?.includes(type));
  return declared.length > 0 ? declared : ['IPv4'];
}

/**
 * New ready endpoints on the zone's ready worker nodes, round-robin by node name. They go into the
 * Service's last managed slice of the family while it has room (100 endpoints, the controller's
 * default), else into new slices named `<service>-whatif-<n>`.
 */
function addEndpoints(
  state: WorkingSnapshot,
  entry: ScaleReplicasWhatIf,
  addressType: AddressType,
  path: string,
): void {
  const nodes = schedulableNodesByZone(state.nodes).get(entry.zone);
  if (nodes === undefined) {
    throw new WhatIfError(
      `${path}.zone`,
      `no ready worker node in zone ${JSON.stringify(entry.zone)} to add replicas on`,
    );
  }
  const indexes = state.managedSliceIndexes(entry.namespace, entry.name, addressType);
  let sliceIndex = indexes.length > 0 ? indexes[indexes.length - 1] : null;
  for (let added = 0; added < entry.delta; added++) {
    if (sliceIndex === null || (state.slices[sliceIndex].endpoints ?? []).length >= MAX_ENDPOINTS_PER_SLICE) {
      sliceIndex = state.addSlice(newSlice(state, entry, addressType, sliceIndex));
    }
    const slice = state.writableSlice(sliceIndex);
    slice.endpoints.push({
      addresses: [state.nextAddress(addressType)],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: nodes[added % nodes.length],
      zone: entry.zone,
    });
  }
}

function newSlice(
  state: WorkingSnapshot,
  entry: ScaleReplicasWhatIf,
  addressType: AddressType,
  template: number | null,
): EndpointSlice {
  let n = 1;
  while (state.sliceNameTaken(entry.namespace, `${entry.name}-whatif-${n}`)) n++;
  const ports = template === null ? servicePorts(state.service(entry)) : (state.slices[template].ports ?? null);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${entry.name}-whatif-${n}`,
      namespace: entry.namespace,
      labels: controllerSliceLabels(entry.name, state.recordsManagedBy),
    },
    addressType,
    endpoints: [],
    ports: ports === null ? null : structuredClone(ports),
  };
}

/** The endpoint ports the controller derives from the Service's ports (numeric target ports as given). */
function servicePorts(service: Service): EndpointSlice['ports'] {
  return (service.spec?.ports ?? []).map((port) => {
    const target = port.targetPort;
    return {
      ...(port.name !== undefined ? { name: port.name } : {}),
      port: typeof target === 'number' ? target : port.port,
      protocol: port.protocol ?? 'TCP',
    };
  });
}

/** Removes ready endpoints of the zone, last slice and last endpoint first. */
function removeEndpoints(
  state: WorkingSnapshot,
  entry: ScaleReplicasWhatIf,
  addressType: AddressType,
  path: string,
): void {
  const wanted = -entry.delta;
  const indexes = state.managedSliceIndexes(entry.namespace, entry.name, addressType);
  const isRemovable = (endpoint: Endpoint) => isEndpointReady(endpoint) && endpoint.zone === entry.zone;
  const available = indexes.reduce(
    (sum, index) => sum + (state.slices[index].endpoints ?? []).filter(isRemovable).length,
    0,
  );
  if (available < wanted) {
    throw new WhatIfError(
      `${path}.delta`,
      `cannot remove ${wanted} endpoints: Service ${entry.namespace}/${entry.name} has ${available} ready ${addressType} endpoint${available === 1 ? '' : 's'} in zone ${JSON.stringify(entry.zone)}`,
    );
  }
  let left = wanted;
  for (const index of [...indexes].reverse()) {
    if (left === 0) break;
    if (!(state.slices[index].endpoints ?? []).some(isRemovable)) continue;
    const slice = state.writableSlice(index);
    for (let position = slice.endpoints.length - 1; position >= 0 && left > 0; position--) {
      if (!isRemovable(slice.endpoints[position])) continue;
      slice.endpoints.splice(position, 1);
      left--;
    }
  }
}
