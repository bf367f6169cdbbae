/**
 * The report: what topology routing saved and missed over one period, for a fleet or chosen clusters.
 * Built from history rows (report-input) by plain arithmetic; the JSON document is the report itself,
 * and the CSV and HTML renderings are drawn from it alone.
 *
 * Figures follow the savings model of `@zw/core` (its `describePricingModel`), integrated over time:
 * every monthly figure of a Service counts for the share of a 730-hour month its state held within the
 * period, so a report's totals equal `GET /v1/savings` over the same range.
 */
import { describePricingModel, OVERLOAD_THRESHOLD, rankingUnits } from '@zw/core';
import {
  MISSED_REASON_TITLES,
  MISSED_REASONS,
  type MissedBasis,
  missedBasisOf,
  type MissedReason,
  missedReasonOf,
} from './missed-reasons.js';
import { periodLabel } from './period-label.js';
import type {
  ClusterDocumentsRow,
  FixRow,
  MeasuredClusterRow,
  ReportInput,
  ReportTrigger,
  ScopeKind,
  ServicePeriodRow,
  TrafficSource,
} from './report-input.js';
import type { ReportCadence } from './schedule-periods.js';

export const REPORT_SCHEMA = 'zonewise.report/v1';
export const HOURS_PER_MONTH = 730;
/** The Services listed as the top opportunities. */
export const TOP_OPPORTUNITIES = 10;
/** The Services listed with their top fixes. */
export const TOP_FIXES = 10;
/**
 * Decision: as the Service timeline of the query API counts it, a Service flaps when its hint state
 * changed at least three times in the period: once is a change, twice may be a rollout that came back.
 */
export const FLAPPING_MIN_CHANGES = 3;
/** A Service CIDR this full (allocated / usable addresses) is listed as a risk even without conflicts. */
export const CIDR_UTILIZATION_RISK = 0.8;

export interface Figure {
  crossZoneGb: number;
  cost: number;
}

export interface ClusterRef {
  id: string;
  name: string;
}

export interface PeriodTotals {
  /** Services seen in the period. */
  services: number;
  /** Σ over Services of the time their state held in the period, in 730-hour months. */
  serviceMonths: number;
  trafficGb: number;
  withoutHints: Figure;
  withHints: Figure;
  /** withoutHints − withHints: what the hints as they were saved. */
  realizedSavings: Figure;
  /**
   * What enabling topology routing would have saved on the Services where it would have populated hints
   * (the `not-enabled` reason; the same figure as `GET /v1/savings`' missedSavings over the period).
   */
  missedSavings: Figure;
  /**
   * Cross-zone traffic of Services whose hints the controller refused or would refuse (too few endpoints,
   * overload threshold, node info, other): the most that removing those causes could save.
   */
  blockedAtStake: Figure;
  /** Services that would have populated hints had routing been enabled (the `not-enabled` reason). */
  opportunities: number;
  trafficSources: Record<TrafficSource, number>;
  /** Traffic (GB) of the Services whose volume the clusters' traffic sources measured, and its share. */
  measuredTrafficGb: number;
  measuredShare: number | null;
  /** true when a figure rests on the per-endpoint default traffic or an unknown cloud's price. */
  estimate: boolean;
}

export interface MissedByReason extends Figure {
  reason: MissedReason;
  title: string;
  basis: MissedBasis;
  /** Services whose line gives this reason (the one they spent longest in): the CSV's rows with this `missed_reason`. */
  services: number;
}

export interface ClusterSection extends ClusterRef {
  cloud: string;
  region: string | null;
  pricing: { pricePerGb: number; source: string; note: string };
  coverage: {
    snapshots: number;
    firstCapturedAt: string | null;
    lastCapturedAt: string | null;
    /** The cluster's history reaches back before the period (else the period's start is not covered). */
    historyBeforePeriod: boolean;
  };
  totals: PeriodTotals;
}

