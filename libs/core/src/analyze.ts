import { MINIMUM_SHARE_FACTOR, type ZoneAllocation } from './allocations.js';
import { analyzeClusterIPs, type ServiceCidrReport } from './cluster-ips.js';
import { serviceCidrsOf } from './service-cidrs.js';
import { compareHints, type HintDrift } from './drift.js';
import {
  serviceHintsResult,
  serviceRoutingOf,
  syncServiceHints,
  type HintState,
  type ServiceHintsResult,
  type ServiceHintsSync,
  type ServiceRouting,
} from './endpointslice-controller.js';
import type { ControllerEvent } from './events.js';
import {
  dataPathOf,
  dataPlaneSetting,
  type DataPath,
  type DataPathVerdict,
  type DataPlaneSetting,
} from './data-planes.js';
import type { DataPlaneName } from './cluster-settings.js';
import { countReadyEndpoints, hasAnyHints } from './hints.js';
import type { AddressType, EndpointSlice, Service } from './k8s-objects.js';
import { SERVICE_NAME_LABEL } from './k8s-objects.js';
import { emptyObjectList, mapList } from './lists.js';
import { modelledVersion, type SettingSource, type VersionFeatures, versionFeatures } from './kubernetes-versions.js';
import { computeNodeInfo, type NodeInfo, type ZoneCapacity } from './node-info.js';
import {
  hintsEnabledByAnnotation,
  isTrafficDistribution,
  type Routing,
  usableTrafficDistribution,
} from './routing-mode.js';
import {
  isControllerSlice,
  sliceManagementOf,
  snapshotRecordsManagedBy,
  snapshotRecordsSelectors,
  type SliceManagement,
} from './slice-management.js';
import type { ServiceReuse } from './service-reuse.js';
import type { Snapshot } from './snapshot-model.js';
import { overloadOfAllocation, proportionalAllocation } from './failed-allocation-overload.js';
import { originZonesOf, sliceTrafficByOrigin, type CrossZoneFractions } from './traffic-model.js';

/**
 * The whole analysis of one cluster snapshot: what the EndpointSlice controller would do to every
 * Service's slices, how kube-proxy would then route, what crosses zones, and the Service IP ranges.
 * The output is the `zonewise analyze` JSON of the CLI contract.
 */

export const ANALYSIS_SCHEMA_VERSION = 1;

export interface AnalyzeOptions {
  /** Relative request volume per zone; overrides the snapshot's `zonewise.io/zone-traffic-weights`. */
  zoneTrafficWeights?: Record<string, number>;
  /** Addresses to check as static ClusterIP requests (e.g. a planned DNS Service address). */
  requestedStaticIPs?: string[];
  /** `MAJOR.MINOR` (e.g. `1.31`) given on the command line; wins over the snapshot's annotation. */
  kubernetesVersion?: string;
  /** The data plane given on the command line; wins over the snapshot's annotation. */
  dataPlane?: DataPlaneName;
  /** Services' analyses kept from an earlier call, reused for equal inputs (see {@link ServiceAnalysisReuse}). */
  reuse?: ServiceAnalysisReuse;
}

/**
 * Services' analyses computed before (see {@link ServiceReuse}): the cluster's share is the nodes, the
 * CPU ratios, the origin shares and the cluster model; a Service's own is its objects, nothing else.
 */
export type ServiceAnalysisReuse = ServiceReuse<ServiceAnalysis>;

/** The cluster the analysis models: its Kubernetes version and its data plane, and where each came from. */
export interface ClusterProfile {
  kubernetesVersion: string;
  kubernetesVersionSource: SettingSource;
  /** Why the version modelled is not the one given (none given, or outside the modelled range); else null. */
  kubernetesVersionNote: string | null;
  dataPlane: DataPlaneSetting;
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
  /** Whether the Service proxy (kube-proxy or the data plane in its place) applies the Service's zone hints to in-cluster traffic at all. */
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
  /** Who writes the Service's slices: `endpointslice-controller`, `kube-apiserver`, `none`, or another managed-by value. */
  managedBy: string;
  /** Whether the hints change where requests go on this cluster's data path. */
  dataPath: DataPath;
}

