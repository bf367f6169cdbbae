import { MINIMUM_SHARE_FACTOR, type ZoneAllocation } from './allocations.js';
import { analyzeClusterIPs, serviceCidrsOf, type ServiceCidrReport } from './cluster-ips.js';
import { compareHints, type HintDrift } from './drift.js';
import { reconcileServiceHints, type HintState, type ServiceHintsResult } from './endpointslice-controller.js';
import type { ControllerEvent } from './events.js';
import { countReadyEndpoints } from './hints.js';
import type { AddressType, EndpointSlice, Service } from './k8s-objects.js';
import { SERVICE_NAME_LABEL } from './k8s-objects.js';
import { computeNodeInfo, type NodeInfo, type ZoneCapacity } from './node-info.js';
import type { Routing } from './routing-mode.js';
import type { Snapshot } from './snapshot-model.js';
import {
  modelSliceTraffic,
  overloadOfAllocation,
  proportionalAllocation,
  type CrossZoneFractions,
} from './traffic-model.js';

/**
 * The whole analysis of one cluster snapshot: what the EndpointSlice controller would do to every
 * Service's slices, how kube-proxy would then route, what crosses zones, and the Service IP ranges.
 * The output is the `zonewise analyze` JSON of the CLI contract.
 */

export const ANALYSIS_SCHEMA_VERSION = 1;
const CONTROLLER_MANAGED_BY = 'endpointslice-controller.k8s.io';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';

export interface AnalyzeOptions {
  /** Relative request volume per zone; overrides the snapshot's `zonewise.io/zone-traffic-weights`. */
  zoneTrafficWeights?: Record<string, number>;
  /** Addresses to check as static ClusterIP requests (e.g. a planned DNS Service address). */
  requestedStaticIPs?: string[];
}

export interface ZoneAnalysis {
  /** The controller's targets for the CPU heuristic (null where it computes none). */
  minimum: number | null;
  maximum: number | null;
  desired: number | null;
  /** Endpoints hinted for this zone (null when the Service has no hints). */
  allocated: number | null;
  /**
   * How much more than an even share the busiest endpoint serving this zone's requests gets: with the
   * hints the controller writes; for a Service without them, with the proportional allocation the CPU
   * heuristic would need (the overload its threshold refuses, or that enabling it would cause).
   */
  expectedOverload: number;
}

export interface KubeProxyUse {
  /** Whether kube-proxy applies the Service's zone hints to in-cluster traffic at all. */
  usesHints: boolean;
  reason: string | null;
}

export interface ServiceAnalysis {
  namespace: string;
  name: string;
  routing: Routing;
  hints: { state: HintState; reason: string | null };
  events: ControllerEvent[];
  endpointSlices: EndpointSlice[];
  zones: Record<string, ZoneAnalysis>;
  crossZone: CrossZoneFractions;
  readyEndpoints: number;
  /** Slices the controller would write now (hints changed or invalid). */
  rewrittenSlices: string[];
  /** Observed hints (in the snapshot) against computed hints. */
  drift: HintDrift;
  kubeProxy: KubeProxyUse;
}

export interface AnalysisReport {
  schemaVersion: number;
  nodeInfo: { sufficient: boolean; reason: string | null; detail: string | null; zones: ZoneCapacity[] };
  trafficOrigin: { source: 'allocatable-cpu' | 'zone-traffic-weights' | 'even'; shares: Record<string, number> };
  summary: AnalysisSummary;
  services: ServiceAnalysis[];
  serviceCIDRs: ServiceCidrReport[];
}

export interface AnalysisSummary {
  services: Record<HintState, number>;
  servicesWithDrift: number;
  /** Cross-zone fractions over all Services, weighted by ready endpoints (a stand-in for traffic volume). */
  crossZone: CrossZoneFractions;
}

export function analyzeSnapshot(snapshot: Snapshot, options: AnalyzeOptions = {}): AnalysisReport {
  const nodeInfo = computeNodeInfo(snapshot.nodes);
  const origin = trafficOrigin(nodeInfo, options.zoneTrafficWeights ?? snapshot.zoneTrafficWeights);
  const slicesByService = groupSlicesByService(snapshot.endpointSlices);
  const context: AnalysisContext = {
    nodeInfo,
    originShares: origin.shareMap,
    proportionalOverload: memoizedByCount((n) => overloadOfAllocation(proportionalAllocation(n, origin.shareMap), origin.shareMap)),
  };
  const services = sortedServices(snapshot.services).map(({ key, service }) =>
    analyzeService(service, slicesByService.get(key) ?? [], context),
  );
  const cidrs = serviceCidrsOf(snapshot.serviceCIDRs, snapshot.annotatedServiceCIDRs);
  return {
    schemaVersion: ANALYSIS_SCHEMA_VERSION,
    nodeInfo: { sufficient: nodeInfo.sufficient, reason: nodeInfo.reason, detail: nodeInfo.detail, zones: nodeInfo.zones },
    trafficOrigin: { source: origin.source, shares: Object.fromEntries(origin.shareMap) },
    summary: summarize(services),
    services,
    serviceCIDRs: analyzeClusterIPs(cidrs, snapshot.services, { requestedStaticIPs: options.requestedStaticIPs }),
  };
}

