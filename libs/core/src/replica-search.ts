/**
 * The smallest change of a Service's ready endpoints for which the CPU heuristic writes hints, and the
 * replica floor that keeps them written while an autoscaler moves between the counts it was seen at.
 *
 * The search asks the controller, not a formula: a candidate count is first put to the controller's own
 * allocation step (`computeAllocations`, upstream `topologycache.go getAllocations`, which alone decides
 * whether a count can be allocated), and the count it accepts is then run through the whole controller sync and traffic model
 * with the endpoints really placed (an `evaluate` callback), so the overload threshold, the
 * half-endpoint stop rule of the redistribution and every later safeguard decide the answer.
 *
 * The replica floor is stable-replica-floor.ts.
 */
import { computeAllocations } from './allocations.js';
import type { ServiceOutcome } from './service-outcome.js';

/** Zone -> endpoints to add (negative: remove); zones without a change are left out. */
export type ZoneDeltas = Map<string, number>;

export interface ReplicaSearchInput {
  /** The controller's CPU ratios (at least two zones). */
  ratios: ReadonlyMap<string, number>;
  /** Ready endpoints per zone today (the Service's primary family). */
  currentByZone: ReadonlyMap<string, number>;
  /** Zones of the ratios with a node new replicas can be scheduled on. */
  placeableZones: readonly string[];
  /** Runs the controller and the traffic model on the Service with the deltas applied. */
  evaluate: (deltas: ZoneDeltas) => ServiceOutcome;
  /** The most endpoints the search may add. */
  limit: number;
}

export interface ReplicaFix {
  deltas: ZoneDeltas;
  outcome: ServiceOutcome;
}

export type ReplicaSearchResult =
  | { found: true; added: number; best: ReplicaFix; moved: ReplicaFix | null }
  | { found: false; reason: string; outcome: ServiceOutcome | null };

/**
 * Decision: every placement of the added endpoints is tried when there are at most this many (3 zones
 * and up to 9 endpoints, 4 zones and up to 4, …); beyond that the candidates are the fill towards the
 * controller's desired counts and the even spread a `topologySpreadConstraints` with maxSkew 1 gives.
 */
const EXHAUSTIVE_PLACEMENTS = 64;

export function searchReplicas(input: ReplicaSearchInput): ReplicaSearchResult {
  const total = sum(input.currentByZone.values());
  if (input.placeableZones.length === 0) {
    return { found: false, reason: 'no zone has a node new replicas can be scheduled on', outcome: null };
  }
  const added = fewestAccepted(input.ratios, total, input.limit);
  if (added === null) {
    return {
      found: false,
      reason: `no endpoint count from ${total} to ${total + input.limit} can be allocated within the controller's overload threshold`,
      outcome: null,
    };
  }
  const best = bestPlacement(input, added);
  if (best.outcome.state !== 'populated') {
    return {
      found: false,
      reason: best.outcome.reason ?? 'the controller would still not write hints',
      outcome: best.outcome,
    };
  }
  return { found: true, added, best, moved: betterByMoving(input, added, best) };
}

/** The fewest endpoints (0 … limit) to add for which the controller's allocation step succeeds. */
export function fewestAccepted(ratios: ReadonlyMap<string, number>, total: number, limit: number): number | null {
  for (let added = 0; added <= limit; added++) {
    if (computeAllocations(ratios, total + added).ok) return added;
  }
  return null;
}

function bestPlacement(input: ReplicaSearchInput, added: number): ReplicaFix {
  const candidates = placements(input, added);
  let best: ReplicaFix | null = null;
  for (const deltas of candidates) {
    const fix = { deltas, outcome: input.evaluate(deltas) };
    if (best === null || isBetter(fix, best)) best = fix;
  }
  return best as ReplicaFix;
}

/** Populated first, then fewer crossings, then a lower worst overload; the first candidate wins ties. */
function isBetter(a: ReplicaFix, b: ReplicaFix): boolean {
  const populated = Number(a.outcome.state === 'populated') - Number(b.outcome.state === 'populated');
  if (populated !== 0) return populated > 0;
  const crossing = a.outcome.crossZone.withHints - b.outcome.crossZone.withHints;
  if (Math.abs(crossing) > 1e-12) return crossing < 0;
  return worstOverload(a.outcome) < worstOverload(b.outcome) - 1e-12;
}

export function worstOverload(outcome: ServiceOutcome): number {
  return Math.max(0, ...Object.values(outcome.expectedOverload));
}

function placements(input: ReplicaSearchInput, added: number): ZoneDeltas[] {
  if (added === 0) return [new Map()];
  const zones = input.placeableZones;
  if (compositions(added, zones.length) <= EXHAUSTIVE_PLACEMENTS) {
    return allPlacements(zones, added);
  }
  const desired = fillTowardsDesired(input, added);
  const even = evenSpread(input, added);
  return sameDeltas(desired, even) ? [desired] : [desired, even];
}

