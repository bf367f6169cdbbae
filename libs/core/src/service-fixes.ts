/**
 * The fixes of one Service: the CPU heuristic, replicas per zone (and their stability floor),
 * `trafficDistribution`, its nodes, its data plane; each run through the controller and the traffic
 * model so it carries the outcome it promises.
 */
import { OVERLOAD_THRESHOLD } from './allocations.js';
import type { ServiceAnalysis } from './analyze.js';
import {
  nodesPatch,
  type PatchTarget,
  planWorkloadChanges,
  replicasPatch,
  topologyModePatch,
  trafficDistributionPatch,
} from './fix-patches.js';
import type { EndpointSlice, Service } from './k8s-objects.js';
import { desiredCounts, type ReplicaFix, searchReplicas, worstOverload, type ZoneDeltas } from './replica-search.js';
import { stableFloor } from './stable-replica-floor.js';
import type { CrossZonePrice } from './savings.js';
import { type MonthlyTraffic, monthlyTrafficGb } from './monthly-traffic.js';
import { type OutcomeCluster, type ServiceChange, type ServiceOutcome, serviceOutcome } from './service-outcome.js';
import { type RoutingMode, WHAT_IF_LIMITS } from './what-if-document.js';
import type { ServiceWorkloads } from './workloads.js';
import { byteOrder } from './lists.js';
import type { Recommendation, ServiceFixContext } from './recommendations.js';
import type { Clusters } from './fix-clusters.js';
import { fixOf, rank, readyByZone, withoutZeroZones, describeDeltas, describeCounts, percent } from './fix-ranking.js';

export interface ServiceInput {
  analysis: ServiceAnalysis;
  service: Service;
  slices: readonly EndpointSlice[];
  context: ServiceFixContext;
  clusters: Clusters;
  price: CrossZonePrice;
  traffic: number | MonthlyTraffic | undefined;
  countsSeen: readonly number[] | undefined;
  /** The workloads behind its ready endpoints. */
  workloads: ServiceWorkloads;
}

/** Everything the fixes of one Service share. */
export interface FixFrame {
  input: ServiceInput;
  target: PatchTarget;
  cluster: OutcomeCluster;
  placeable: ReadonlySet<string>;
  trafficGb: number;
  /** Cross-zone fraction today, on this data path, under `cluster`'s origin shares. */
  today: number;
  /** The routing mode a replicas fix also sets (`Auto` for a Service that does not ask yet). */
  routing: RoutingMode | undefined;
  currentByZone: Map<string, number>;
}

/** The most endpoints a fix may add: enough that every cluster's allocation succeeds (6 per zone). */
function searchLimit(zones: number, readyEndpoints: number): number {
  return Math.min(Math.max(6 * zones, readyEndpoints), WHAT_IF_LIMITS.addedEndpoints);
}

export function recommendForService(input: ServiceInput): Recommendation[] {
  const { analysis, context } = input;
  if (!context.managedByController) return unmanaged(input);
  if (!context.dataPathHonoursHints) return dataPlaneFixes(input);
  const stability = stabilityFix(input);
  if (analysis.hints.state === 'populated') return stability === null ? [] : [stability];
  if (input.service.spec?.internalTrafficPolicy === 'Local') return nothingToGain(input, LOCAL_POLICY);
  if (analysis.readyEndpoints === 0) {
    return analysis.routing === 'None' ? [] : [noEndpoints(input)];
  }
  const fixes = input.clusters.today.ratios === null ? nodeInfoFixes(input) : replicaFixes(frameOf(input, false), true);
  if (stability !== null) fixes.push(stability);
  return fixes.length === 0 ? nothingToGain(input, NO_CROSSING) : rank(fixes);
}

const LOCAL_POLICY =
  'internalTrafficPolicy is Local, so in-cluster clients only reach endpoints on their own node and no request crosses zones, hints or not';
const NO_CROSSING = 'no change zonewise knows of lowers the share of requests that cross zones (today, none or few do)';

/**
 * A Service that asks for topology routing but gets no hints, and could gain nothing from them: one entry
 * saying why (a Service that does not ask for routing gets none).
 */
function nothingToGain(input: ServiceInput, why: string): Recommendation[] {
  if (input.analysis.routing === 'None') return [];
  const frame = frameOf(input, false);
  return [
    fixOf(frame, input.analysis.routing === 'Auto' ? 'replicas' : 'trafficDistribution', unchangedOutcome(frame), {
      summary: `Nothing to fix: ${why}.`,
      deltas: null,
      patch: '# nothing to apply',
    }),
  ];
}

