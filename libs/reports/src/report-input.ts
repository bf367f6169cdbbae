/**
 * What a report is built from: rows read from the stored history over the report's period (the worker
 * reads them; `@zw/db`'s report queries return exactly these shapes), plus who asked for it. Plain data:
 * instants are ISO strings or Dates, money is USD, traffic is GB.
 */
import type { ReportCadence } from './schedule-periods.js';

export type TrafficSource = 'api' | 'measured' | 'annotation' | 'default-per-endpoint';
export type ScopeKind = 'fleet' | 'clusters';
export type ReportTrigger = 'schedule' | 'manual';

export interface ReportMeta {
  id: string;
  schedule: { id: string; name: string; cadence: ReportCadence; cron: string; timeZone: string };
  period: { start: Date; end: Date };
  /** Made on demand before the period ended: it covers the period up to `period.end`. */
  partial: boolean;
  trigger: ReportTrigger;
  generatedAt: Date;
}

export interface ClusterInput {
  id: string;
  name: string;
  cloud: string;
  region: string | null;
  pricing: { pricePerGb: number; source: string; note: string };
}

/** Snapshots of a cluster recorded in the period, and whether its history starts before the period. */
export interface CoverageRow {
  clusterId: string;
  snapshots: number;
  firstCapturedAt: Date | null;
  lastCapturedAt: Date | null;
  historyBeforePeriod: boolean;
}

/**
 * A Service's figures over the period, for one kind of missed saving: a Service contributes one row per
 * distinct (`missedBasis`, `missedReason`) it went through (most have one). Sums are integrals over the
 * period: GB per month × months the state held (months = hours / 730).
 */
export interface ServicePeriodRow {
  clusterId: string;
  namespace: string;
  name: string;
  /** The Service's latest state within the period. */
  routing: string;
  hintState: string;
  hintReason: string | null;
  trafficSource: TrafficSource;
  /** Some of these months rest on the per-endpoint default traffic. */
  estimated: boolean;
  /**
   * The Service's volume and its share crossing zones are both measured by its cluster's traffic source:
   * its as-routed figures rest on no model volume or share.
   */
  fullyMeasured: boolean;
  /** The measured share of its bytes that crossed zones (it replaces the model's as routed); null if none. */
  measuredCrossZone: number | null;
  /** The model's share crossing zones as routed, in its latest state in the period. */
  modelCrossZone: number;
  /** Whether its cluster's data path honours hints, in its latest state (false: a mesh that ignores them). */
  honoursHints: boolean;
  /**
   * `preview`: no routing, enabling it would populate hints (missed = drop to the preview's crossings);
   * `blocked`: the controller refuses (or would refuse) hints (missed = the crossings still made);
   * null: nothing missed while in these states.
   */
  missedBasis: 'preview' | 'blocked' | null;
  /** The controller's failure message behind a `blocked` row. */
  missedReason: string | null;
  months: number;
  trafficGb: number;
  withoutHintsGb: number;
  withoutHintsCost: number;
  withHintsGb: number;
  withHintsCost: number;
  missedGb: number;
  missedCost: number;
}

/** Hint-state changes of one Service in the period, by transition. */
export interface TransitionRow {
  clusterId: string;
  namespace: string;
  name: string;
  from: string;
  to: string;
  count: number;
}

/** One trend bucket's integrals (fleet-wide, over the scope), and the hint states at its end. */
export interface TrendRow {
  index: number;
  withoutHintsGb: number;
  withoutHintsCost: number;
  withHintsGb: number;
  withHintsCost: number;
  /** What enabling topology routing would have saved over the bucket (the `not-enabled` reason). */
  notEnabledGb: number;
  notEnabledCost: number;
}

export interface StateCountRow {
  index: number;
  populated: number;
  removed: number;
  none: number;
}

/** A cluster's newest analysis at the end of the period: node info, per-zone statistics, Service CIDRs. */
export interface ClusterDocumentsRow {
  clusterId: string;
  capturedAt: Date;
  nodeInfoSufficient: boolean;
  nodeInfoReason: string | null;
  /** The stored per-zone statistics (the zones endpoint's `zones`), when recorded. */
  zoneStats: unknown;
  /** The stored `serviceCIDRs` analysis, when recorded. */
  serviceCidrs: unknown;
}

/** One side of a comparison: GB per month, cross-zone fraction, cross-zone GB, USD per month. */
export interface ComparisonSide<T> {
  trafficGb: T;
  crossZone: T;
  crossZoneGb: T;
  cost: T;
}

/**
 * A measured cluster's model against its measurement, over its newest state when the report is made
 * (the query API's `GET /v1/clusters/{id}/measured-traffic`).
 */
export interface MeasuredClusterRow {
  clusterId: string;
  servicesMeasured: number;
  servicesWithMeasuredZones: number;
  measuredShare: number | null;
  estimated: ComparisonSide<number>;
  measured: ComparisonSide<number | null>;
  /** estimated − measured, field by field. */
  error: ComparisonSide<number | null>;
}

export interface ReportInput {
  meta: ReportMeta;
  scope: { kind: ScopeKind; clusters: ClusterInput[]; missingClusterIds: string[] };
  coverage: CoverageRow[];
  services: ServicePeriodRow[];
  transitions: TransitionRow[];
  trend: { buckets: { start: Date; end: Date }[]; rows: TrendRow[]; states: StateCountRow[] };
  documents: ClusterDocumentsRow[];
  /** Clusters with measured traffic (none when omitted). */
  measured?: MeasuredClusterRow[];
  /** Every Service's best recommended fix as of the period's end, largest saving first (none when omitted). */
  fixes?: FixRow[];
}

/**
 * A Service's best recommended fix in its cluster's newest analysis before the period's end (the query
 * API's `GET /v1/fleet/recommendations`): what to change, what it leads to and what it saves per month.
 */
export interface FixRow {
  clusterId: string;
  namespace: string;
  name: string;
  kind: string;
  summary: string;
  resultingState: string;
  /** Fraction of requests crossing zones after the change. */
  crossZoneAfter: number;
  overloadAboveThreshold: boolean;
  /** The change to apply; read for the top fixes only (TOP_FIXES), null for the others. */
  patch: string | null;
  /** The Service's monthly traffic (GB) and its source. */
  trafficGb: number;
  trafficSource: TrafficSource;
  /** Per month, at the cluster's price. */
  savedGb: number;
  savedCost: number;
  /** Other fixes offered for the same Service. */
  alternatives: number;
}