/** The number of ways to put `added` identical endpoints into `zones` zones. */
function compositions(added: number, zones: number): number {
  let result = 1;
  for (let i = 1; i < zones; i++) {
    result = (result * (added + i)) / i;
    if (result > EXHAUSTIVE_PLACEMENTS) return result;
  }
  return result;
}

function allPlacements(zones: readonly string[], added: number): ZoneDeltas[] {
  const result: ZoneDeltas[] = [];
  const counts = new Array<number>(zones.length).fill(0);
  const place = (position: number, left: number): void => {
    if (position === zones.length - 1) {
      counts[position] = left;
      result.push(deltasOf(zones, counts));
      return;
    }
    for (let count = left; count >= 0; count--) {
      counts[position] = count;
      place(position + 1, left - count);
    }
  };
  place(0, added);
  return result;
}

function deltasOf(zones: readonly string[], counts: readonly number[]): ZoneDeltas {
  const deltas: ZoneDeltas = new Map();
  zones.forEach((zone, index) => {
    if (counts[index] !== 0) deltas.set(zone, counts[index]);
  });
  return deltas;
}

/** One endpoint at a time to the placeable zone furthest below its desired count (ties: first by name). */
function fillTowardsDesired(input: ReplicaSearchInput, added: number): ZoneDeltas {
  const total = sum(input.currentByZone.values()) + added;
  const deltas: ZoneDeltas = new Map();
  for (let step = 0; step < added; step++) {
    const gap = (zone: string) =>
      (input.ratios.get(zone) ?? 0) * total - (input.currentByZone.get(zone) ?? 0) - (deltas.get(zone) ?? 0);
    const zone = input.placeableZones.reduce((best, candidate) => (gap(candidate) > gap(best) ? candidate : best));
    deltas.set(zone, (deltas.get(zone) ?? 0) + 1);
  }
  return deltas;
}

/** What a zone spread constraint with maxSkew 1 does: each new replica goes to the emptiest zone. */
function evenSpread(input: ReplicaSearchInput, added: number): ZoneDeltas {
  const deltas: ZoneDeltas = new Map();
  for (let step = 0; step < added; step++) {
    const count = (zone: string) => (input.currentByZone.get(zone) ?? 0) + (deltas.get(zone) ?? 0);
    const zone = input.placeableZones.reduce((best, candidate) => (count(candidate) < count(best) ? candidate : best));
    deltas.set(zone, (deltas.get(zone) ?? 0) + 1);
  }
  return deltas;
}

/**
 * When the best addition still leaves requests crossing zones (the controller re-hints endpoints of a
 * crowded zone for an empty one), the same total with endpoints also moved out of crowded zones, so each
 * zone holds its desired count. Offered only when it crosses strictly less.
 */
function betterByMoving(input: ReplicaSearchInput, added: number, best: ReplicaFix): ReplicaFix | null {
  if (best.outcome.crossZone.withHints <= 1e-12) return null;
  const target = desiredCounts(input.ratios, input.placeableZones, sum(input.currentByZone.values()) + added);
  if (target === null) return null;
  const deltas: ZoneDeltas = new Map();
  for (const [zone, count] of target) {
    const delta = count - (input.currentByZone.get(zone) ?? 0);
    if (delta !== 0) deltas.set(zone, delta);
  }
  for (const zone of input.currentByZone.keys()) {
    if (!target.has(zone) && (input.currentByZone.get(zone) ?? 0) > 0) return null;
  }
  if (![...deltas.values()].some((delta) => delta < 0)) return null;
  const moved = { deltas, outcome: input.evaluate(deltas) };
  const better =
    moved.outcome.state === 'populated' && moved.outcome.crossZone.withHints < best.outcome.crossZone.withHints - 1e-12;
  return better ? moved : null;
}

/**
 * Whole endpoints per zone closest to the controller's desired shares (largest remainder, ties by name),
 * only over placeable zones; null when a zone of the ratios cannot take replicas.
 */
export function desiredCounts(
  ratios: ReadonlyMap<string, number>,
  placeableZones: readonly string[],
  total: number,
): Map<string, number> | null {
  const zones = [...ratios.keys()].sort(byteOrder);
  if (zones.some((zone) => !placeableZones.includes(zone))) return null;
  const quotas = zones.map((zone) => ({ zone, quota: (ratios.get(zone) ?? 0) * total }));
  const counts = new Map(quotas.map(({ zone, quota }) => [zone, Math.floor(quota)]));
  let left = total - sum(counts.values());
  const byRemainder = [...quotas].sort((a, b) => b.quota - Math.floor(b.quota) - (a.quota - Math.floor(a.quota)));
  for (const { zone } of byRemainder) {
    if (left <= 0) break;
    counts.set(zone, (counts.get(zone) ?? 0) + 1);
    left--;
  }
  return counts;
}

function sameDeltas(a: ZoneDeltas, b: ZoneDeltas): boolean {
  return a.size === b.size && [...a].every(([zone, count]) => b.get(zone) === count);
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
