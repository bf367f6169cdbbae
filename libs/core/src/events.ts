/**
 * The Events the EndpointSlice controller records on a Service about topology hints, word for word
 * (upstream `topologycache/event.go` and the reconciler).
 */
import type { AddressType } from './k8s-objects.js';

export interface ControllerEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export const HINTS_ENABLED_REASON = 'TopologyAwareHintsEnabled';
export const HINTS_DISABLED_REASON = 'TopologyAwareHintsDisabled';

export const INSUFFICIENT_NODE_INFO_MESSAGE =
  'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes';
export const NODES_READY_IN_ONE_ZONE_ONLY_MESSAGE = 'Nodes only ready in one zone';
export const INSUFFICIENT_NUMBER_OF_ENDPOINTS_MESSAGE = 'Insufficient number of endpoints';
export const MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD_MESSAGE =
  'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold';
export const ENDPOINTS_WITHOUT_ZONE_MESSAGE = 'One or more endpoints do not have a zone specified';
export const NO_ZONES_ALLOCATED_MESSAGE = 'No hints allocated for zones';
export const HINTS_ENABLED_MESSAGE = 'Topology Aware Hints has been enabled';
export const HINTS_DISABLED_MESSAGE = 'Topology Aware Hints has been disabled';

/** `" (<n> endpoints, <z> zones)"`, appended to the two endpoint-count failures. */
export function endpointAndZoneCounts(endpoints: number, zones: number): string {
  return ` (${endpoints} endpoints, ${zones} zones)`;
}

export function withAddressType(message: string, addressType: AddressType): string {
  return `${message}, addressType: ${addressType}`;
}

export function hintsEnabledEvent(addressType: AddressType): ControllerEvent {
  return { type: 'Normal', reason: HINTS_ENABLED_REASON, message: withAddressType(HINTS_ENABLED_MESSAGE, addressType) };
}

/** A `Warning` / `TopologyAwareHintsDisabled` event; `message` is given without the address-type suffix. */
export function hintsDisabledEvent(message: string, addressType: AddressType): ControllerEvent {
  return { type: 'Warning', reason: HINTS_DISABLED_REASON, message: withAddressType(message, addressType) };
}