export interface ServiceLine {
  cluster: ClusterRef;
  namespace: string;
  name: string;
  routing: string;
  hintState: string;
  hintReason: string | null;
  months: number;
  trafficGb: number;
  trafficSource: TrafficSource;
  estimate: boolean;
  withoutHints: Figure;
  withHints: Figure;
  realizedSavings: Figure;
  /** What this Service missed over the period, on the basis of its reason (see `missedBasis`). */
  missedSavings: Figure;
  /** The reason this Service spent longest in during the period (null when nothing was missed). */
  missedReason: MissedReason | null;
  missedBasis: MissedBasis | null;
  hintStateChanges: number;
  flapping: boolean;
  /** The Service's best recommended fix as of the period's end (null when it has none). */
  bestFix: BestFix | null;
}

export interface BestFix {
  /** Position in the ranking of all Services' best fixes by monthly saving (1 = largest). */
  rank: number;
  kind: string;
  summary: string;
  resultingState: string;
  /** Per month, at the cluster's price and the Service's traffic. */
  monthlySavings: Figure;
}

/** One of the top fixes: the change to make, what it leads to and saves per month. */
export interface FixLine extends BestFix {
  cluster: ClusterRef;
  namespace: string;
  name: string;
  crossZoneAfter: number;
  overloadAboveThreshold: boolean;
  patch: string;
  trafficGb: number;
  estimate: boolean;
  alternatives: number;
}

export interface OpportunityLine {
  cluster: ClusterRef;
  namespace: string;
  name: string;
  trafficGb: number;
  /** What enabling topology routing would have saved over the period. */
  missedSavings: Figure;
  estimate: boolean;
}

export interface FlappingService {
  cluster: ClusterRef;
  namespace: string;
  name: string;
  changes: number;
  hintState: string;
}

export interface ZoneRisk {
  cluster: ClusterRef;
  zone: string;
  asOf: string;
  cpuShare: number | null;
  /** Highest expected overload among Services with populated hints here (share above an even load). */
  maxExpectedOverload: number;
  maxService: string | null;
  /** Services (any state) whose expected overload here passes the controller's 20 % threshold. */
  servicesAboveThreshold: number;
}

export interface CidrRisk {
  cluster: ClusterRef;
  asOf: string;
  cidr: string;
  family: string;
  utilization: number;
  allocated: unknown;
  free: unknown;
  /** Static ClusterIPs in the dynamic band (a dynamic allocation may take them first). */
  risks: unknown[];
  conflicts: unknown[];
}

export interface TrendPoint {
  start: string;
  end: string;
  withoutHints: Figure;
  withHints: Figure;
  /** With topology routing enabled wherever it would have populated hints: withHints − the not-enabled saving. */
  ifEnabled: Figure;
  hintStates: { populated: number; removed: number; none: number };
}

export interface ReportDocument {
  schema: typeof REPORT_SCHEMA;
  id: string;
  schedule: { id: string; name: string; cadence: ReportCadence; cron: string; timeZone: string };
  period: { start: string; end: string; timeZone: string; label: string; hours: number; partial: boolean };
  trigger: ReportTrigger;
  generatedAt: string;
  currency: 'USD';
  hoursPerMonth: number;
  scope: { kind: ScopeKind; clusters: ClusterRef[]; missingClusterIds: string[] };
  totals: PeriodTotals;
  /** Missed savings by reason, every reason listed (zero when none applies). */
  missedSavings: { byReason: MissedByReason[] };
  clusters: ClusterSection[];
  topOpportunities: OpportunityLine[];
  /** The largest monthly savings among the Services' best recommended fixes, as of the period's end. */
  topFixes: FixLine[];
  hintStates: {
    changes: number;
    servicesChanged: number;
    transitions: { from: string; to: string; count: number }[];
    flappingThreshold: number;
    flapping: FlappingService[];
  };
  zonesAtRisk: ZoneRisk[];
  serviceCidrRisks: CidrRisk[];
  trend: { points: TrendPoint[] };
  /** One line per Service per cluster, by cluster name, namespace and name. */
  services: ServiceLine[];
  /** Per measured cluster, the model against the measurement, as of when the report was made. */
  measuredTraffic: (Omit<MeasuredClusterRow, 'clusterId'> & { cluster: ClusterRef })[];
  notes: string[];
  model: { formulas: string[]; traffic: string[]; missedSavings: string[] };
}

const ZERO: Figure = { crossZoneGb: 0, cost: 0 };