function frameOf(input: ServiceInput, withFixedNodes: boolean): FixFrame {
  const { analysis, service, clusters } = input;
  const cluster = withFixedNodes && clusters.fixed !== null ? clusters.fixed : clusters.today;
  const traffic =
    input.traffic ??
    monthlyTrafficGb({ annotations: service.metadata.annotations, readyEndpoints: analysis.readyEndpoints });
  const today =
    cluster === clusters.today
      ? analysis.crossZone.withHints
      : serviceOutcome(service, input.slices, {}, { ...cluster, ratios: null }).crossZone.withHints;
  return {
    input,
    target: { namespace: analysis.namespace, name: analysis.name, service },
    cluster,
    placeable: withFixedNodes ? clusters.fixedPlaceable : clusters.placeable,
    trafficGb: typeof traffic === 'number' ? traffic : traffic.gb,
    today,
    routing: analysis.routing === 'None' ? 'Auto' : undefined,
    currentByZone: readyByZone(input.slices, clusters.today.recordsManagedBy ?? false),
  };
}

/** The CPU heuristic's fixes (topology mode, replicas), then trafficDistribution; nothing when nothing is gained. */
function replicaFixes(frame: FixFrame, withTrafficDistribution: boolean): Recommendation[] {
  if (frame.today <= 1e-12 || frame.cluster.originShares.size === 0) return [];
  const fixes: Recommendation[] = [];
  const ratios = frame.cluster.ratios;
  if (ratios !== null) fixes.push(...cpuHeuristicFixes(frame, ratios));
  const distribution = withTrafficDistribution ? trafficDistributionFix(frame) : null;
  if (distribution !== null) fixes.push(distribution);
  return fixes.filter(
    (fix) => fix.resultingState !== 'populated' || fix.savings.crossZoneGb > 0 || frame.trafficGb === 0,
  );
}

function cpuHeuristicFixes(frame: FixFrame, ratios: ReadonlyMap<string, number>): Recommendation[] {
  const { input } = frame;
  const evaluate = (deltas: ZoneDeltas) =>
    serviceOutcome(input.service, input.slices, changeOf(frame, deltas), frame.cluster);
  const result = searchReplicas({
    ratios,
    currentByZone: frame.currentByZone,
    placeableZones: [...ratios.keys()].filter((zone) => frame.placeable.has(zone)).sort(byteOrder),
    evaluate,
    limit: searchLimit(ratios.size, input.analysis.readyEndpoints),
  });
  if (!result.found) {
    const outcome = result.outcome ?? evaluate(new Map());
    return [
      fixOf(frame, 'replicas', outcome, {
        summary: `No small change of replicas makes the controller write hints: ${result.reason}.`,
        deltas: null,
        patch: '# nothing to apply',
      }),
    ];
  }
  const fixes =
    result.added === 0 ? [topologyModeFix(frame, result.best)] : [replicasFix(frame, result.best, result.added)];
  if (result.moved !== null) fixes.push(replicasFix(frame, result.moved, result.added));
  return fixes;
}

function changeOf(frame: FixFrame, deltas: ZoneDeltas): ServiceChange {
  return frame.routing === undefined
    ? { endpointsByZone: deltas }
    : { routing: frame.routing, endpointsByZone: deltas };
}

function topologyModeFix(frame: FixFrame, fix: ReplicaFix): Recommendation {
  return fixOf(frame, 'topologyMode', fix.outcome, {
    summary: `Annotate the Service with topology-mode Auto: its ${frame.input.analysis.readyEndpoints} ready endpoints already suffice, so the controller writes hints.`,
    deltas: fix.deltas,
    patch: topologyModePatch(frame.target),
  });
}

function replicasFix(frame: FixFrame, fix: ReplicaFix, added: number): Recommendation {
  const before = new Map([...frame.currentByZone].filter(([zone]) => zone !== ''));
  const after = new Map(before);
  for (const [zone, delta] of fix.deltas) after.set(zone, (after.get(zone) ?? 0) + delta);
  const moves = [...fix.deltas.values()].some((delta) => delta < 0);
  const total = frame.input.analysis.readyEndpoints + added;
  const change = describeDeltas(fix.deltas);
  const enable = frame.routing === 'Auto' ? ' and annotate it with topology-mode Auto' : '';
  const summary = moves
    ? `Move replicas (${change}) for ${total} ready endpoints${enable}: fewer requests cross zones than by adding alone.`
    : `Add ${added} ready endpoint${added === 1 ? '' : 's'} (${change}) for ${total} in all${enable}: the fewest for which the controller writes hints.`;
  const plan = planWorkloadChanges(frame.input.workloads, fix.deltas);
  return fixOf(frame, 'replicas', fix.outcome, {
    summary,
    deltas: fix.deltas,
    plan,
    patch: replicasPatch(frame.target, {
      before,
      after: withoutZeroZones(after),
      enableAuto: frame.routing === 'Auto',
      plan,
    }),
  });
}

