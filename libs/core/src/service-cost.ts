/**
 * Cost and savings of one Service per month, by the formulas of savings.ts: its cross-zone GB and their
 * cost without hints and with the hints as they are (the realized savings), and with topology routing
 * enabled (the missed savings); today's share is the measured one when the traffic source measured it.
 */
import type { MonthlyTraffic, TrafficSource } from './monthly-traffic.js';
import type { CrossZonePrice, PriceSource } from './savings.js';
import type { CrossZoneFractions } from './traffic-model.js';

export interface CrossZoneCost {
  crossZoneGb: number;
  cost: number;
}

/** The inputs a figure came from, so every answer can say where its numbers come from. */
export interface CostInputs {
  trafficGb: number;
  /** `caller` when the traffic was passed as a bare number. */
  trafficSource: TrafficSource | 'caller';
  trafficEstimate: boolean;
  trafficNote: string | null;
  pricePerGb: number;
  currency: 'USD';
  /** `caller` when the price was passed as a bare number. */
  priceSource: PriceSource | 'caller';
  priceNote: string | null;
  /** true when any input is a zonewise default: estimated traffic, or the unknown-cloud price. */
  estimate: boolean;
  /** Where today's cross-zone share (as routed, with the hints as they are) came from. */
  crossZoneSource: CrossZoneSource;
  /** The traffic model's share as routed today, kept beside a measured one. */
  modelCrossZone: number;
  /** The measured share of the Service's bytes that crossed zones; null when not measured. */
  measuredCrossZone: number | null;
}

/** `measured` when the traffic source measured the share of bytes crossing zones, else the `model`'s. */
export type CrossZoneSource = 'measured' | 'model';

/** A measured cross-zone share zonewise can use: a finite fraction in [0, 1]; anything else is ignored. */
export function usableShare(share: number | null | undefined): number | null {
  return typeof share === 'number' && Number.isFinite(share) && share >= 0 && share <= 1 ? share : null;
}

export interface ServiceCost {
  withoutHints: CrossZoneCost;
  withHints: CrossZoneCost;
  /** withoutHints − withHints: what the hints as they are save (negative if they add crossings). */
  realizedSavings: CrossZoneCost;
  crossZone: CrossZoneFractions;
  inputs: CostInputs;
}

export interface ServiceCostInput {
  /** GB per month: a {@link MonthlyTraffic} (its provenance is kept) or a bare number. */
  trafficGb: number | MonthlyTraffic;
  /** The analysis' cross-zone request fractions of the Service. */
  crossZone: CrossZoneFractions;
  /** USD per cross-zone GB: a {@link CrossZonePrice} (its provenance is kept) or a bare number. */
  pricePerGb: number | CrossZonePrice;
  /** The measured share of the Service's bytes that crossed zones (as routed today); null if not measured. */
  measuredCrossZone?: number | null;
}

/**
 * `crossZone.withHints` of the answer is the share the figures used: the measured one when there is one,
 * else the model's (`inputs` names which and keeps both).
 */
export function serviceCost({ trafficGb, crossZone, pricePerGb, measuredCrossZone }: ServiceCostInput): ServiceCost {
  const inputs = costInputs(trafficGb, pricePerGb, crossZone.withHints, measuredCrossZone);
  const today = todayShare(inputs);
  const withoutHints = crossZoneCost(inputs, crossZone.withoutHints);
  const withHints = crossZoneCost(inputs, today);
  return {
    withoutHints,
    withHints,
    realizedSavings: difference(withoutHints, withHints),
    crossZone: { withoutHints: crossZone.withoutHints, withHints: today },
    inputs,
  };
}

function todayShare(inputs: CostInputs): number {
  return inputs.measuredCrossZone ?? inputs.modelCrossZone;
}

/**
 * Decision: a measured share more than 10 points above the model's, on a Service whose hints are populated
 * and honoured, contradicts the verdict "routes in-zone": the hints are there, yet bytes still cross. A
 * few points are the noise of a window's worth of traffic (a zone's clients briefly sent elsewhere while
 * an endpoint was not ready); ten points is a tenth of the Service's bytes.
 */
export const CONTRADICTION_MARGIN = 0.1;

export interface MeasuredContradiction {
  modelCrossZone: number;
  measuredCrossZone: number;
  reason: string;
}

export interface MeasuredContradictionInput {
  hintState: string;
  /** Whether the cluster's data path honours hints (null: not recorded, taken as yes). */
  honoursHints: boolean | null;
  modelCrossZone: number;
  measuredCrossZone: number | null | undefined;
}

/**
 * The flag of a Service whose measurement contradicts its verdict: hints populated (and honoured by the
 * data path as zonewise knows it), yet the measured share crossing zones exceeds the model's by more than
 * {@link CONTRADICTION_MARGIN}. That is a finding: a data plane that ignores hints (a mesh or proxy
 * zonewise was not told of), or clients outside the cluster, whose requests kube-proxy's hints never see.
 */
