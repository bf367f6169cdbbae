/**
 * Stability across the counts an autoscaler moves between: the replica floor from which a Service can
 * swing as far as it was seen to swing with every count allocated by the controller
 * (`computeAllocations`, upstream `topologycache.go getAllocations`).
 */
import { computeAllocations } from './allocations.js';
import { desiredCounts } from './replica-search.js';

export interface StableFloor {
  /** The replica floor: every count from it to it + (largest − smallest count seen) is allocated. */
  floor: number;
  /** The counts it covers. */
  covers: { from: number; to: number };
  /** Endpoints per zone at the floor, closest to the controller's desired shares. */
  perZone: Map<string, number>;
}

/**
 * The smallest floor, at or above the smallest count seen, from which the Service can swing as far as
 * it was seen to swing (largest − smallest count) with every count allocated by the controller.
 * Null when the counts seen all allocate already, or no floor within `limit` endpoints above the
 * smallest count does.
 */
export function stableFloor(
  ratios: ReadonlyMap<string, number>,
  countsSeen: readonly number[],
  limit: number,
): StableFloor | null {
  const seen = countsSeen.filter((count) => Number.isInteger(count) && count >= 0);
  if (seen.length === 0 || seen.every((count) => computeAllocations(ratios, count).ok)) return null;
  const lowest = Math.min(...seen);
  const swing = Math.max(...seen) - lowest;
  for (let floor = lowest; floor <= lowest + limit; floor++) {
    let stable = true;
    for (let count = floor; count <= floor + swing && stable; count++) stable = computeAllocations(ratios, count).ok;
    if (!stable) continue;
    const perZone = desiredCounts(ratios, [...ratios.keys()], floor) ?? new Map<string, number>();
    return { floor, covers: { from: floor, to: floor + swing }, perZone };
  }
  return null;
}