function trafficDistributionFix(frame: FixFrame): Recommendation | null {
  const { input } = frame;
  const offered = input.context.trafficDistributionOffered;
  if (offered === null || input.analysis.routing === offered) return null;
  const outcome = serviceOutcome(input.service, input.slices, { routing: offered }, frame.cluster);
  if (outcome.crossZone.withHints >= frame.today - 1e-12) return null;
  const overload = worstOverload(outcome);
  const flag =
    overload > OVERLOAD_THRESHOLD + 1e-9
      ? ` The busiest endpoint gets ${percent(overload)} more than an even share, above the controller's ${percent(OVERLOAD_THRESHOLD)} threshold, and no safeguard limits it.`
      : '';
  return fixOf(frame, 'trafficDistribution', outcome, {
    summary: `Set spec.trafficDistribution: ${offered}: kube-proxy keeps each zone's requests on its own zone's endpoints.${flag}`,
    deltas: null,
    routing: offered,
    patch: trafficDistributionPatch(frame.target, offered),
  });
}

/**
 * Node info is insufficient. With blocking nodes: the CPU-heuristic fixes as they would be with those
 * nodes fixed (kind `nodes`). Decision: no trafficDistribution fix then, since the analysis of such a
 * cluster knows no zones to model traffic over; fixing the nodes comes first. Without blocking nodes
 * (no ready worker nodes in two zones), nothing on the Service helps the CPU heuristic.
 */
function nodeInfoFixes(input: ServiceInput): Recommendation[] {
  const { clusters } = input;
  if (clusters.fixed !== null) {
    return replicaFixes(frameOf(input, true), false).map((fix) => asNodesFix(fix, clusters));
  }
  const frame = frameOf(input, false);
  if (frame.today <= 1e-12) return [];
  return [
    ...replicaFixes(frame, true),
    fixOf(frame, 'nodes', unchangedOutcome(frame), {
      summary: `Nothing on the Service helps the CPU heuristic: ${clusters.nodeDetail ?? 'the controller has no usable node information'}.`,
      deltas: null,
      patch: '# add ready worker nodes with allocatable CPU in at least two zones',
    }),
  ];
}

/** A CPU-heuristic fix that first needs the blocking nodes fixed: kind `nodes`, with the nodes named. */
function asNodesFix(fix: Recommendation, clusters: Clusters): Recommendation {
  const names = clusters.blockers.map((node) => node.name);
  const problems = clusters.blockers.map((node) => `${node.name} (${node.problem})`).join(', ');
  const then = fix.resultingState === 'populated' ? ` Then: ${fix.summary}` : ` ${fix.summary}`;
  return {
    ...fix,
    kind: 'nodes',
    nodes: names,
    summary: `Fix the nodes that disable hints for every Service: ${problems}.${then}`,
    patch: `${nodesPatch(clusters.blockers)}\n${fix.patch}`,
  };
}

/**
 * What an entry that changes nothing leads to: the Service as the analysis reports it today (its hint
 * state and reason, today's crossing and overloads). Such an entry never promises a saving, and never a
 * state the analysis does not report (e.g. hints the controller would write for a Service it does not
 * manage, or that the data path would ignore).
 */
function unchangedOutcome(frame: FixFrame): ServiceOutcome {
  const { analysis } = frame.input;
  const expectedOverload = Object.fromEntries(
    [...frame.cluster.originShares.keys()].map((zone) => [
      zone,
      Object.hasOwn(analysis.zones, zone) ? analysis.zones[zone].expectedOverload : 0,
    ]),
  );
  return {
    state: analysis.hints.state,
    reason: analysis.hints.reason,
    crossZone: { withoutHints: analysis.crossZone.withoutHints, withHints: frame.today },
    expectedOverload,
    readyEndpoints: analysis.readyEndpoints,
  };
}