export interface AnalysisReport extends ClusterProfile {
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
  /** Services whose slices carry hints that the data path does not honour ("hints written but ignored"). */
  servicesWithIgnoredHints: number;
  /** Cross-zone fractions over all Services, weighted by ready endpoints (a stand-in for traffic volume). */
  crossZone: CrossZoneFractions;
}

export function analyzeSnapshot(snapshot: Snapshot, options: AnalyzeOptions = {}): AnalysisReport {
  const nodeInfo = computeNodeInfo(snapshot.nodes);
  const origin = trafficOrigin(nodeInfo, options.zoneTrafficWeights ?? snapshot.zoneTrafficWeights);
  const profile = clusterProfileOf(snapshot, options);
  const cluster = clusterModelOf(
    profile,
    snapshotRecordsSelectors(snapshot.services),
    snapshotRecordsManagedBy(snapshot.endpointSlices),
  );
  const services = analyzeServices(snapshot, nodeInfo.ratios, origin.shareMap, cluster, options.reuse);
  const cidrs = serviceCidrsOf(snapshot.serviceCIDRs, snapshot.annotatedServiceCIDRs);
  return {
    schemaVersion: ANALYSIS_SCHEMA_VERSION,
    ...profile,
    nodeInfo: {
      sufficient: nodeInfo.sufficient,
      reason: nodeInfo.reason,
      detail: nodeInfo.detail,
      zones: nodeInfo.zones,
    },
    trafficOrigin: { source: origin.source, shares: Object.fromEntries(origin.shareMap) },
    summary: summarize(services),
    services,
    serviceCIDRs: analyzeClusterIPs(cidrs, snapshot.services, { requestedStaticIPs: options.requestedStaticIPs }),
  };
}

/** The Kubernetes version and data plane of a snapshot: the options win over the snapshot's annotations. */
export function clusterProfileOf(
  snapshot: Pick<Snapshot, 'kubernetesVersion' | 'dataPlane'>,
  options: Pick<AnalyzeOptions, 'kubernetesVersion' | 'dataPlane'> = {},
): ClusterProfile {
  const version = modelledVersion(options.kubernetesVersion, snapshot.kubernetesVersion);
  return {
    kubernetesVersion: version.version,
    kubernetesVersionSource: version.source,
    kubernetesVersionNote: version.note,
    dataPlane: dataPlaneSetting(options.dataPlane, snapshot.dataPlane),
  };
}

/** What every Service's analysis reads from the cluster profile. */
export interface ClusterModel {
  features: VersionFeatures;
  dataPlane: DataPlaneName;
  /** Whether the snapshot records Service selectors at all (see slice-management.ts). */
  recordsSelectors: boolean;
  /** Whether the snapshot records the slices' managed-by labels at all (see slice-management.ts). */
  recordsManagedBy: boolean;
}

export function clusterModelOf(
  profile: ClusterProfile,
  recordsSelectors: boolean,
  recordsManagedBy = false,
): ClusterModel {
  const minor = Number(profile.kubernetesVersion.split('.')[1]);
  return { features: versionFeatures(minor), dataPlane: profile.dataPlane.name, recordsSelectors, recordsManagedBy };
}

/**
 * The controller's view of one Service: the slices it manages, reconciled; other slices pass through. A
 * Service the controller does not manage at all (see {@link sliceManagementOf}) keeps its slices as they are.
 */