/** The controller's view of one Service: the slices it manages, reconciled; other slices pass through. */
export function reconcileSnapshotService(
  service: Service,
  slices: readonly EndpointSlice[],
  nodeInfo: Pick<NodeInfo, 'ratios'>,
): ServiceHintsResult {
  const managed = slices.filter(isControllerManaged);
  const result = reconcileServiceHints(service, managed, nodeInfo);
  if (managed.length === slices.length) return result;
  const computed = new Map(managed.map((slice, index) => [slice, result.endpointSlices[index]]));
  return { ...result, endpointSlices: slices.map((slice) => computed.get(slice) ?? slice) };
}

/** What every Service's analysis shares within one snapshot. */
interface AnalysisContext {
  nodeInfo: NodeInfo;
  originShares: ReadonlyMap<string, number>;
  /** Overload per zone of the best proportional allocation of n endpoints; depends only on n. */
  proportionalOverload: (readyEndpoints: number) => Record<string, number>;
}

function memoizedByCount<T>(compute: (count: number) => T): (count: number) => T {
  const cache = new Map<number, T>();
  return (count) => {
    let value = cache.get(count);
    if (value === undefined) cache.set(count, (value = compute(count)));
    return value;
  };
}

function analyzeService(service: Service, slices: readonly EndpointSlice[], context: AnalysisContext): ServiceAnalysis {
  const { nodeInfo, originShares } = context;
  const result = reconcileSnapshotService(service, slices, nodeInfo);
  const addressType = primaryAddressType(slices);
  const ofType = result.endpointSlices.filter((slice) => slice.addressType === addressType);
  const readyEndpoints = countReadyEndpoints(ofType);
  const traffic = modelSliceTraffic(ofType, addressType, originShares);
  const kubeProxy = kubeProxyUse(service);
  return {
    namespace: service.metadata.namespace ?? 'default',
    name: service.metadata.name,
    routing: result.routing,
    hints: result.hints,
    events: result.events,
    endpointSlices: result.endpointSlices,
    zones: zoneAnalysis(result, addressType, readyEndpoints, context, traffic.expectedOverloadByZone),
    // Decision: with internalTrafficPolicy Local in-cluster clients only reach endpoints on their own node,
    // so no in-cluster request crosses a zone, hints or not (requests to nodes without one are dropped).
    crossZone: kubeProxy.usesHints ? traffic.crossZone : { withoutHints: 0, withHints: 0 },
    readyEndpoints,
    rewrittenSlices: result.rewrittenSlices,
    drift: compareHints(slices, result.endpointSlices),
    kubeProxy,
  };
}

/**
 * The seed documents' constraint: "Topology Aware Hints are not used when internalTrafficPolicy is set
 * to Local". kube-proxy builds no cluster-wide endpoint list for in-cluster traffic of such a Service,
 * so the controller may write hints that nobody reads.
 */
function kubeProxyUse(service: Service): KubeProxyUse {
  if (service.spec?.internalTrafficPolicy !== 'Local') return { usesHints: true, reason: null };
  return {
    usesHints: false,
    reason:
      'internalTrafficPolicy is Local: kube-proxy sends in-cluster traffic only to endpoints on the client node and ignores topology hints',
  };
}

function zoneAnalysis(
  result: ServiceHintsResult,
  addressType: AddressType,
  readyEndpoints: number,
  context: AnalysisContext,
  overloadWithHints: Record<string, number>,
): Record<string, ZoneAnalysis> {
  const ratios = context.nodeInfo.ratios;
  const allocations = result.allocations[addressType];
  const hintCounts = result.hintCounts[addressType] ?? (result.hints.state === 'populated' ? hintedByZone(result, addressType) : null);
  const overload =
    result.hints.state === 'populated' || readyEndpoints === 0
      ? overloadWithHints
      : context.proportionalOverload(readyEndpoints);
  const zones: Record<string, ZoneAnalysis> = {};
  for (const zone of zoneNamesOf(ratios, context.originShares, hintCounts)) {
    const targets = controllerTargets(allocations?.[zone], ratios?.get(zone), readyEndpoints);
    zones[zone] = {
      minimum: targets.minimum,
      maximum: targets.maximum,
      desired: targets.desired,
      allocated: hintCounts === null ? null : (hintCounts[zone] ?? 0),
      expectedOverload: overload[zone] ?? 0,
    };
  }
  return zones;
}

