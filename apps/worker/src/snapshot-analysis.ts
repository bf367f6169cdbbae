import {
  type AnalysisReport,
  analyzeSnapshot,
  applyClusterOverrides,
  autoRoutingPreviews,
  type AutoRoutingPreview,
  type ClusterOverrides,
  decodePayloadAsync,
  type EndpointSlice,
  type FixReuse,
  type PreviewReuse,
  isEndpointReady,
  MONTHLY_TRAFFIC_ANNOTATION,
  monthlyTrafficGb,
  NO_OVERRIDES,
  OVERLOAD_THRESHOLD,
  parseSnapshot,
  PayloadError,
  recommendFixes,
  serviceKey as coreServiceKey,
  type ServiceAnalysis,
  type ServiceAnalysisReuse,
  type Snapshot,
  SnapshotError,
} from '@zw/core';
import { createHash } from 'node:crypto';
import { analysisSettings } from './cluster-overrides.js';
import type {
  RecommendationsDocument,
  ServiceFixes,
  ServiceSavingsState,
  SnapshotAggregates,
  StoredServiceFixes,
} from '@zw/db';
import { type ServiceState, withStateHash } from './history/service-state.js';

/** A snapshot that no retry can ever make processable: bad payload, too old, payload gone. */
export class UnprocessableSnapshotError extends Error {
  override name = 'UnprocessableSnapshotError';
}

/** Results of the cluster's earlier snapshots an analysis may reuse (see analysis-fix-reuse.ts). */
export interface AnalysisReuse {
  analyses?: ServiceAnalysisReuse;
  fixes?: FixReuse;
  previews?: PreviewReuse;
}

export interface AnalyzedSnapshot {
  services: ServiceState[];
  aggregates: SnapshotAggregates;
}

/** Decompresses and parses a stored payload (within the snapshot limits of the core); failures are permanent. */
export async function readPayload(gzipped: Uint8Array): Promise<unknown> {
  try {
    return (await decodePayloadAsync(gzipped, { subject: 'stored payload' })).document;
  } catch (error) {
    if (error instanceof PayloadError) throw new UnprocessableSnapshotError(error.message);
    throw error;
  }
}

/**
 * Runs the core on a snapshot document, with the cluster's overrides applied to its List annotations
 * first, and keeps what history stores. `reuse` holds Services' analyses, fixes and previews of the
 * cluster's earlier snapshots.
 */
export function analyzeDocument(
  document: unknown,
  overrides: ClusterOverrides = NO_OVERRIDES,
  reuse: AnalysisReuse = {},
): AnalyzedSnapshot {
  let snapshot: Snapshot;
  let report: AnalysisReport;
  const applied = applyClusterOverrides(document, overrides);
  try {
    snapshot = parseSnapshot(document);
    report = analyzeSnapshot(snapshot, { reuse: reuse.analyses });
  } catch (error) {
    if (error instanceof SnapshotError) throw new UnprocessableSnapshotError(`invalid snapshot: ${error.message}`);
    throw error;
  }
  const savings = savingsInputs(snapshot, report, reuse.previews);
  const { fixes, nodeBlockers } = recommendationsOf(snapshot, report, savings, reuse.fixes);
  return {
    services: serviceStates(report, savings, fixes),
    aggregates: {
      ...aggregatesOf(report),
      settings: analysisSettings(report, listAnnotationsOf(document), applied),
      recommendations: JSON.stringify({ nodeBlockers }),
    },
  };
}

/**
 * The recommended fixes of the Services that have any, by Service key, computed here once so that reads
 * are one lookup, and the cluster's blocking nodes. Each Service's fixes are stored once per distinct
 * content (see `ServiceFixes`); each fix keeps the drop of its cross-zone fraction, and the API applies
 * the Service's effective traffic and the cluster's price when it answers.
 */