export function reconcileSnapshotService(
  service: Service,
  slices: readonly EndpointSlice[],
  nodeInfo: Pick<NodeInfo, 'ratios'>,
  cluster?: ClusterModel,
): ServiceHintsResult {
  const routing = serviceRoutingOf(service, cluster?.features);
  if (cluster !== undefined) {
    const management = sliceManagementOf(service, slices, cluster.recordsSelectors, cluster.recordsManagedBy);
    if (management.reason !== null)
      return serviceHintsResult(unmanagedSync(routing.routing, slices, management, false));
  }
  const recordsManagedBy = cluster?.recordsManagedBy ?? false;
  return serviceHintsResult(syncSnapshotService(routing, slices, nodeInfo.ratios, false, recordsManagedBy));
}

/**
 * A Service whose slices the EndpointSlice controller does not manage: no sync, no events, its slices
 * (and whatever hints they carry) as they are. `reuse` false gives shallow copies, as a sync would.
 */
function unmanagedSync(
  routing: Routing,
  slices: readonly EndpointSlice[],
  management: SliceManagement,
  reuse: boolean,
): ServiceHintsSync {
  return {
    routing,
    hints: { state: 'none', reason: management.reason },
    events: [],
    endpointSlices: reuse ? (slices as EndpointSlice[]) : mapList(slices, (slice) => ({ ...slice })),
    rewrittenSlices: [],
    written: [],
  };
}

/** The controller's sync of the slices it lists; the others pass through with the hints written in them. */
function syncSnapshotService(
  service: ServiceRouting,
  slices: readonly EndpointSlice[],
  ratios: ReadonlyMap<string, number> | null,
  reuseUnwrittenSlices: boolean,
  recordsManagedBy: boolean,
): ServiceHintsSync {
  const listed = (slice: EndpointSlice) => isControllerSlice(slice, recordsManagedBy);
  const managed = slices.every(listed) ? slices : slices.filter(listed);
  const sync = syncServiceHints(service, managed, ratios, reuseUnwrittenSlices);
  if (managed.length === slices.length) return sync;
  const computed = new Map(managed.map((slice, index) => [slice, sync.endpointSlices[index]]));
  return { ...sync, endpointSlices: mapList(slices, (slice) => computed.get(slice) ?? slice) };
}

/**
 * Every Service's report, in `namespace/name` byte order, reused when `reuse` kept one for equal inputs.
 * Besides its Service and slices, a report reads only what `begin` is given (the proportional overloads
 * memo is a function of the origin shares), so a Service's own inputs are its objects alone.
 */
function analyzeServices(
  snapshot: Snapshot,
  ratios: ReadonlyMap<string, number> | null,
  originShares: ReadonlyMap<string, number>,
  cluster: ClusterModel,
  reuse: ServiceAnalysisReuse | undefined,
): ServiceAnalysis[] {
  const slicesByService = groupSlicesByService(snapshot.endpointSlices);
  const proportionalOverloads = new Map<number, number[]>();
  const scope = reuse?.begin(
    snapshot.nodes,
    JSON.stringify([ratios === null ? null : [...ratios], [...originShares], cluster]),
  );
  const services: ServiceAnalysis[] = [];
  for (const entry of sortedServices(snapshot.services, slicesByService, cluster)) {
    // A list of its own per Service without slices: the report hands it out.
    const slices = slicesByService.get(entry.key) ?? emptyObjectList<EndpointSlice>();
    const objects = { service: entry.service, slices };
    const kept = scope?.recall(entry.key, objects, '');
    if (kept !== undefined) {
      services.push(kept);
      continue;
    }
    const analysis = analyzeService(entry, slices, ratios, originShares, proportionalOverloads);
    scope?.remember(entry.key, objects, '', analysis);
    services.push(analysis);
  }
  return services;
}

/** A Service as the analysis reads it: its fields are read once, in {@link sortedServices}. */
interface ServiceEntry {
  key: string;
  service: Service;
  namespace: string;
  name: string;
  routing: ServiceRouting;
  /** Why the Service's `spec.trafficDistribution` is ignored on this version; null when it is not. */
  ignoredTrafficDistribution: string | null;
  management: SliceManagement;
  dataPath: DataPathVerdict;
  /** The cluster model's `recordsManagedBy`: whether an unlabelled slice is someone else's. */
  recordsManagedBy: boolean;
}