/** The CPU heuristic's per-zone targets; computed from the ratios when the controller stopped before them. */
function controllerTargets(
  allocation: ZoneAllocation | undefined,
  ratio: number | undefined,
  readyEndpoints: number,
): Pick<ZoneAnalysis, 'minimum' | 'maximum' | 'desired'> {
  if (allocation) return { minimum: allocation.minimum, maximum: allocation.maximum, desired: allocation.desired };
  if (ratio === undefined || readyEndpoints === 0) return { minimum: null, maximum: null, desired: null };
  const desiredRaw = ratio * readyEndpoints;
  const minimum = Math.ceil(desiredRaw * MINIMUM_SHARE_FACTOR);
  return { minimum, maximum: null, desired: Math.max(desiredRaw, minimum) };
}

/** Hint counts for the trafficDistribution path, which keeps no allocation: every ready endpoint's zone hints. */
function hintedByZone(result: ServiceHintsResult, addressType: AddressType): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const slice of result.endpointSlices) {
    if (slice.addressType !== addressType) continue;
    for (const endpoint of slice.endpoints) {
      if (endpoint.conditions?.ready !== true) continue;
      for (const zone of endpoint.hints?.forZones ?? []) counts[zone.name] = (counts[zone.name] ?? 0) + 1;
    }
  }
  return counts;
}

function zoneNamesOf(
  ratios: ReadonlyMap<string, number> | null,
  originShares: ReadonlyMap<string, number>,
  hintCounts: Record<string, number> | null,
): string[] {
  const names = [...originShares.keys()];
  const extra = [...(ratios?.keys() ?? []), ...Object.keys(hintCounts ?? {})].filter((zone) => !originShares.has(zone));
  if (extra.length === 0) return names;
  return [...new Set([...names, ...extra])].sort(byteOrder);
}

interface TrafficOrigin {
  source: AnalysisReport['trafficOrigin']['source'];
  shareMap: Map<string, number>;
}

/**
 * Where requests originate. Decision: without per-zone weights and without usable CPU ratios (node
 * info insufficient), zones with ready nodes count equally; with no zones at all, nothing originates.
 */
function trafficOrigin(nodeInfo: NodeInfo, weights: Record<string, number> | null | undefined): TrafficOrigin {
  if (weights) return { source: 'zone-traffic-weights', shareMap: normalized(new Map(Object.entries(weights))) };
  if (nodeInfo.ratios) return { source: 'allocatable-cpu', shareMap: new Map([...nodeInfo.ratios].sort(([a], [b]) => byteOrder(a, b))) };
  return { source: 'even', shareMap: normalized(new Map(nodeInfo.zones.map((zone) => [zone.name, 1]))) };
}

function normalized(weights: Map<string, number>): Map<string, number> {
  const total = [...weights.values()].reduce((sum, weight) => sum + weight, 0);
  const entries = [...weights].sort(([a], [b]) => byteOrder(a, b));
  return new Map(entries.map(([zone, weight]) => [zone, total > 0 ? weight / total : 0]));
}

function summarize(services: readonly ServiceAnalysis[]): AnalysisSummary {
  const byState: Record<HintState, number> = { populated: 0, removed: 0, none: 0 };
  let weight = 0;
  let withoutHints = 0;
  let withHints = 0;
  let servicesWithDrift = 0;
  for (const service of services) {
    byState[service.hints.state]++;
    if (service.drift.endpoints > 0) servicesWithDrift++;
    weight += service.readyEndpoints;
    withoutHints += service.readyEndpoints * service.crossZone.withoutHints;
    withHints += service.readyEndpoints * service.crossZone.withHints;
  }
  return {
    services: byState,
    servicesWithDrift,
    crossZone: { withoutHints: weight ? withoutHints / weight : 0, withHints: weight ? withHints / weight : 0 },
  };
}

export function groupSlicesByService(slices: readonly EndpointSlice[]): Map<string, EndpointSlice[]> {
  const byService = new Map<string, EndpointSlice[]>();
  for (const slice of slices) {
    const serviceName = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!serviceName) continue;
    const key = `${slice.metadata.namespace ?? 'default'}/${serviceName}`;
    const group = byService.get(key);
    if (group) group.push(slice);
    else byService.set(key, [slice]);
  }
  return byService;
}

/**
 * Decision: slices whose managed-by label names another controller are not the EndpointSlice
 * controller's to hint; a slice without the label (hand-written input) is taken as the controller's.
 */
export function isControllerManaged(slice: EndpointSlice): boolean {
  const managedBy = slice.metadata.labels?.[MANAGED_BY_LABEL];
  return managedBy === undefined || managedBy === CONTROLLER_MANAGED_BY;
}

export function serviceKey(service: Service): string {
  return `${service.metadata.namespace ?? 'default'}/${service.metadata.name}`;
}

/** Decision: a dual-stack Service is described by its IPv4 slices (the contract has one zone table per Service). */
function primaryAddressType(slices: readonly EndpointSlice[]): AddressType {
  return slices.some((slice) => slice.addressType === 'IPv4') || !slices.some((slice) => slice.addressType === 'IPv6')
    ? 'IPv4'
    : 'IPv6';
}

function sortedServices(services: readonly Service[]): { key: string; service: Service }[] {
  return services.map((service) => ({ key: serviceKey(service), service })).sort((a, b) => byteOrder(a.key, b.key));
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