function recommendationsOf(
  snapshot: Snapshot,
  report: AnalysisReport,
  savings: Map<string, ServiceSavingsState>,
  reuse: FixReuse | undefined,
): { fixes: Map<string, ServiceFixes>; nodeBlockers: RecommendationsDocument['nodeBlockers'] } {
  const recommended = recommendFixes(snapshot, report, { reuse });
  const fixes = new Map<string, ServiceFixes>();
  recommended.services.forEach((entry, index) => {
    if (entry.recommendations.length === 0) return;
    const analysis = report.services[index];
    const key = `${entry.namespace}/${entry.name}`;
    const traffic = savings.get(key);
    const stored: StoredServiceFixes = {
      namespace: entry.namespace,
      name: entry.name,
      routing: analysis.routing,
      hintState: analysis.hints.state,
      hintReason: analysis.hints.reason,
      trafficGb: traffic?.trafficGb ?? 0,
      trafficSource: traffic?.trafficSource ?? 'default-per-endpoint',
      recommendations: entry.recommendations as unknown as Record<string, unknown>[],
    };
    fixes.set(key, storedFixes(stored));
  });
  return { fixes, nodeBlockers: recommended.nodeBlockers as unknown as RecommendationsDocument['nodeBlockers'] };
}

/**
 * The stored form of fixes the analysis reused from the cluster's previous snapshot (the very array it
 * kept), by the Service's other stored fields: most Services' fixes repeat from one snapshot to the next,
 * and their JSON text and its SHA-256 cost about a tenth of a mid-size snapshot's analysis.
 */
const storedForms = new WeakMap<object, { head: string; fixes: ServiceFixes }>();

function storedFixes(stored: StoredServiceFixes): ServiceFixes {
  const { recommendations, ...rest } = stored;
  const head = JSON.stringify(rest);
  const known = storedForms.get(recommendations);
  if (known?.head === head) return known.fixes;
  const json = JSON.stringify(stored);
  const fixes = {
    hash: createHash('sha256').update(json).digest('hex').slice(0, 32),
    json,
    fraction: (recommendations[0].savings as { crossZoneFraction: number }).crossZoneFraction,
  };
  storedForms.set(recommendations, { head, fixes });
  return fixes;
}

function listAnnotationsOf(document: unknown): Record<string, string> | undefined {
  return (document as { metadata?: { annotations?: Record<string, string> } | null }).metadata?.annotations;
}

/**
 * Decision: a Service's state is what the issue lists (routing, hint state and reason, per-zone
 * allocation, cross-zone fractions), plus what the savings model needs per Service (ready endpoints,
 * traffic annotation, and for Services without routing the preview of enabling it). Events, slices and
 * drift are left out: they follow from these or churn with every pod restart (which would split intervals
 * for nothing), and the raw payload keeps them for PAYLOAD_RETENTION_DAYS. Ready endpoints do split
 * intervals, but they already move the cross-zone fractions and the overloads, so that costs little more.
 */
function serviceStates(
  report: AnalysisReport,
  savings: Map<string, ServiceSavingsState>,
  fixes: Map<string, ServiceFixes>,
): ServiceState[] {
  return report.services.map((service) => {
    const key = `${service.namespace}/${service.name}`;
    return serviceState(service, savings.get(key), fixes.get(key) ?? null);
  });
}

/**
 * The state of each Service analysis the core reused (the very object kept from an earlier snapshot of
 * the cluster), by its savings inputs and fixes: hashing every state was a tenth of a changed snapshot's
 * analysis, and most repeat. Analyses are never changed, so the state of one with equal inputs is equal.
 */
const keptStates = new WeakMap<ServiceAnalysis, ServiceState>();

function serviceState(
  service: ServiceAnalysis,
  savings: ServiceSavingsState | undefined,
  fixes: ServiceFixes | null,
): ServiceState {
  const known = keptStates.get(service);
  if (known !== undefined && known.fixes === fixes && sameFields(known.savings, savings)) return known;
  const state = stateOf(service, savings, fixes);
  keptStates.set(service, state);
  return state;
}

function sameFields(a: object | undefined, b: object | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key])
  );
}