const add = (a: Figure, b: Figure): Figure => ({ crossZoneGb: a.crossZoneGb + b.crossZoneGb, cost: a.cost + b.cost });
const subtract = (a: Figure, b: Figure): Figure => ({
  crossZoneGb: a.crossZoneGb - b.crossZoneGb,
  cost: a.cost - b.cost,
});

/** Byte order, as the rest of zonewise sorts names. */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function buildReportDocument(input: ReportInput): ReportDocument {
  const { meta } = input;
  const clustersById = new Map(input.scope.clusters.map((cluster) => [cluster.id, cluster]));
  const ref = (id: string): ClusterRef => ({ id, name: clustersById.get(id)?.name ?? id });
  const changes = changesByService(input);
  const services = withBestFixes(serviceLines(input.services, changes, ref), input.fixes ?? []);
  const missedRows = input.services.filter((row) => row.missedBasis !== null);
  const byReason = missedByReason(missedRows, services);
  const pricing = new Map(input.scope.clusters.map((cluster) => [cluster.id, cluster.pricing]));
  const unknownPrice = (clusterId: string) => pricing.get(clusterId)?.source === 'unknown-cloud-default';
  const totals = totalsOf(services, input.services, unknownPrice);
  const coverage = new Map(input.coverage.map((row) => [row.clusterId, row]));
  const linesByCluster = groupBy(services, (line) => line.cluster.id);
  const rowsByCluster = groupBy(input.services, (row) => row.clusterId);

  return {
    schema: REPORT_SCHEMA,
    id: meta.id,
    schedule: { ...meta.schedule },
    period: {
      start: meta.period.start.toISOString(),
      end: meta.period.end.toISOString(),
      timeZone: meta.schedule.timeZone,
      label: periodLabel(meta.period, meta.schedule.timeZone, meta.partial),
      hours: (meta.period.end.getTime() - meta.period.start.getTime()) / 3_600_000,
      partial: meta.partial,
    },
    trigger: meta.trigger,
    generatedAt: meta.generatedAt.toISOString(),
    currency: 'USD',
    hoursPerMonth: HOURS_PER_MONTH,
    scope: {
      kind: input.scope.kind,
      clusters: input.scope.clusters.map((cluster) => ({ id: cluster.id, name: cluster.name })),
      missingClusterIds: [...input.scope.missingClusterIds],
    },
    totals,
    missedSavings: { byReason },
    clusters: input.scope.clusters.map((cluster) => {
      const rows = coverage.get(cluster.id);
      return {
        id: cluster.id,
        name: cluster.name,
        cloud: cluster.cloud,
        region: cluster.region,
        pricing: { ...cluster.pricing },
        coverage: {
          snapshots: rows?.snapshots ?? 0,
          firstCapturedAt: rows?.firstCapturedAt?.toISOString() ?? null,
          lastCapturedAt: rows?.lastCapturedAt?.toISOString() ?? null,
          historyBeforePeriod: rows?.historyBeforePeriod ?? false,
        },
        totals: totalsOf(linesByCluster.get(cluster.id) ?? [], rowsByCluster.get(cluster.id) ?? [], unknownPrice),
      };
    }),
    topOpportunities: topOpportunities(input.services, ref, unknownPrice),
    topFixes: topFixes(input.fixes ?? [], ref, unknownPrice),
    hintStates: hintStatesOf(input, services),
    zonesAtRisk: zonesAtRisk(input.documents, ref),
    serviceCidrRisks: cidrRisks(input.documents, ref),
    trend: { points: trendPoints(input) },
    services,
    measuredTraffic: (input.measured ?? []).map(({ clusterId, ...figures }) => ({
      cluster: ref(clusterId),
      ...figures,
    })),
    notes: notesOf(input, totals),
    model: {
      formulas: describePricingModel().formulas,
      traffic: describePricingModel().traffic,
      missedSavings: [
        'not-enabled: what enabling topology-mode Auto would have saved, from the stored preview of the controller with the annotation set (exact under the model)',
        'too-few-endpoints, overload-threshold, node-info, other: the cross-zone traffic of Services whose hints the controller refused (or would refuse) for that reason, the most that removing the cause could save (at-stake)',
        'every figure is integrated over the period: monthly GB × the share of a 730-hour month each state held',
      ],
    },
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Hint-state changes per Service (`clusterId/namespace/name`). */
function changesByService(input: ReportInput): Map<string, number> {
  const changes = new Map<string, number>();
  for (const row of input.transitions) {
    const key = serviceKeyOf(row);
    changes.set(key, (changes.get(key) ?? 0) + row.count);
  }
  return changes;
}

function serviceKeyOf(row: { clusterId: string; namespace: string; name: string }): string {
  return `${row.clusterId}/${row.namespace}/${row.name}`;
}

function reasonOfRow(row: ServicePeriodRow): MissedReason | null {
  if (row.missedBasis === null) return null;
  return row.missedBasis === 'preview' ? 'not-enabled' : missedReasonOf(row.missedReason);
}

/** Merges each Service's rows (one per kind of missed saving) into its line. */
function serviceLines(
  rows: readonly ServicePeriodRow[],
  changes: ReadonlyMap<string, number>,
  ref: (id: string) => ClusterRef,
): ServiceLine[] {
  const lines = new Map<string, ServiceLine & { reasonMonths: Map<MissedReason, number> }>();
  for (const row of rows) {
    const key = serviceKeyOf(row);
    let line = lines.get(key);
    if (!line) {
      const hintStateChanges = changes.get(key) ?? 0;
      line = {
        cluster: ref(row.clusterId),
        namespace: row.namespace,
        name: row.name,
        routing: row.routing,
        hintState: row.hintState,
        hintReason: row.hintReason,
        months: 0,
        trafficGb: 0,
        trafficSource: row.trafficSource,
        estimate: false,
        withoutHints: ZERO,
        withHints: ZERO,
        realizedSavings: ZERO,
        missedSavings: ZERO,
        missedReason: null,
        missedBasis: null,
        hintStateChanges,
        flapping: hintStateChanges >= FLAPPING_MIN_CHANGES,
        bestFix: null,
        reasonMonths: new Map(),
      };
      lines.set(key, line);
    }
    line.months += row.months;
    line.trafficGb += row.trafficGb;
    line.estimate ||= row.estimated;
    line.withoutHints = add(line.withoutHints, { crossZoneGb: row.withoutHintsGb, cost: row.withoutHintsCost });
    line.withHints = add(line.withHints, { crossZoneGb: row.withHintsGb, cost: row.withHintsCost });
    line.missedSavings = add(line.missedSavings, { crossZoneGb: row.missedGb, cost: row.missedCost });
    const reason = reasonOfRow(row);
    if (reason !== null) line.reasonMonths.set(reason, (line.reasonMonths.get(reason) ?? 0) + row.months);
  }
  return [...lines.values()]
    .map(({ reasonMonths, ...line }) => {
      // Decision: a Service's reason is the one it spent longest in during the period.
      const reason = [...reasonMonths.entries()].sort((a, b) => b[1] - a[1] || byteOrder(a[0], b[0]))[0]?.[0] ?? null;
      return {
        ...line,
        realizedSavings: subtract(line.withoutHints, line.withHints),
        missedReason: reason,
        missedBasis: reason === null ? null : missedBasisOf(reason),
      };
    })
    .sort(
      (a, b) =>
        byteOrder(a.cluster.name, b.cluster.name) ||
        byteOrder(a.cluster.id, b.cluster.id) ||
        byteOrder(a.namespace, b.namespace) ||
        byteOrder(a.name, b.name),
    );
}

function bestFixOf(fix: FixRow, rank: number): BestFix {
  return {
    rank,
    kind: fix.kind,
    summary: fix.summary,
    resultingState: fix.resultingState,
    monthlySavings: { crossZoneGb: fix.savedGb, cost: fix.savedCost },
  };
}

/** Each Service line with its best fix (fixes come ranked, so a fix's rank is its position). */
function withBestFixes(lines: ServiceLine[], fixes: readonly FixRow[]): ServiceLine[] {
  const ranked = new Map(fixes.map((fix, index) => [serviceKeyOf(fix), bestFixOf(fix, index + 1)]));
  return lines.map((line) => ({
    ...line,
    bestFix: ranked.get(serviceKeyOf({ clusterId: line.cluster.id, ...line })) ?? null,
  }));
}

function topFixes(
  fixes: readonly FixRow[],
  ref: (id: string) => ClusterRef,
  unknownPrice: (clusterId: string) => boolean,
): FixLine[] {
  return fixes.slice(0, TOP_FIXES).map((fix, index) => ({
    ...bestFixOf(fix, index + 1),
    cluster: ref(fix.clusterId),
    namespace: fix.namespace,
    name: fix.name,
    crossZoneAfter: fix.crossZoneAfter,
    overloadAboveThreshold: fix.overloadAboveThreshold,
    patch: fix.patch,
    trafficGb: fix.trafficGb,
    estimate: fix.trafficSource === 'default-per-endpoint' || unknownPrice(fix.clusterId),
    alternatives: fix.alternatives,
  }));
}

/**
 * Missed savings per reason: money and GB from every row (a Service that changed reasons adds to each),
 * Services counted under the one reason of their line (the one they spent longest in), so the counts
 * are the CSV's rows per `missed_reason`.
 */
function missedByReason(rows: readonly ServicePeriodRow[], lines: readonly ServiceLine[]): MissedByReason[] {
  const byReason = groupBy(rows, (row) => reasonOfRow(row) ?? '');
  const services = new Map<MissedReason, number>();
  for (const line of lines) {
    if (line.missedReason !== null) services.set(line.missedReason, (services.get(line.missedReason) ?? 0) + 1);
  }
  return MISSED_REASONS.map((reason) => {
    const matching = byReason.get(reason) ?? [];
    return {
      reason,
      title: MISSED_REASON_TITLES[reason],
      basis: missedBasisOf(reason),
      services: services.get(reason) ?? 0,
      crossZoneGb: matching.reduce((sum, row) => sum + row.missedGb, 0),
      cost: matching.reduce((sum, row) => sum + row.missedCost, 0),
    };
  });
}

function totalsOf(
  lines: readonly ServiceLine[],
  rows: readonly ServicePeriodRow[],
  unknownPrice: (clusterId: string) => boolean,
): PeriodTotals {
  const sum = (pick: (line: ServiceLine) => Figure) =>
    lines.reduce<Figure>((total, line) => add(total, pick(line)), ZERO);
  const missed = (basis: ServicePeriodRow['missedBasis']) =>
    rows
      .filter((row) => row.missedBasis === basis)
      .reduce<Figure>((total, row) => add(total, { crossZoneGb: row.missedGb, cost: row.missedCost }), ZERO);
  const trafficSources: Record<TrafficSource, number> = {
    api: 0,
    measured: 0,
    annotation: 0,
    'default-per-endpoint': 0,
  };
  for (const line of lines) trafficSources[line.trafficSource]++;
  const trafficGb = lines.reduce((total, line) => total + line.trafficGb, 0);
  // A measured volume is the Service's own (like an API value), so all of its period traffic is measured.
  const measuredTrafficGb = lines
    .filter((line) => line.trafficSource === 'measured')
    .reduce((total, line) => total + line.trafficGb, 0);
  const withoutHints = sum((line) => line.withoutHints);
  const withHints = sum((line) => line.withHints);
  return {
    services: lines.length,
    serviceMonths: lines.reduce((total, line) => total + line.months, 0),
    trafficGb,
    withoutHints,
    withHints,
    realizedSavings: subtract(withoutHints, withHints),
    missedSavings: missed('preview'),
    blockedAtStake: missed('blocked'),
    opportunities: new Set(rows.filter((row) => row.missedBasis === 'preview').map(serviceKeyOf)).size,
    trafficSources,
    measuredTrafficGb,
    measuredShare: trafficGb > 0 ? measuredTrafficGb / trafficGb : null,
    estimate: lines.some((line) => line.estimate) || rows.some((row) => unknownPrice(row.clusterId)),
  };
}

/** As the query API ranks them: largest saving in money, then in GB, then namespace and name. */
function topOpportunities(
  rows: readonly ServicePeriodRow[],
  ref: (id: string) => ClusterRef,
  unknownPrice: (clusterId: string) => boolean,
): OpportunityLine[] {
  const byService = new Map<string, OpportunityLine>();
  for (const row of rows) {
    if (row.missedBasis !== 'preview') continue;
    const key = serviceKeyOf(row);
    const line = byService.get(key) ?? {
      cluster: ref(row.clusterId),
      namespace: row.namespace,
      name: row.name,
      trafficGb: 0,
      missedSavings: ZERO,
      estimate: unknownPrice(row.clusterId),
    };
    line.trafficGb += row.trafficGb;
    line.missedSavings = add(line.missedSavings, { crossZoneGb: row.missedGb, cost: row.missedCost });
    line.estimate ||= row.estimated;
    byService.set(key, line);
  }
  return [...byService.values()]
    .sort(
      (a, b) =>
        rankingUnits(b.missedSavings.cost) - rankingUnits(a.missedSavings.cost) ||
        rankingUnits(b.missedSavings.crossZoneGb) - rankingUnits(a.missedSavings.crossZoneGb) ||
        byteOrder(a.namespace, b.namespace) ||
        byteOrder(a.name, b.name) ||
        byteOrder(a.cluster.id, b.cluster.id),
    )
    .slice(0, TOP_OPPORTUNITIES);
}

function hintStatesOf(input: ReportInput, services: readonly ServiceLine[]): ReportDocument['hintStates'] {
  const transitions = new Map<string, { from: string; to: string; count: number }>();
  for (const row of input.transitions) {
    const key = `${row.from}→${row.to}`;
    const entry = transitions.get(key) ?? { from: row.from, to: row.to, count: 0 };
    entry.count += row.count;
    transitions.set(key, entry);
  }
  const changed = services.filter((line) => line.hintStateChanges > 0);
  return {
    changes: changed.reduce((sum, line) => sum + line.hintStateChanges, 0),
    servicesChanged: changed.length,
    transitions: [...transitions.values()].sort(
      (a, b) => b.count - a.count || byteOrder(a.from, b.from) || byteOrder(a.to, b.to),
    ),
    flappingThreshold: FLAPPING_MIN_CHANGES,
    flapping: changed
      .filter((line) => line.flapping)
      .sort(
        (a, b) =>
          b.hintStateChanges - a.hintStateChanges || byteOrder(a.namespace, b.namespace) || byteOrder(a.name, b.name),
      )
      .map((line) => ({
        cluster: line.cluster,
        namespace: line.namespace,
        name: line.name,
        changes: line.hintStateChanges,
        hintState: line.hintState,
      })),
  };
}

interface StoredZoneStats {
  name: string;
  cpuShare: number | null;
  expectedOverload?: { max?: number; maxService?: string | null; servicesAboveThreshold?: number };
}

/** Zones where Services' expected overload passes the controller's threshold, worst first. */
function zonesAtRisk(documents: readonly ClusterDocumentsRow[], ref: (id: string) => ClusterRef): ZoneRisk[] {
  const risks: ZoneRisk[] = [];
  for (const row of documents) {
    if (!Array.isArray(row.zoneStats)) continue;
    for (const zone of row.zoneStats as StoredZoneStats[]) {
      const overload = zone.expectedOverload ?? {};
      const max = overload.max ?? 0;
      const above = overload.servicesAboveThreshold ?? 0;
      if (above === 0 && max <= OVERLOAD_THRESHOLD) continue;
      risks.push({
        cluster: ref(row.clusterId),
        zone: zone.name,
        asOf: row.capturedAt.toISOString(),
        cpuShare: zone.cpuShare ?? null,
        maxExpectedOverload: max,
        maxService: overload.maxService ?? null,
        servicesAboveThreshold: above,
      });
    }
  }
  return risks.sort(
    (a, b) =>
      b.servicesAboveThreshold - a.servicesAboveThreshold ||
      b.maxExpectedOverload - a.maxExpectedOverload ||
      byteOrder(a.cluster.name, b.cluster.name) ||
      byteOrder(a.zone, b.zone),
  );
}

interface StoredCidr {
  cidr: string;
  family: string;
  utilization: number;
  allocated: unknown;
  free: unknown;
  risks?: unknown[];
  conflicts?: unknown[];
}

/** Service CIDRs with static ClusterIPs in the dynamic band, conflicts, or little room left. */
function cidrRisks(documents: readonly ClusterDocumentsRow[], ref: (id: string) => ClusterRef): CidrRisk[] {
  const risks: CidrRisk[] = [];
  for (const row of documents) {
    if (!Array.isArray(row.serviceCidrs)) continue;
    for (const cidr of row.serviceCidrs as StoredCidr[]) {
      const listed = cidr.risks ?? [];
      const conflicts = cidr.conflicts ?? [];
      if (listed.length === 0 && conflicts.length === 0 && !(cidr.utilization >= CIDR_UTILIZATION_RISK)) continue;
      risks.push({
        cluster: ref(row.clusterId),
        asOf: row.capturedAt.toISOString(),
        cidr: cidr.cidr,
        family: cidr.family,
        utilization: cidr.utilization,
        allocated: cidr.allocated,
        free: cidr.free,
        risks: listed,
        conflicts,
      });
    }
  }
  return risks.sort(
    (a, b) =>
      b.conflicts.length + b.risks.length - (a.conflicts.length + a.risks.length) ||
      b.utilization - a.utilization ||
      byteOrder(a.cluster.name, b.cluster.name) ||
      byteOrder(a.cidr, b.cidr),
  );
}

function trendPoints(input: ReportInput): TrendPoint[] {
  const rows = new Map(input.trend.rows.map((row) => [row.index, row]));
  const states = new Map(input.trend.states.map((row) => [row.index, row]));
  return input.trend.buckets.map((bucket, index) => {
    const row = rows.get(index);
    const withHints = { crossZoneGb: row?.withHintsGb ?? 0, cost: row?.withHintsCost ?? 0 };
    const notEnabled = { crossZoneGb: row?.notEnabledGb ?? 0, cost: row?.notEnabledCost ?? 0 };
    const counts = states.get(index);
    return {
      start: bucket.start.toISOString(),
      end: bucket.end.toISOString(),
      withoutHints: { crossZoneGb: row?.withoutHintsGb ?? 0, cost: row?.withoutHintsCost ?? 0 },
      withHints,
      ifEnabled: subtract(withHints, notEnabled),
      hintStates: { populated: counts?.populated ?? 0, removed: counts?.removed ?? 0, none: counts?.none ?? 0 },
    };
  });
}

function notesOf(input: ReportInput, totals: PeriodTotals): string[] {
  const notes: string[] = [];
  if (input.meta.partial) {
    notes.push(
      `made on demand before the period ended: it covers the period up to ${input.meta.period.end.toISOString()}`,
    );
  }
  if (input.scope.missingClusterIds.length > 0) {
    notes.push(
      `clusters chosen for this schedule that no longer exist were left out: ${input.scope.missingClusterIds.join(', ')}`,
    );
  }
  if (input.scope.clusters.length === 0) notes.push('no cluster in scope: every figure is zero');
  const coverage = new Map(input.coverage.map((row) => [row.clusterId, row]));
  for (const cluster of input.scope.clusters) {
    const row = coverage.get(cluster.id);
    if (!row || (row.snapshots === 0 && !row.historyBeforePeriod)) {
      notes.push(`${cluster.name}: no analysed snapshot covers this period`);
    } else if (!row.historyBeforePeriod) {
      notes.push(`${cluster.name}: history starts at ${row.firstCapturedAt?.toISOString()}, after the period's start`);
    }
  }
  if (totals.trafficSources.measured > 0) {
    notes.push(
      `${totals.trafficSources.measured} Service(s) use volumes measured by their cluster's traffic source (Prometheus): ${formatShare(totals.measuredShare)} of this period's traffic is measured, the rest declared or estimated`,
    );
  }
  if (totals.trafficSources['default-per-endpoint'] > 0) {
    notes.push(
      `${totals.trafficSources['default-per-endpoint']} Service(s) have no declared traffic: their volume is the per-endpoint default, an estimate`,
    );
  }
  for (const cluster of input.scope.clusters) {
    if (cluster.pricing.source === 'unknown-cloud-default') notes.push(`${cluster.name}: ${cluster.pricing.note}`);
  }
  return notes;
}

function formatShare(share: number | null): string {
  return share === null ? '0%' : `${(share * 100).toFixed(1)}%`;
}