export function measuredContradiction(input: MeasuredContradictionInput): MeasuredContradiction | null {
  const measured = usableShare(input.measuredCrossZone);
  if (measured === null || input.hintState !== 'populated' || input.honoursHints === false) return null;
  if (measured - input.modelCrossZone <= CONTRADICTION_MARGIN) return null;
  const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
  return {
    modelCrossZone: input.modelCrossZone,
    measuredCrossZone: measured,
    reason: `hints are populated, so the model routes ${percent(input.modelCrossZone)} of the bytes across zones, but ${percent(measured)} were measured crossing: a data plane that ignores the hints, or clients outside the cluster`,
  };
}

/** What enabling `topology-mode: Auto` would lead to (the shape of `autoRoutingPreview`'s answer). */
export interface RoutingPreviewOutcome {
  state: 'populated' | 'removed';
  reason: string | null;
  crossZone: CrossZoneFractions;
}

export interface MissedSavings {
  /** Whether enabling the CPU heuristic would populate hints (else there is nothing to gain by it). */
  wouldPopulate: boolean;
  /** The safeguard that would stop the controller, when it would not populate. */
  reason: string | null;
  /** Cross-zone traffic as kube-proxy routes it today (the Service's `withHints` fraction). */
  today: CrossZoneCost;
  /** Cross-zone traffic with `topology-mode: Auto` (same as today when hints would not be populated). */
  ifEnabled: CrossZoneCost;
  /** today − ifEnabled; 0 when hints would not be populated. */
  savings: CrossZoneCost;
  crossZone: { today: number; ifEnabled: number };
  inputs: CostInputs;
}

export interface MissedSavingsInput {
  trafficGb: number | MonthlyTraffic;
  pricePerGb: number | CrossZonePrice;
  /** The Service's cross-zone fractions today (from the analysis). */
  current: CrossZoneFractions;
  /** What `topology-mode: Auto` would give (`autoRoutingPreview`). */
  ifEnabled: RoutingPreviewOutcome;
  /** The measured share of the Service's bytes that crossed zones today; null if not measured. */
  measuredCrossZone?: number | null;
}

/**
 * The opportunity of a Service that does not route in-zone today: what enabling the CPU heuristic would
 * save. Today's crossings are the measured share when there is one, else the `withHints` fraction
 * (kube-proxy with the hints as they are, i.e. all endpoints for a Service without hints); what enabling
 * would give is the model's (it cannot be measured before it happens).
 */
export function missedSavings({
  trafficGb,
  pricePerGb,
  current,
  ifEnabled,
  measuredCrossZone,
}: MissedSavingsInput): MissedSavings {
  const inputs = costInputs(trafficGb, pricePerGb, current.withHints, measuredCrossZone);
  const wouldPopulate = ifEnabled.state === 'populated';
  const todayFraction = todayShare(inputs);
  const enabledFraction = wouldPopulate ? ifEnabled.crossZone.withHints : todayFraction;
  const today = crossZoneCost(inputs, todayFraction);
  const enabled = crossZoneCost(inputs, enabledFraction);
  return {
    wouldPopulate,
    reason: wouldPopulate ? null : ifEnabled.reason,
    today,
    ifEnabled: enabled,
    savings: difference(today, enabled),
    crossZone: { today: todayFraction, ifEnabled: enabledFraction },
    inputs,
  };
}

function costInputs(
  traffic: number | MonthlyTraffic,
  price: number | CrossZonePrice,
  modelCrossZone: number,
  measuredCrossZone: number | null | undefined,
): CostInputs {
  const measured = usableShare(measuredCrossZone);
  const fromTraffic =
    typeof traffic === 'number'
      ? { trafficGb: traffic, trafficSource: 'caller' as const, trafficEstimate: false, trafficNote: null }
      : {
          trafficGb: traffic.gb,
          trafficSource: traffic.source,
          trafficEstimate: traffic.estimate,
          trafficNote: traffic.note,
        };
  const fromPrice =
    typeof price === 'number'
      ? { pricePerGb: price, priceSource: 'caller' as const, priceNote: null }
      : { pricePerGb: price.pricePerGb, priceSource: price.source, priceNote: price.note };
  return {
    ...fromTraffic,
    ...fromPrice,
    currency: 'USD',
    estimate: fromTraffic.trafficEstimate || fromPrice.priceSource === 'unknown-cloud-default',
    crossZoneSource: measured === null ? 'model' : 'measured',
    modelCrossZone,
    measuredCrossZone: measured,
  };
}

function crossZoneCost(inputs: CostInputs, fraction: number): CrossZoneCost {
  const crossZoneGb = inputs.trafficGb * fraction;
  return { crossZoneGb, cost: crossZoneGb * inputs.pricePerGb };
}

function difference(a: CrossZoneCost, b: CrossZoneCost): CrossZoneCost {
  return { crossZoneGb: a.crossZoneGb - b.crossZoneGb, cost: a.cost - b.cost };
}