function stateOf(
  service: ServiceAnalysis,
  savings: ServiceSavingsState | undefined,
  fixes: ServiceFixes | null,
): ServiceState {
  return withStateHash({
    namespace: service.namespace,
    name: service.name,
    routing: service.routing,
    hintState: service.hints.state,
    hintReason: service.hints.reason,
    zones: service.zones as unknown as Record<string, Record<string, unknown>>,
    crossZoneWithoutHints: service.crossZone.withoutHints,
    crossZoneWithHints: service.crossZone.withHints,
    verdict: {
      managedBy: service.managedBy,
      honoursHints: service.dataPath.honoursHints,
      dataPathReason: service.dataPath.reason,
    },
    savings,
    fixes,
  });
}

/**
 * The savings inputs of every Service: traffic as the core derives it from the snapshot alone (an API
 * value overrides it when read), and the core's `autoRoutingPreview` of each Service without routing.
 */
function savingsInputs(
  snapshot: Snapshot,
  report: AnalysisReport,
  reuse: PreviewReuse | undefined,
): Map<string, ServiceSavingsState> {
  const annotations = new Map(
    snapshot.services.map((service) => [
      coreServiceKey(service),
      service.metadata.annotations?.[MONTHLY_TRAFFIC_ANNOTATION] ?? null,
    ]),
  );
  const previews = new Map<string, AutoRoutingPreview>(
    autoRoutingPreviews(snapshot, report, reuse).map((entry) => [`${entry.namespace}/${entry.name}`, entry.preview]),
  );
  const inputs = new Map<string, ServiceSavingsState>();
  for (const service of report.services) {
    const key = `${service.namespace}/${service.name}`;
    const trafficAnnotation = annotations.get(key) ?? null;
    const traffic = monthlyTrafficGb({
      annotations: trafficAnnotation === null ? null : { [MONTHLY_TRAFFIC_ANNOTATION]: trafficAnnotation },
      readyEndpoints: service.readyEndpoints,
    });
    const preview = previews.get(key) ?? null;
    inputs.set(key, {
      readyEndpoints: service.readyEndpoints,
      trafficAnnotation,
      trafficGb: traffic.gb,
      trafficSource: traffic.source === 'annotation' ? 'annotation' : 'default-per-endpoint',
      previewState: preview?.state ?? null,
      previewReason: preview?.reason ?? null,
      previewCrossZone: preview?.crossZone.withHints ?? null,
    });
  }
  return inputs;
}

/** Decision: the estimated cross-zone fraction is the core's own summary (weighted by ready endpoints). */
function aggregatesOf(report: AnalysisReport): SnapshotAggregates {
  return {
    services: report.services.length,
    servicesPopulated: report.summary.services.populated,
    servicesRemoved: report.summary.services.removed,
    servicesNone: report.summary.services.none,
    servicesWithDrift: report.summary.servicesWithDrift,
    servicesWithIgnoredHints: report.summary.servicesWithIgnoredHints,
    nodeInfoSufficient: report.nodeInfo.sufficient,
    nodeInfoReason: report.nodeInfo.reason,
    zones: report.nodeInfo.zones,
    crossZoneWithoutHints: report.summary.crossZone.withoutHints,
    crossZoneWithHints: report.summary.crossZone.withHints,
    zoneStats: zoneStatsOf(report),
    serviceCidrs: report.serviceCIDRs,
  };
}

/** Per-zone figures of one snapshot, for `GET /v1/clusters/{id}/zones`. */
export interface ZoneStats {
  name: string;
  /** Share of the cluster's allocatable CPU (the controller's ratio); null when node info is insufficient. */
  cpuShare: number | null;
  allocatableCpuMillis: number | null;
  readyNodes: number | null;
  /** Share of requests originating in the zone, as the traffic model assumes. */
  trafficShare: number | null;
  /** Ready endpoints located in the zone (each Service counted in its primary address family). */
  readyEndpoints: number;
  /** Endpoints hinted for the zone, over Services whose hints are populated. */
  hintedEndpoints: number;
  expectedOverload: {
    /** Highest expected overload in this zone among Services whose hints are populated (what happens now). */
    max: number;
    maxService: string | null;
    /** Mean over Services with populated hints, weighted by their ready endpoints; null when there are none. */
    mean: number | null;
    /** Services (any state) whose expected overload here passes the controller's 20 % threshold. */
    servicesAboveThreshold: number;
  };
}

