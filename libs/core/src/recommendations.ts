/**
 * Fixes, not just findings: for every Service that does not route in-zone, the changes that would make
 * it do so, each with the hint state it leads to, the share of requests that would still cross zones,
 * the expected overload per zone, what it saves a month, and the change to apply. Best first.
 *
 * Kinds:
 * - `topologyMode`: turn the CPU heuristic on; the Service's endpoints already suffice.
 * - `replicas`: the fewest ready endpoints to add per zone (or to move between zones) for which the
 *   controller writes hints; also the replica floor that keeps hints written across the endpoint counts
 *   an autoscaler was seen at (`stability`).
 * - `trafficDistribution`: `PreferSameZone` (or `PreferClose` where that is what the cluster offers):
 *   no CPU heuristic, so no safeguard limits its overload; flagged above the controller's 20 %.
 * - `nodes`: nodes whose missing zone label or CPU stops the controller for every Service.
 * - `dataPlane`: the data path ignores hints; making it honour them comes first.
 *
 * Every fix that changes a Service carries its `whatIf` (the `POST /v1/simulate` document): applied to
 * the snapshot, `analyze` reports exactly the promised state, cross-zone fraction and overloads.
 */
import { OVERLOAD_THRESHOLD } from './allocations.js';
import {
  type AnalysisReport,
  groupSlicesByService,
  isControllerManaged,
  serviceKey,
  type ServiceAnalysis,
} from './analyze.js';
import { type DataPlaneName, isDataPlaneName } from './cluster-settings.js';
import { serviceRefusalOf } from './data-planes.js';
import type { HintState } from './endpointslice-controller.js';
import { fixContextFromReport } from './fix-context.js';
import {
  type BlockingNode,
  nodesPatch,
  type PatchTarget,
  planWorkloadChanges,
  replicasPatch,
  topologyModePatch,
  trafficDistributionPatch,
  type WorkloadPlan,
} from './fix-patches.js';
import { isEndpointReady } from './hints.js';
import type { EndpointSlice, Node, Service } from './k8s-objects.js';
import { ZONE_LABEL } from './k8s-objects.js';
import { modelledVersion, type VersionFeatures, versionFeatures } from './kubernetes-versions.js';
import { computeNodeInfo, isExcludedNode, isNodeReady, nodeZone } from './node-info.js';
import { isZeroQuantity, parseQuantity } from './quantity.js';
import {
  desiredCounts,
  type ReplicaFix,
  searchReplicas,
  stableFloor,
  worstOverload,
  type ZoneDeltas,
} from './replica-search.js';
import {
  type CrossZoneCost,
  type CrossZonePrice,
  crossZonePrice,
  type MonthlyTraffic,
  monthlyTrafficGb,
} from './savings.js';
import {
  type OutcomeCluster,
  primaryAddressType,
  type ServiceChange,
  type ServiceOutcome,
  serviceOutcome,
} from './service-outcome.js';
import { snapshotRecordsManagedBy } from './slice-management.js';
import type { Snapshot } from './snapshot-model.js';
import type { EnableRoutingWhatIf, RoutingMode, ScaleReplicasWhatIf } from './what-if.js';
import { WHAT_IF_LIMITS } from './what-if.js';
import { serviceWorkloads, type ServiceWorkloads, WorkloadIndex, type WorkloadRef } from './workloads.js';

export type RecommendationKind = 'topologyMode' | 'replicas' | 'trafficDistribution' | 'nodes' | 'dataPlane';
export type OfferedTrafficDistribution = 'PreferSameZone' | 'PreferClose';

