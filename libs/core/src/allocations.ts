/**
 * How many endpoints each zone should get ("getAllocations"): a share proportional to the zone's CPU,
 * never less than the share that keeps every endpoint within the overload threshold.
 */
import {
  INSUFFICIENT_NODE_INFO_MESSAGE,
  INSUFFICIENT_NUMBER_OF_ENDPOINTS_MESSAGE,
  MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD_MESSAGE,
  NODES_READY_IN_ONE_ZONE_ONLY_MESSAGE,
  endpointAndZoneCounts,
} from './events.js';

/** The maximum overload any individual endpoint should be exposed to. */
export const OVERLOAD_THRESHOLD = 0.2;

/** 1 / (1 + 0.2) = 0.8333333333333334 in double precision. */
export const MINIMUM_SHARE_FACTOR = 1 / (1 + OVERLOAD_THRESHOLD);

export type AllocationFailureKind =
  | 'InsufficientNodeInfo'
  | 'NodesReadyInOneZoneOnly'
  | 'InsufficientNumberOfEndpoints'
  | 'MinAllocationExceedsOverloadThreshold';

export interface AllocationFailure {
  kind: AllocationFailureKind;
  /** The controller's message, without the `, addressType: <t>` suffix. */
  message: string;
}

export interface ZoneAllocation {
  minimum: number;
  maximum: number;
  desired: number;
}

export type AllocationResult =
  { ok: true; zones: Map<string, ZoneAllocation> } | { ok: false; failure: AllocationFailure };

/**
 * Allocation targets for `readyEndpoints` endpoints. Zones come out in ascending name order, which is
 * the order every later tie-break relies on.
 *
 * All arithmetic is IEEE double in upstream's order (ratio * n, then * 0.8333333333333334, then ceil):
 * rounding errors such as 1.0000000000000002 decide some outcomes and must be reproduced, not fixed.
 */
export function computeAllocations(
  ratios: ReadonlyMap<string, number> | null,
  readyEndpoints: number,
): AllocationResult {
  if (ratios === null) return failed('InsufficientNodeInfo', INSUFFICIENT_NODE_INFO_MESSAGE);
  if (ratios.size < 2) return failed('NodesReadyInOneZoneOnly', NODES_READY_IN_ONE_ZONE_ONLY_MESSAGE);
  if (ratios.size > readyEndpoints) {
    return failed(
      'InsufficientNumberOfEndpoints',
      INSUFFICIENT_NUMBER_OF_ENDPOINTS_MESSAGE + endpointAndZoneCounts(readyEndpoints, ratios.size),
    );
  }

  const zones = zonesInOrder(ratios);
  const minimumOf = (zone: string) => Math.ceil(desiredShare(ratios, zone, readyEndpoints) * MINIMUM_SHARE_FACTOR);
  let minimumSum = 0;
  for (const zone of zones) minimumSum += minimumOf(zone);
  if (minimumSum > readyEndpoints) {
    return failed(
      'MinAllocationExceedsOverloadThreshold',
      MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD_MESSAGE + endpointAndZoneCounts(readyEndpoints, ratios.size),
    );
  }

  const slack = readyEndpoints - minimumSum;
  const allocations = new Map<string, ZoneAllocation>();
  for (const zone of zones) {
    const minimum = minimumOf(zone);
    const desired = Math.max(desiredShare(ratios, zone, readyEndpoints), minimum);
    allocations.set(zone, { minimum, maximum: minimum + slack, desired });
  }
  return { ok: true, zones: allocations };
}

function desiredShare(ratios: ReadonlyMap<string, number>, zone: string, readyEndpoints: number): number {
  return (ratios.get(zone) ?? 0) * readyEndpoints;
}

/** The zones of the ratios in ascending name order, sorted once per ratio map (every Service shares it). */
function zonesInOrder(ratios: ReadonlyMap<string, number>): readonly string[] {
  let zones = sortedZonesCache.get(ratios);
  if (zones === undefined) sortedZonesCache.set(ratios, (zones = [...ratios.keys()].sort()));
  return zones;
}

const sortedZonesCache = new WeakMap<ReadonlyMap<string, number>, readonly string[]>();

/**
 * Whether hints stored at a Service's last successful allocation (zone -> hinted endpoints) would now
 * overload a zone under the current ratios; the controller requeues such Services after node changes.
 */
export function isAllocationOverloaded(
  hintedByZone: Readonly<Record<string, number>>,
  ratios: ReadonlyMap<string, number> | null,
): boolean {
  const hinted = Object.values(hintedByZone);
  if (hinted.length === 0) return false;
  if (ratios === null || ratios.size === 0) return true;
  const total = hinted.reduce((sum, count) => sum + count, 0);
  for (const [zone, ratio] of ratios) {
    const count = Object.hasOwn(hintedByZone, zone) ? hintedByZone[zone] : undefined;
    if (count === undefined || count < Math.ceil(total * ratio * MINIMUM_SHARE_FACTOR)) return true;
  }
  return false;
}

function failed(kind: AllocationFailureKind, message: string): AllocationResult {
  return { ok: false, failure: { kind, message } };
}