/** Decision: zones are those the analysis knows (nodes, traffic origin, hints, endpoints), by name. */
function zoneStatsOf(report: AnalysisReport): ZoneStats[] {
  const stats = new Map<string, ZoneStats>();
  const zone = (name: string): ZoneStats => {
    let entry = stats.get(name);
    if (!entry) {
      entry = {
        name,
        cpuShare: null,
        allocatableCpuMillis: null,
        readyNodes: null,
        // Own shares only: a zone named like an Object.prototype member would find the inherited one.
        trafficShare: Object.hasOwn(report.trafficOrigin.shares, name) ? report.trafficOrigin.shares[name] : null,
        readyEndpoints: 0,
        hintedEndpoints: 0,
        expectedOverload: { max: 0, maxService: null, mean: null, servicesAboveThreshold: 0 },
      };
      stats.set(name, entry);
    }
    return entry;
  };
  for (const capacity of report.nodeInfo.zones) {
    Object.assign(zone(capacity.name), {
      cpuShare: capacity.cpuRatio,
      allocatableCpuMillis: capacity.allocatableCpuMillis,
      readyNodes: capacity.readyNodes,
    });
  }
  for (const name of Object.keys(report.trafficOrigin.shares)) zone(name);
  const weighted = new Map<string, { sum: number; weight: number }>();
  for (const service of report.services) {
    for (const [name, count] of readyEndpointsByZone(service)) zone(name).readyEndpoints += count;
    const populated = service.hints.state === 'populated';
    for (const [name, analysis] of Object.entries(service.zones)) {
      const entry = zone(name);
      if (analysis.expectedOverload > OVERLOAD_THRESHOLD) entry.expectedOverload.servicesAboveThreshold++;
      if (!populated) continue;
      entry.hintedEndpoints += analysis.allocated ?? 0;
      if (analysis.expectedOverload > entry.expectedOverload.max || entry.expectedOverload.maxService === null) {
        entry.expectedOverload.max = analysis.expectedOverload;
        entry.expectedOverload.maxService = `${service.namespace}/${service.name}`;
      }
      const total = weighted.get(name) ?? { sum: 0, weight: 0 };
      total.sum += analysis.expectedOverload * service.readyEndpoints;
      total.weight += service.readyEndpoints;
      weighted.set(name, total);
    }
  }
  for (const [name, total] of weighted) {
    zone(name).expectedOverload.mean = total.weight > 0 ? total.sum / total.weight : null;
  }
  return [...stats.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Counted once per analysis: the core hands out the same one for a Service unchanged since. */
const readyByZone = new WeakMap<ServiceAnalysis, ReadonlyMap<string, number>>();

/** Ready endpoints by zone in the Service's primary family (IPv4 unless it only has IPv6 slices). */
function readyEndpointsByZone(service: ServiceAnalysis): ReadonlyMap<string, number> {
  let counts = readyByZone.get(service);
  if (counts === undefined) {
    counts = countReadyByZone(service);
    readyByZone.set(service, counts);
  }
  return counts;
}

function countReadyByZone(service: ServiceAnalysis): Map<string, number> {
  const slices: readonly EndpointSlice[] = service.endpointSlices;
  const family = slices.some((slice) => slice.addressType === 'IPv4') ? 'IPv4' : 'IPv6';
  const counts = new Map<string, number>();
  for (const slice of slices) {
    if (slice.addressType !== family) continue;
    for (const endpoint of slice.endpoints) {
      if (!isEndpointReady(endpoint) || !endpoint.zone) continue;
      counts.set(endpoint.zone, (counts.get(endpoint.zone) ?? 0) + 1);
    }
  }
  return counts;
}