export interface Recommendation {
  kind: RecommendationKind;
  /** One sentence for a person. */
  summary: string;
  resultingState: HintState;
  /** The controller's reason when the result is not `populated`. */
  reason: string | null;
  /** Fraction of requests crossing zones after the change, on this data path. */
  crossZone: { withHints: number };
  /** Per origin zone, after the change (as `analyze` reports `zones[zone].expectedOverload`). */
  expectedOverload: Record<string, number>;
  /** Some zone's expected overload is above the controller's 20 % threshold. */
  overloadAboveThreshold: boolean;
  /**
   * Saved per month against today: the drop of the cross-zone fraction, and the cross-zone GB and cost
   * (USD) it makes with the Service's monthly traffic and the price.
   */
  savings: CrossZoneCost & { crossZoneFraction: number };
  /** Kind `replicas` (and `nodes` when the nodes alone do not suffice): per zone, negative = fewer there. */
  endpointsToAdd?: Record<string, number>;
  trafficDistribution?: OfferedTrafficDistribution;
  /** Kind `nodes`: the nodes to fix. */
  nodes?: string[];
  /** A replica floor that keeps hints written across the endpoint counts seen. */
  stability?: { countsSeen: number[]; minReplicas: number; covers: { from: number; to: number } };
  /** The change as a what-if document; null when it is not a change to the Service's objects. */
  whatIf: { enableRouting: EnableRoutingWhatIf[]; scaleReplicas: ScaleReplicasWhatIf[] } | null;
  /** `kubectl` commands or a manifest snippet. */
  patch: string;
  /**
   * Kind `replicas` (and a `nodes` fix that changes replicas): the workload the patch acts on (the one
   * taking most of the change when there are several), null when the owner of the endpoints is unknown.
   */
  workload?: WorkloadRef | null;
  /** When the endpoints belong to several workloads: each, with the endpoints per zone it gets. */
  workloads?: (WorkloadRef & { endpointsToAdd: Record<string, number> })[];
}

/**
 * What the version and data plane say about one Service. The defaults are Kubernetes 1.35 with
 * kube-proxy, where the analysis' own findings hold.
 */
export interface ServiceFixContext {
  /** The trafficDistribution value the cluster's version offers, or null when it offers none. */
  trafficDistributionOffered: OfferedTrafficDistribution | null;
  /** Whether the data path applies zone hints for this Service at all. */
  dataPathHonoursHints: boolean;
  /** Why hints change nothing on this data path. */
  dataPathReason: string | null;
  /** How to make the data plane honour hints, when it can (e.g. enabling Cilium's service topology). */
  dataPlaneFix: { summary: string; patch: string } | null;
  /** Whether the EndpointSlice controller writes this Service's slices. */
  managedByController: boolean;
}

export const KUBE_PROXY_FIX_CONTEXT: Omit<ServiceFixContext, 'managedByController'> = {
  trafficDistributionOffered: 'PreferSameZone',
  dataPathHonoursHints: true,
  dataPathReason: null,
  dataPlaneFix: null,
};

export interface RecommendOptions {
  /** Price per cross-zone GB; default: the unknown-cloud price. */
  price?: CrossZonePrice;
  /** Monthly traffic per `namespace/name`; default: the annotation, else the per-endpoint estimate. */
  trafficGb?: ReadonlyMap<string, number | MonthlyTraffic>;
  /** Ready endpoint counts seen per `namespace/name` over a window (history), for stability fixes. */
  history?: ReadonlyMap<string, readonly number[]>;
  /** Only these Services (`namespace/name`) get fixes; the others get `[]`. Default: every Service. */
  only?: ReadonlySet<string>;
  /**
   * Version and data-plane facts per Service; missing fields take the defaults. Default: what the
   * analysis itself says (`fixContextFromReport`).
   */
  contextOf?: (service: ServiceAnalysis) => Partial<ServiceFixContext>;
  /** Fixes kept from an earlier call, reused for Services whose fix inputs are the same (see {@link FixReuse}). */
  reuse?: FixReuse;
}

/**
 * A store of fixes computed before, for a caller that recommends fixes for snapshot after snapshot of
 * one cluster (most Services change nothing between two). `recommendFixes` hands it, as JSON text, every
 * input a Service's fixes are computed from: once the facts all Services share (nodes, traffic origin,
 * price), then per Service its own (its object, its slices, what the analysis says of it, its context).
 * Fixes are reused only when both are equal, so reuse never changes a result. Populated Services (no
 * fix but a stability floor, cheap to compute) are not looked up.
 */
export interface FixReuse {
  /** Starts one `recommendFixes` call; `clusterInputs` holds what every Service's fixes share. */
  begin(clusterInputs: string): FixReuseScope;
}

export interface FixReuseScope {
  recall(key: string, serviceInputs: string): Recommendation[] | undefined;
  remember(key: string, serviceInputs: string, fixes: Recommendation[]): void;
}

export interface ServiceRecommendations {
  namespace: string;
  name: string;
  recommendations: Recommendation[];
}

export interface NodeBlockers {
  nodes: BlockingNode[];
  /** Services whose fix depends on these nodes, and what those fixes save together per month. */
  services: number;
  savings: CrossZoneCost;
  patch: string;
}