/** The controller's sync of the Service as it is, on a data path that reads the hints. */
function outcomeToday(frame: FixFrame): ServiceOutcome {
  return serviceOutcome(frame.input.service, frame.input.slices, {}, frame.cluster);
}

function unmanaged(input: ServiceInput): Recommendation[] {
  if (input.analysis.routing === 'None') return [];
  const frame = frameOf(input, false);
  return [
    fixOf(frame, 'topologyMode', unchangedOutcome(frame), {
      summary:
        "The EndpointSlice controller does not manage this Service's EndpointSlices, so no topology setting on the Service changes its hints; whoever writes the slices decides.",
      deltas: null,
      patch: '# nothing to apply on the Service',
    }),
  ];
}

function dataPlaneFixes(input: ServiceInput): Recommendation[] {
  const { context, analysis } = input;
  const frame = frameOf(input, false);
  const reason = context.dataPathReason ?? 'the data path ignores topology hints';
  if (context.dataPlaneFix === null) {
    if (analysis.routing === 'None' && analysis.hints.state === 'none') return [];
    return [
      fixOf(frame, 'dataPlane', unchangedOutcome(frame), {
        summary: `Hints change nothing here: ${reason}.`,
        deltas: null,
        patch: '# nothing to apply',
      }),
    ];
  }
  const outcome = outcomeToday(frame);
  const honoured = { ...frame, today: analysis.crossZone.withoutHints };
  const then =
    outcome.state === 'populated' ? '' : ' The Service then still needs hints written: see the analysis once it does.';
  return [
    fixOf(honoured, 'dataPlane', outcome, {
      summary: `${context.dataPlaneFix.summary} (${reason}).${then}`,
      deltas: null,
      patch: context.dataPlaneFix.patch,
    }),
  ];
}

function noEndpoints(input: ServiceInput): Recommendation {
  const frame = frameOf(input, false);
  return fixOf(frame, 'replicas', unchangedOutcome(frame), {
    summary: 'The Service has no ready endpoints: there is nothing to route until its pods are ready.',
    deltas: null,
    patch: '# nothing to apply',
  });
}

/**
 * For a Service the history saw at several endpoint counts, some of which the controller cannot
 * allocate: the replica floor from which every count of the same swing is allocated, checked by running
 * the controller with the floor's endpoints placed.
 */
function stabilityFix(input: ServiceInput): Recommendation | null {
  const { countsSeen, analysis } = input;
  const ratios = input.clusters.today.ratios;
  if (countsSeen === undefined || countsSeen.length === 0 || ratios === null || analysis.routing !== 'Auto')
    return null;
  const floor = stableFloor(ratios, countsSeen, searchLimit(ratios.size, Math.max(...countsSeen)));
  if (floor === null) return null;
  const frame = frameOf(input, false);
  // Endpoints in zones outside the ratios (a zone that lost its nodes) still count towards the floor.
  const outside = [...frame.currentByZone].filter(([zone]) => !ratios.has(zone)).reduce((sum, [, n]) => sum + n, 0);
  const deltas: ZoneDeltas = new Map();
  for (const [zone, count] of desiredCounts(ratios, [...ratios.keys()], floor.floor - outside) ?? new Map()) {
    const delta = count - (frame.currentByZone.get(zone) ?? 0);
    if (delta !== 0) deltas.set(zone, delta);
  }
  if ([...deltas].some(([zone, delta]) => delta > 0 && !frame.placeable.has(zone))) return null;
  const outcome = serviceOutcome(input.service, input.slices, changeOf(frame, deltas), frame.cluster);
  if (outcome.state !== 'populated') return null;
  const seen = [...new Set(countsSeen)].sort((a, b) => a - b);
  const before = new Map([...frame.currentByZone].filter(([zone]) => zone !== ''));
  const after = new Map(before);
  for (const [zone, delta] of deltas) after.set(zone, (after.get(zone) ?? 0) + delta);
  const plan = planWorkloadChanges(input.workloads, deltas);
  const fix = fixOf(frame, 'replicas', outcome, {
    summary: `Hints come and go at ${seen.join(', ')} ready endpoints: keep at least ${floor.floor} replicas (${describeCounts(after)}), so every count from ${floor.covers.from} to ${floor.covers.to} keeps them.`,
    deltas,
    plan,
    patch: replicasPatch(frame.target, {
      before,
      after: withoutZeroZones(after),
      enableAuto: false,
      minReplicas: floor.floor,
      plan,
    }),
  });
  return { ...fix, stability: { countsSeen: seen, minReplicas: floor.floor, covers: floor.covers } };
}