/**
 * One Service's report. What every Service shares (the CPU ratios, the origin shares, the proportional
 * overloads computed so far) comes as separate arguments, not as one context object: the optimized code
 * depends on the hidden class of the objects it reads, and an object made once per analysis has a new
 * one every time, so that code would be thrown away and recompiled in every analysis.
 */
function analyzeService(
  service: ServiceEntry,
  slices: readonly EndpointSlice[],
  ratios: ReadonlyMap<string, number> | null,
  originShares: ReadonlyMap<string, number>,
  proportionalOverloads: Map<number, number[]>,
): ServiceAnalysis {
  // The report only reads the slices the controller leaves alone, so they need no copies.
  const managed = service.management.reason === null;
  const sync = managed
    ? syncSnapshotService(service.routing, slices, ratios, true, service.recordsManagedBy)
    : unmanagedSync(service.routing.routing, slices, service.management, true);
  const addressType = primaryAddressType(slices);
  const ofType = slicesOfType(sync.endpointSlices, addressType);
  const readyEndpoints = countReadyEndpoints(ofType);
  const traffic = sliceTrafficByOrigin(ofType, addressType, originShares);
  const carriesHints = managed ? sync.hints.state === 'populated' : ofType.some(hasAnyHints);
  const honoured = service.dataPath.honoursHints;
  const overloads =
    (carriesHints && honoured) || readyEndpoints === 0
      ? traffic.overloads
      : proportionalOverload(readyEndpoints, originShares, proportionalOverloads);
  const written = sync.written.find((hints) => hints.addressType === addressType) ?? null;
  const hinted = written?.hinted ?? (carriesHints ? hintedByZone(ofType) : null);
  const originZones = originZonesOf(originShares);
  return {
    namespace: service.namespace,
    name: service.name,
    routing: sync.routing,
    hints:
      sync.hints.state === 'none' && sync.hints.reason === null && service.ignoredTrafficDistribution !== null
        ? { state: 'none', reason: service.ignoredTrafficDistribution }
        : sync.hints,
    events: sync.events,
    endpointSlices: sync.endpointSlices,
    zones: zoneTable({
      ratios,
      originZones,
      allocations: written?.allocations ?? null,
      hinted,
      overloads,
      readyEndpoints,
    }),
    crossZone: crossZoneOnDataPath(traffic.crossZone, service.dataPath),
    readyEndpoints,
    rewrittenSlices: sync.rewrittenSlices,
    drift: compareHints(slices, sync.endpointSlices),
    kubeProxy: { usesHints: honoured, reason: service.dataPath.reason },
    managedBy: service.management.managedBy,
    dataPath: { honoursHints: honoured, reason: service.dataPath.reason },
  };
}

/**
 * What really crosses zones. Decision: with internalTrafficPolicy Local in-cluster clients only reach
 * endpoints on their own node, so no in-cluster request crosses a zone, hints or not (requests to nodes
 * without one are dropped). On any other data path that ignores hints, requests spread as without them.
 */
export function crossZoneOnDataPath(modelled: CrossZoneFractions, dataPath: DataPathVerdict): CrossZoneFractions {
  if (dataPath.honoursHints) return modelled;
  if (dataPath.cause === 'traffic-policy') return { withoutHints: 0, withHints: 0 };
  return { withoutHints: modelled.withoutHints, withHints: modelled.withoutHints };
}

