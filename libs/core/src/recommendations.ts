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
import { type BlockingNode, nodesPatch } from './fix-patches.js';
import type { EndpointSlice, Service } from './k8s-objects.js';
import { type CrossZonePrice, crossZonePrice } from './savings.js';
import type { MonthlyTraffic } from './monthly-traffic.js';
import type { CrossZoneCost } from './service-cost.js';
import type { Snapshot } from './snapshot-model.js';
import type { EnableRoutingWhatIf, ScaleReplicasWhatIf } from './what-if-document.js';
import { serviceWorkloads, WorkloadIndex, type WorkloadRef } from './workloads.js';
import { clustersOf } from './fix-clusters.js';
import { recommendForService, type ServiceInput } from './service-fixes.js';
import { reusedOrComputed, type ServiceReuse, type ServiceReuseScope } from './service-reuse.js';

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
 * Fixes computed before, reused for Services whose fix inputs are the same (see {@link ServiceReuse}):
 * the cluster's share is the nodes, traffic origin, price and cluster facts; a Service's own is its
 * objects, what the analysis says of it and its context. Populated Services (no fix but a stability
 * floor, cheap to compute) are not looked up.
 */
export type FixReuse = ServiceReuse<Recommendation[]>;
export type FixReuseScope = ServiceReuseScope<Recommendation[]>;

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
    snapshot.nodes,
    JSON.stringify([
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
        : fixesOf(reuse, key, {
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
 * `recommendForService` reads besides the Service and its slices: the analysis fields below, its
 * context, its traffic and counts seen (the cluster's share was given to `begin`).
 */
function fixesOf(reuse: FixReuseScope | undefined, key: string, input: ServiceInput): Recommendation[] {
  if (input.analysis.hints.state === 'populated') return recommendForService(input);
  const { analysis } = input;
  return reusedOrComputed(
    reuse,
    key,
    { service: input.service, slices: input.slices },
    () =>
      JSON.stringify([
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
      ]),
    () => recommendForService(input),
  );
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

/** Runs for every Service of every snapshot: a loop, not Object.entries and fromEntries. */
function definedOnly<T extends object>(value: T): Partial<T> {
  const defined: Partial<T> = {};
  for (const field of Object.keys(value) as (keyof T)[]) {
    if (value[field] !== undefined) defined[field] = value[field];
  }
  return defined;
}
