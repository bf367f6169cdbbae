/**
 * A fix built from its parts (summary, what-if, patch, outcome, money) and the fixes of a Service ranked
 * best first, with the text helpers their summaries share.
 */
import { OVERLOAD_THRESHOLD } from './allocations.js';
import { isControllerManaged } from './analyze.js';
import type { WorkloadPlan } from './fix-patches.js';
import { isEndpointReady } from './hints.js';
import type { EndpointSlice } from './k8s-objects.js';
import { worstOverload, type ZoneDeltas } from './replica-search.js';
import { primaryAddressType, type ServiceOutcome } from './service-outcome.js';
import type { RoutingMode } from './what-if-document.js';
import type { OfferedTrafficDistribution, Recommendation, RecommendationKind } from './recommendations.js';
import { byteOrder } from './lists.js';
import type { FixFrame } from './service-fixes.js';

interface FixParts {
  summary: string;
  /** The endpoints changed (null: none); with the frame's routing they make the what-if. */
  deltas: ZoneDeltas | null;
  /** A trafficDistribution fix's value. */
  routing?: OfferedTrafficDistribution;
  /** A replicas fix's workloads. */
  plan?: WorkloadPlan;
  patch: string;
}

export function fixOf(
  frame: FixFrame,
  kind: RecommendationKind,
  outcome: ServiceOutcome,
  parts: FixParts,
): Recommendation {
  const { namespace, name } = frame.target;
  const after =
    outcome.state === 'populated' || parts.routing !== undefined ? outcome.crossZone.withHints : frame.today;
  const saved = frame.today - after;
  const crossZoneGb = frame.trafficGb * saved;
  const routing: RoutingMode | undefined = parts.routing ?? (parts.deltas === null ? undefined : frame.routing);
  const scale = [...(parts.deltas ?? new Map<string, number>())]
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([zone, delta]) => ({ namespace, name, zone, delta }));
  const changes = routing !== undefined || scale.length > 0;
  const recommendation: Recommendation = {
    kind,
    summary: parts.summary,
    resultingState: outcome.state,
    reason: outcome.reason,
    crossZone: { withHints: after },
    expectedOverload: outcome.expectedOverload,
    overloadAboveThreshold: worstOverload(outcome) > OVERLOAD_THRESHOLD + 1e-9,
    savings: { crossZoneFraction: saved, crossZoneGb, cost: crossZoneGb * frame.input.price.pricePerGb },
    whatIf: changes
      ? { enableRouting: routing === undefined ? [] : [{ namespace, name, mode: routing }], scaleReplicas: scale }
      : null,
    patch: parts.patch,
  };
  if (parts.deltas !== null && (kind === 'replicas' || kind === 'nodes') && parts.deltas.size > 0) {
    recommendation.endpointsToAdd = Object.fromEntries(scale.map((entry) => [entry.zone, entry.delta]));
  }
  if (parts.routing !== undefined) recommendation.trafficDistribution = parts.routing;
  if (parts.plan !== undefined) Object.assign(recommendation, workloadFields(parts.plan));
  return recommendation;
}

/** `workload` (the one taking most of the change; null when none is known) and, for several, `workloads`. */
function workloadFields(plan: WorkloadPlan): Pick<Recommendation, 'workload' | 'workloads'> {
  const size = (change: WorkloadPlan['changes'][number]) =>
    Object.values(change.endpointsToAdd).reduce((total, delta) => total + Math.abs(delta), 0);
  const largest = plan.changes.reduce<WorkloadPlan['changes'][number] | null>(
    (best, change) => (best === null || size(change) > size(best) ? change : best),
    null,
  );
  const fields: Pick<Recommendation, 'workload' | 'workloads'> = { workload: largest?.workload ?? null };
  if (plan.changes.length > 1) {
    fields.workloads = plan.changes.map((change) => ({ ...change.workload, endpointsToAdd: change.endpointsToAdd }));
  }
  return fields;
}

const KIND_ORDER: readonly RecommendationKind[] = [
  'dataPlane',
  'nodes',
  'topologyMode',
  'replicas',
  'trafficDistribution',
];

/**
 * Best first: fixes that get hints written, then those within the controller's overload threshold, then
 * the larger saving, then the kind (the root cause before the workaround).
 */
export function rank(fixes: Recommendation[]): Recommendation[] {
  return fixes
    .map((fix, index) => ({ fix, index }))
    .sort((a, b) => {
      const populated = Number(b.fix.resultingState === 'populated') - Number(a.fix.resultingState === 'populated');
      if (populated !== 0) return populated;
      const overload = Number(a.fix.overloadAboveThreshold) - Number(b.fix.overloadAboveThreshold);
      if (overload !== 0) return overload;
      const saving = b.fix.savings.crossZoneGb - a.fix.savings.crossZoneGb;
      if (Math.abs(saving) > 1e-9) return saving;
      return KIND_ORDER.indexOf(a.fix.kind) - KIND_ORDER.indexOf(b.fix.kind) || a.index - b.index;
    })
    .map(({ fix }) => fix);
}

/** Ready endpoints per zone of the Service's primary family (`''` for endpoints without a zone), in the slices the controller lists. */
export function readyByZone(slices: readonly EndpointSlice[], recordsManagedBy: boolean): Map<string, number> {
  const addressType = primaryAddressType(slices);
  const counts = new Map<string, number>();
  for (const slice of slices) {
    if (slice.addressType !== addressType || !isControllerManaged(slice, recordsManagedBy)) continue;
    for (const endpoint of slice.endpoints ?? []) {
      if (!isEndpointReady(endpoint)) continue;
      const zone = endpoint.zone ?? '';
      counts.set(zone, (counts.get(zone) ?? 0) + 1);
    }
  }
  return counts;
}

export function withoutZeroZones(counts: ReadonlyMap<string, number>): Map<string, number> {
  return new Map([...counts].filter(([, count]) => count > 0));
}

export function describeDeltas(deltas: ReadonlyMap<string, number>): string {
  return [...deltas]
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([zone, delta]) => `${delta > 0 ? '+' : ''}${delta} in ${zone}`)
    .join(', ');
}

export function describeCounts(counts: ReadonlyMap<string, number>): string {
  return [...counts]
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([zone, count]) => `${count} in ${zone}`)
    .join(', ');
}

export function percent(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}