export interface SnapshotRecommendations {
  /** In the report's order. */
  services: ServiceRecommendations[];
  /** Nodes that disable hints for every Service, when there are. */
  nodeBlockers: NodeBlockers | null;
}

/** The most endpoints a fix may add: enough that every cluster's allocation succeeds (6 per zone). */
function searchLimit(zones: number, readyEndpoints: number): number {
  return Math.min(Math.max(6 * zones, readyEndpoints), WHAT_IF_LIMITS.addedEndpoints);
}

export function recommendFixes(
  snapshot: Snapshot,
  report: AnalysisReport,
  options: RecommendOptions = {},
): SnapshotRecommendations {
  const price = options.price ?? crossZonePrice({});
  const contextOf = options.contextOf ?? fixContextFromReport(report);
  const clusters = clustersOf(snapshot, report);
  const dataPlane = dataPlaneOfReport(report);
  const slicesByService = groupSlicesByService(snapshot.endpointSlices);
  const workloadIndex = new WorkloadIndex(snapshot);
  const servicesByKey = new Map(snapshot.services.map((service) => [serviceKey(service), service]));
  const reuse = options.reuse?.begin(
    JSON.stringify([
      snapshot.nodes,
      report.trafficOrigin,
      report.nodeInfo.detail,
      price,
      clusters.today.features,
      clusters.today.recordsManagedBy,
      dataPlane,
    ]),
  );
  let dependent = 0;
  const dependentSavings = { crossZoneGb: 0, cost: 0 };
  const services = report.services.map((analysis) => {
    const key = `${analysis.namespace}/${analysis.name}`;
    const service = servicesByKey.get(key);
    const slices = slicesByService.get(key) ?? [];
    const recommendations =
      service === undefined || (options.only !== undefined && !options.only.has(key))
        ? []
        : reusedOrComputed(reuse, key, {
            analysis,
            service,
            slices,
            context: contextFor(analysis, service, slices, contextOf, {
              dataPlane,
              recordsManagedBy: clusters.today.recordsManagedBy ?? false,
            }),
            clusters,
            price,
            traffic: options.trafficGb?.get(key),
            countsSeen: options.history?.get(key),
            workloads: serviceWorkloads(slices, workloadIndex),
          });
    const nodesFix = recommendations.find((entry) => entry.kind === 'nodes' && entry.resultingState === 'populated');
    if (nodesFix) {
      dependent++;
      dependentSavings.crossZoneGb += nodesFix.savings.crossZoneGb;
      dependentSavings.cost += nodesFix.savings.cost;
    }
    return { namespace: analysis.namespace, name: analysis.name, recommendations };
  });
  const nodeBlockers =
    clusters.blockers.length === 0
      ? null
      : {
          nodes: clusters.blockers,
          services: dependent,
          savings: dependentSavings,
          patch: nodesPatch(clusters.blockers),
        };
  return { services, nodeBlockers };
}

/**
 * The Service's fixes, reused when the same inputs were seen before. The inputs listed are all that
 * `recommendForService` reads: the analysis fields below, the Service, its slices, its context, its
 * traffic and counts seen (the cluster's share was given to `begin`).
 */
function reusedOrComputed(reuse: FixReuseScope | undefined, key: string, input: ServiceInput): Recommendation[] {
  if (reuse === undefined || input.analysis.hints.state === 'populated') return recommendForService(input);
  const { analysis } = input;
  const inputs = JSON.stringify([
    analysis.routing,
    analysis.hints,
    analysis.readyEndpoints,
    analysis.crossZone,
    analysis.zones,
    input.context,
    input.traffic ?? null,
    input.countsSeen ?? null,
    input.workloads.known.map((entry) => [entry.workload, [...entry.readyByZone]]),
    input.workloads.unknownEndpoints,
    input.workloads.unknownReason,
    input.service,
    input.slices,
  ]);
  const kept = reuse.recall(key, inputs);
  if (kept !== undefined) return kept;
  const fixes = recommendForService(input);
  reuse.remember(key, inputs, fixes);
  return fixes;
}