/** Overload per origin zone of the best proportional allocation of n endpoints; depends only on n. */
function proportionalOverload(
  readyEndpoints: number,
  originShares: ReadonlyMap<string, number>,
  computed: Map<number, number[]>,
): number[] {
  let overloads = computed.get(readyEndpoints);
  if (overloads === undefined) {
    const byZone = overloadOfAllocation(proportionalAllocation(readyEndpoints, originShares), originShares);
    overloads = mapList(originZonesOf(originShares), (zone) => byZone[zone] ?? 0);
    computed.set(readyEndpoints, overloads);
  }
  return overloads;
}

/** What one Service's zone table is made of; per-zone numbers in Maps, overloads in origin-zone order. */
interface ZoneTableInput {
  ratios: ReadonlyMap<string, number> | null;
  originZones: readonly string[];
  /** The CPU heuristic's targets, when it wrote hints. */
  allocations: ReadonlyMap<string, ZoneAllocation> | null;
  /** Endpoints hinted per zone; null when the Service has no hints. */
  hinted: ReadonlyMap<string, number> | null;
  overloads: readonly number[];
  readyEndpoints: number;
}

/** The record is made by `Object.fromEntries`, so no optimized code depends on its zone-named hidden class. */
function zoneTable(input: ZoneTableInput): Record<string, ZoneAnalysis> {
  const entries: [string, ZoneAnalysis][] = [];
  for (const zone of zoneNamesOf(input)) entries.push([zone, zoneAnalysis(zone, input)]);
  return Object.fromEntries(entries);
}

/** One zone's row; the CPU heuristic's targets are computed from the ratios when the controller stopped before them. */
function zoneAnalysis(zone: string, input: ZoneTableInput): ZoneAnalysis {
  const { hinted, readyEndpoints } = input;
  const position = input.originZones.indexOf(zone);
  const allocated = hinted === null ? null : (hinted.get(zone) ?? 0);
  const expectedOverload = position < 0 ? 0 : input.overloads[position];
  const allocation = input.allocations?.get(zone);
  if (allocation) {
    const { minimum, maximum, desired } = allocation;
    return { minimum, maximum, desired, allocated, expectedOverload };
  }
  const ratio = input.ratios?.get(zone);
  if (ratio === undefined || readyEndpoints === 0) {
    return { minimum: null, maximum: null, desired: null, allocated, expectedOverload };
  }
  const desiredRaw = ratio * readyEndpoints;
  const minimum = Math.ceil(desiredRaw * MINIMUM_SHARE_FACTOR);
  return { minimum, maximum: null, desired: Math.max(desiredRaw, minimum), allocated, expectedOverload };
}

/** Hint counts for the trafficDistribution path, which keeps no allocation: every ready endpoint's zone hints. */
function hintedByZone(slices: readonly EndpointSlice[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      if (endpoint.conditions?.ready !== true) continue;
      for (const zone of endpoint.hints?.forZones ?? []) counts.set(zone.name, (counts.get(zone.name) ?? 0) + 1);
    }
  }
  return counts;
}

/** The origin zones, then (sorted together with them) any zone only the ratios or the hints name. */
function zoneNamesOf({ ratios, originZones, hinted }: ZoneTableInput): readonly string[] {
  if (!namesOtherZone(ratios, originZones) && !namesOtherZone(hinted, originZones)) return originZones;
  const isExtra = (zone: string) => !originZones.includes(zone);
  const extra = [...(ratios?.keys() ?? []), ...(hinted?.keys() ?? [])].filter(isExtra);
  return [...new Set([...originZones, ...extra])].sort(byteOrder);
}

