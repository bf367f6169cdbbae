/** The report document's shape (`zonewise.report/v1`) and the constants that decide what it lists. */
import type { MissedBasis, MissedReason } from './missed-reasons.js';
import type { MeasuredClusterRow, ReportTrigger, ScopeKind, TrafficSource } from './report-input.js';
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
  /** How much of each figure is measured (as `GET /v1/savings` says it); the rest is estimated by the model. */
  measured: MeasuredPart;
  /** Services whose measured share crossing zones contradicts their populated hints (see `contradictions`). */
  contradictions: number;
  /** true when a figure rests on the per-endpoint default traffic or an unknown cloud's price. */
  estimate: boolean;
}

/**
 * The part of the totals made by Services whose volume and share crossing zones are both measured by
 * their cluster's traffic source: measured, not estimated.
 */
export interface MeasuredPart {
  services: number;
  /** Their part of withHints (as routed). */
  withHints: Figure;
  /** Their part of realizedSavings (their measured cost against the model's without hints). */
  realizedSavings: { cost: number };
  /** Their part of missedSavings (not enabled: their measured cost against the model's with Auto). */
  missedSavings: { cost: number };
  /** measured withHints cost ÷ withHints cost (null when that is 0). */
  withHintsCostShare: number | null;
}

/** Hints populated (and honoured), yet the measured share crossing zones is well above the model's. */
export interface Contradiction {
  modelCrossZone: number;
  measuredCrossZone: number;
  reason: string;
}

export interface ContradictionLine extends Contradiction {
  cluster: ClusterRef;
  namespace: string;
  name: string;
  /** What the Service's bytes as routed cost over the period (at the measured share). */
  withHints: Figure;
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
  /** Where the share crossing zones as routed came from: the traffic source's measurement, or the model. */
  crossZoneSource: 'measured' | 'model';
  /** The model's share as routed (kept beside a measured one), in the latest state of the period. */
  modelCrossZone: number;
  measuredCrossZone: number | null;
  /** Volume and share both measured: the Service's as-routed figures are measured, not estimated. */
  fullyMeasured: boolean;
  /** Set when its measured share contradicts its verdict (populated hints, traffic still crossing). */
  contradiction: Contradiction | null;
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
  /** Services whose measured share contradicts their populated hints, largest as-routed cost first. */
  contradictions: ContradictionLine[];
  /** Per measured cluster, the model against the measurement, as of when the report was made. */
  measuredTraffic: (Omit<MeasuredClusterRow, 'clusterId'> & { cluster: ClusterRef })[];
  notes: string[];
  model: { formulas: string[]; traffic: string[]; missedSavings: string[] };
}