function contextFor(
  analysis: ServiceAnalysis,
  service: Service,
  slices: readonly EndpointSlice[],
  contextOf: (service: ServiceAnalysis) => Partial<ServiceFixContext>,
  cluster: { dataPlane: DataPlaneName; recordsManagedBy: boolean },
): ServiceFixContext {
  const given = contextOf(analysis);
  const context: ServiceFixContext = {
    ...KUBE_PROXY_FIX_CONTEXT,
    // Decision: without a verdict from the caller, a Service counts as the controller's unless no slice
    // it has is one the controller lists.
    managedByController:
      slices.length === 0 || slices.some((slice) => isControllerManaged(slice, cluster.recordsManagedBy)),
    ...definedOnly(given),
  };
  // A data-plane fix cannot help a Service whose hints no data plane applies (headless, ExternalName,
  // labelled for another Service proxy, internalTrafficPolicy Local): it must not promise a saving.
  if (context.dataPlaneFix !== null && serviceRefusalOf(service, cluster.dataPlane) !== null) {
    return { ...context, dataPlaneFix: null };
  }
  return context;
}

/** The data plane the report models (`kube-proxy` when it does not say). */
function dataPlaneOfReport(report: AnalysisReport): DataPlaneName {
  const name = (report as { dataPlane?: { name?: unknown } | null }).dataPlane?.name;
  return typeof name === 'string' && isDataPlaneName(name) ? name : 'kube-proxy';
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

// ---------------------------------------------------------------------------------------------
// The cluster, today and with its blocking nodes fixed
// ---------------------------------------------------------------------------------------------

interface Clusters {
  today: OutcomeCluster;
  /** With the blocking nodes out of the controller's count; null when there are none. */
  fixed: OutcomeCluster | null;
  blockers: BlockingNode[];
  /** Zones with a node that takes new pods (ready, worker, not cordoned). */
  placeable: ReadonlySet<string>;
  fixedPlaceable: ReadonlySet<string>;
  /** Why node info is insufficient (the analysis' `nodeInfo.detail`). */
  nodeDetail: string | null;
}

function clustersOf(snapshot: Snapshot, report: AnalysisReport): Clusters {
  const { nodes } = snapshot;
  const originShares = new Map(Object.entries(report.trafficOrigin.shares));
  const features = featuresOfReport(report);
  const recordsManagedBy = snapshotRecordsManagedBy(snapshot.endpointSlices);
  const today: OutcomeCluster = {
    ratios: computeNodeInfo(nodes).ratios,
    originShares,
    schedulableNodes: schedulableNodesByZone(nodes),
    features,
    recordsManagedBy,
  };
  const blockers = today.ratios === null ? blockingNodes(nodes) : [];
  if (blockers.length === 0) {
    const nodeDetail = report.nodeInfo.detail;
    return { today, fixed: null, blockers, placeable: placeableZones(nodes), fixedPlaceable: new Set(), nodeDetail };
  }
  const names = new Set(blockers.map((node) => node.name));
  const kept = nodes.filter((node) => !names.has(node.metadata.name));
  const info = computeNodeInfo(kept);
  // Decision: with the nodes fixed, requests originate as the analysis would then assume: per the
  // snapshot's zone weights when it has them, else per allocatable CPU.
  const fixedShares =
    report.trafficOrigin.source === 'zone-traffic-weights' || info.ratios === null
      ? originShares
      : new Map([...info.ratios].sort(([a], [b]) => byteOrder(a, b)));
  const fixed = {
    ratios: info.ratios,
    originShares: fixedShares,
    schedulableNodes: schedulableNodesByZone(kept),
    features,
    recordsManagedBy,
  };
  const placeable = placeableZones(nodes);
  return {
    today,
    fixed,
    blockers,
    placeable,
    fixedPlaceable: placeableZones(kept),
    nodeDetail: report.nodeInfo.detail,
  };
}

/**
 * The controller's feature gates of the version the report models, so a fix's promised state is the one
 * `analyze` reports at that version; a report that does not say is 1.35's.
 */
function featuresOfReport(report: AnalysisReport): VersionFeatures | undefined {
  const version = (report as { kubernetesVersion?: unknown }).kubernetesVersion;
  if (typeof version !== 'string') return undefined;
  const minor = modelledVersion(version, null).minor;
  return versionFeatures(minor);
}

/** Ready worker nodes whose zone label is missing or empty, or whose allocatable CPU is zero, by name. */
export function blockingNodes(nodes: readonly Node[]): BlockingNode[] {
  const blockers: BlockingNode[] = [];
  for (const node of nodes) {
    if (isExcludedNode(node) || !isNodeReady(node)) continue;
    const missingZone = nodeZone(node) === '';
    const zeroCpu = hasZeroCpu(node);
    if (!missingZone && !zeroCpu) continue;
    const label = node.metadata.labels?.[ZONE_LABEL] === undefined ? 'no zone label' : 'an empty zone label';
    const problem = [missingZone ? label : null, zeroCpu ? 'zero allocatable CPU' : null].filter(Boolean).join(' and ');
    blockers.push({ name: node.metadata.name, problem, missingZone, zeroCpu });
  }
  return blockers.sort((a, b) => byteOrder(a.name, b.name));
}

function hasZeroCpu(node: Node): boolean {
  const text = node.status?.allocatable?.cpu;
  if (text === undefined || text === null) return true;
  try {
    return isZeroQuantity(parseQuantity(text));
  } catch {
    return false;
  }
}

/** As the what-if places replicas: ready worker nodes with a zone, names sorted per zone. */
function schedulableNodesByZone(nodes: readonly Node[]): Map<string, string[]> {
  const byZone = new Map<string, string[]>();
  for (const node of nodes) {
    const zone = nodeZone(node);
    if (zone === '' || isExcludedNode(node) || !isNodeReady(node)) continue;
    const names = byZone.get(zone) ?? [];
    names.push(node.metadata.name);
    byZone.set(zone, names);
  }
  for (const names of byZone.values()) names.sort(byteOrder);
  return byZone;
}

/** Decision: a cordoned node (`spec.unschedulable`) takes no new pods, so a zone of only such nodes cannot grow. */
function placeableZones(nodes: readonly Node[]): Set<string> {
  const zones = new Set<string>();
  for (const node of nodes) {
    const zone = nodeZone(node);
    const cordoned = (node.spec as { unschedulable?: unknown } | undefined)?.unschedulable === true;
    if (zone !== '' && !isExcludedNode(node) && isNodeReady(node) && !cordoned) zones.add(zone);
  }
  return zones;
}

// ---------------------------------------------------------------------------------------------
// One Service
// ---------------------------------------------------------------------------------------------

interface ServiceInput {
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
interface FixFrame {
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

function recommendForService(input: ServiceInput): Recommendation[] {
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
  const expectedOverload: Record<string, number> = {};
  for (const zone of frame.cluster.originShares.keys()) {
    expectedOverload[zone] = analysis.zones[zone]?.expectedOverload ?? 0;
  }
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

// ---------------------------------------------------------------------------------------------
// Building and ranking
// ---------------------------------------------------------------------------------------------

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

function fixOf(frame: FixFrame, kind: RecommendationKind, outcome: ServiceOutcome, parts: FixParts): Recommendation {
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
function rank(fixes: Recommendation[]): Recommendation[] {
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
function readyByZone(slices: readonly EndpointSlice[], recordsManagedBy: boolean): Map<string, number> {
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

function withoutZeroZones(counts: ReadonlyMap<string, number>): Map<string, number> {
  return new Map([...counts].filter(([, count]) => count > 0));
}

function describeDeltas(deltas: ReadonlyMap<string, number>): string {
  return [...deltas]
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([zone, delta]) => `${delta > 0 ? '+' : ''}${delta} in ${zone}`)
    .join(', ');
}

function describeCounts(counts: ReadonlyMap<string, number>): string {
  return [...counts]
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([zone, count]) => `${count} in ${zone}`)
    .join(', ');
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// The `analyze` output with its fixes
// ---------------------------------------------------------------------------------------------

export type ServiceAnalysisWithFixes = ServiceAnalysis & { recommendations: Recommendation[] };

export type AnalysisWithFixes<R extends AnalysisReport = AnalysisReport> = Omit<R, 'services'> & {
  services: (R['services'][number] & { recommendations: Recommendation[] })[];
  nodeBlockers: NodeBlockers | null;
};

/** The report with each Service's `recommendations` and the cluster's `nodeBlockers` (report order kept). */
export function withRecommendations<R extends AnalysisReport>(
  report: R,
  fixes: SnapshotRecommendations,
): AnalysisWithFixes<R> {
  return {
    ...report,
    services: report.services.map((service, index) => ({
      ...service,
      recommendations: fixes.services[index]?.recommendations ?? [],
    })),
    nodeBlockers: fixes.nodeBlockers,
  };
}