function namesOtherZone(byZone: ReadonlyMap<string, number> | null, zones: readonly string[]): boolean {
  if (byZone === null) return false;
  for (const zone of byZone.keys()) if (!zones.includes(zone)) return true;
  return false;
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
  if (nodeInfo.ratios)
    return { source: 'allocatable-cpu', shareMap: new Map([...nodeInfo.ratios].sort(([a], [b]) => byteOrder(a, b))) };
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
  let servicesWithIgnoredHints = 0;
  for (const service of services) {
    byState[service.hints.state]++;
    if (service.drift.endpoints > 0) servicesWithDrift++;
    if (!service.dataPath.honoursHints && service.endpointSlices.some(hasAnyHints)) servicesWithIgnoredHints++;
    weight += service.readyEndpoints;
    withoutHints += service.readyEndpoints * service.crossZone.withoutHints;
    withHints += service.readyEndpoints * service.crossZone.withHints;
  }
  return {
    services: byState,
    servicesWithDrift,
    servicesWithIgnoredHints,
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
 * Whether the EndpointSlice controller lists the slice (see {@link isControllerSlice}); `recordsManagedBy`
 * false (the default) takes an unlabelled slice as the controller's, as in a hand-written snapshot.
 */
export function isControllerManaged(slice: EndpointSlice, recordsManagedBy = false): boolean {
  return isControllerSlice(slice, recordsManagedBy);
}

export function serviceKey(service: Service): string {
  return `${service.metadata.namespace ?? 'default'}/${service.metadata.name}`;
}

function slicesOfType(slices: readonly EndpointSlice[], addressType: AddressType): readonly EndpointSlice[] {
  const ofType = (slice: EndpointSlice) => slice.addressType === addressType;
  return slices.every(ofType) ? slices : slices.filter(ofType);
}

/** Decision: a dual-stack Service is described by its IPv4 slices (the contract has one zone table per Service). */
function primaryAddressType(slices: readonly EndpointSlice[]): AddressType {
  return slices.some((slice) => slice.addressType === 'IPv4') || !slices.some((slice) => slice.addressType === 'IPv6')
    ? 'IPv4'
    : 'IPv6';
}

/**
 * The Services in `namespace/name` byte order, each read once into a {@link ServiceEntry}. Module-level
 * callbacks: a closure made here would start without type feedback in every analysis.
 */
function sortedServices(
  services: readonly Service[],
  slicesByService: ReadonlyMap<string, EndpointSlice[]>,
  cluster: ClusterModel,
): ServiceEntry[] {
  const entries: ServiceEntry[] = [];
  for (const service of services) entries.push(serviceEntry(service, slicesByService, cluster));
  return entries.sort(byKey);
}

function serviceEntry(
  service: Service,
  slicesByService: ReadonlyMap<string, EndpointSlice[]>,
  cluster: ClusterModel,
): ServiceEntry {
  const key = serviceKey(service);
  return {
    key,
    service,
    namespace: service.metadata.namespace ?? 'default',
    name: service.metadata.name,
    routing: serviceRoutingOf(service, cluster.features),
    ignoredTrafficDistribution: ignoredTrafficDistributionOf(service, cluster.features),
    management: sliceManagementOf(
      service,
      slicesByService.get(key) ?? [],
      cluster.recordsSelectors,
      cluster.recordsManagedBy,
    ),
    dataPath: dataPathOf(service, cluster.dataPlane, cluster.features),
    recordsManagedBy: cluster.recordsManagedBy,
  };
}

/**
 * A `spec.trafficDistribution` value upstream defines that this version's controller does not act on (its
 * feature gate is off by default), for a Service no annotation routes: the controller ignores it.
 */
function ignoredTrafficDistributionOf(service: Service, features: VersionFeatures): string | null {
  const value = service.spec?.trafficDistribution;
  if (value === undefined || !isTrafficDistribution(value) || hintsEnabledByAnnotation(service)) return null;
  if (usableTrafficDistribution(service, features) !== null) return null;
  const from = value === 'PreferClose' ? '1.31 (ServiceTrafficDistribution)' : '1.34 (PreferSameTrafficDistribution)';
  return `spec.trafficDistribution ${value} is ignored by this Kubernetes version: its feature gate is on by default from ${from}`;
}

function byKey(a: ServiceEntry, b: ServiceEntry): number {
  return byteOrder(a.key, b.key);
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
