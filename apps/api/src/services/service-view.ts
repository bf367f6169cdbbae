import {
  type CostInputs,
  type CrossZoneCost,
  type CrossZonePrice,
  type HintState,
  type MeasuredContradiction,
  measuredContradiction,
  MONTHLY_TRAFFIC_ANNOTATION,
  measuredTrafficNote,
  missedSavings,
  type ModelVsMeasured,
  modelVsMeasured,
  monthlyTrafficGb,
  type Routing,
  type RoutingPreviewOutcome,
  serviceCost,
} from '@zw/core';
import type { ServiceStateRow } from '@zw/db';
import type { ZoneAllocationView } from './services.schemas.js';

export interface ServiceMonthly {
  withoutHints: CrossZoneCost;
  withHints: CrossZoneCost;
  realizedSavings: CrossZoneCost;
  /** Only for an opportunity (no routing today, hints would be populated): what enabling it would save. */
  missedSavings: CrossZoneCost | null;
  /** What every figure above came from (traffic, price, and whether either is an estimate). */
  inputs: CostInputs;
}

/** A Service state's routing and hint state, as the answers show them. */
export interface RoutingView {
  routing: Routing;
  hints: { state: HintState; reason: string | null };
}

/** The worker stores core's Routing and HintState values as text: read back, they are those values. */
export function routingView(row: Pick<ServiceStateRow, 'routing' | 'hint_state' | 'hint_reason'>): RoutingView {
  return { routing: row.routing as Routing, hints: { state: row.hint_state as HintState, reason: row.hint_reason } };
}

export interface ServiceSummaryView extends RoutingView {
  namespace: string;
  name: string;
  readyEndpoints: number;
  /** Since when this state holds (the captured-at of the snapshot that first showed it). */
  since: string;
  crossZone: { withoutHints: number; withHints: number };
  /** Who writes the Service's slices (`endpointslice-controller`, `kube-apiserver`, `none`, …); null for states recorded before it was. */
  managedBy: string | null;
  /** Whether the hints change where requests go on the cluster's data path; null for states recorded before it was. */
  dataPath: { honoursHints: boolean; reason: string | null } | null;
  monthly: ServiceMonthly;
  /** For a Service without topology routing: what `topology-mode: Auto` would do; null otherwise. */
  ifAutoEnabled: { wouldPopulate: boolean; reason: string | null; crossZoneWithHints: number } | null;
  opportunity: boolean;
  /** The newest measurement of the cluster's traffic source for this Service; null when not measured. */
  measured: MeasuredView | null;
  /** The model's volume, cross-zone fraction and cost against the measured ones; null when not measured. */
  modelVsMeasured: ModelVsMeasured | null;
  /** Hints populated, yet the measured share crossing zones is well above the model's: a finding; else null. */
  contradiction: MeasuredContradiction | null;
}

export interface MeasuredView {
  trafficGb: number;
  /** Measured share of the bytes that crossed zones; null when the source gives no zones. */
  crossZone: number | null;
  measuredAt: string;
  ageSeconds: number;
  source: { preset: string; query: string | null; windowSeconds: number };
}

/** The cluster's traffic source as the head row carries it (null when it has none). */
export interface MeasurementSource {
  preset: string;
  query: string | null;
  windowSeconds: number;
}

export function measurementSourceOf(head: {
  traffic_preset: string | null;
  traffic_query: string | null;
  traffic_window_seconds: number | null;
}): MeasurementSource | null {
  if (head.traffic_preset === null || head.traffic_window_seconds === null) return null;
  return { preset: head.traffic_preset, query: head.traffic_query, windowSeconds: head.traffic_window_seconds };
}

function measuredOf(row: ServiceStateRow, source: MeasurementSource | null, now: Date): MeasuredView | null {
  if (source === null || row.measured_gb === null || row.measured_at === null) return null;
  return {
    trafficGb: row.measured_gb,
    crossZone: row.measured_cross_zone,
    measuredAt: row.measured_at.toISOString(),
    ageSeconds: Math.max(0, Math.round((now.getTime() - row.measured_at.getTime()) / 1000)),
    source,
  };
}

/**
 * A stored Service state with its monthly cost and savings, computed by the core's savings model
 * (monthlyTrafficGb, serviceCost, missedSavings) from the stored inputs, so the API's per-Service figures
 * are the core's by construction; SQL aggregates use the same formulas (libs/db read-model).
 */
export function serviceSummaryView(
  row: ServiceStateRow,
  price: CrossZonePrice,
  source: MeasurementSource | null = null,
  now = new Date(),
): ServiceSummaryView {
  const measured = measuredOf(row, source, now);
  const declared = {
    explicitGb: row.explicit_gb,
    annotations: row.traffic_annotation === null ? null : { [MONTHLY_TRAFFIC_ANNOTATION]: row.traffic_annotation },
    readyEndpoints: row.ready_endpoints,
  };
  const traffic = monthlyTrafficGb({
    ...declared,
    measured: measured && {
      gb: measured.trafficGb,
      note: measuredTrafficNote({ ...measured.source, measuredAt: row.measured_at! }),
    },
  });
  const crossZone = { withoutHints: row.cross_zone_without_hints ?? 0, withHints: row.cross_zone_with_hints ?? 0 };
  const measuredCrossZone = measured?.crossZone ?? null;
  const cost = serviceCost({ trafficGb: traffic, crossZone, pricePerGb: price, measuredCrossZone });
  const previewState = row.preview_state;
  const preview: RoutingPreviewOutcome | null =
    previewState === 'populated' || previewState === 'removed'
      ? {
          state: previewState,
          reason: row.preview_reason,
          crossZone: { withoutHints: crossZone.withoutHints, withHints: row.preview_cross_zone ?? crossZone.withHints },
        }
      : null;
  const managedByController = (row.managed_by ?? 'endpointslice-controller') === 'endpointslice-controller';
  const opportunity = row.routing === 'None' && preview?.state === 'populated' && managedByController;
  const missed =
    opportunity && preview
      ? missedSavings({
          trafficGb: traffic,
          pricePerGb: price,
          current: crossZone,
          ifEnabled: preview,
          measuredCrossZone,
        })
      : null;
  return {
    namespace: row.namespace,
    name: row.name,
    ...routingView(row),
    readyEndpoints: row.ready_endpoints,
    since: row.valid_from.toISOString(),
    crossZone,
    managedBy: row.managed_by,
    dataPath: row.honours_hints === null ? null : { honoursHints: row.honours_hints, reason: row.data_path_reason },
    monthly: {
      withoutHints: cost.withoutHints,
      withHints: cost.withHints,
      realizedSavings: cost.realizedSavings,
      missedSavings: missed ? missed.savings : null,
      inputs: cost.inputs,
    },
    ifAutoEnabled: preview
      ? {
          wouldPopulate: preview.state === 'populated',
          reason: preview.reason,
          crossZoneWithHints: preview.crossZone.withHints,
        }
      : null,
    opportunity,
    measured,
    modelVsMeasured: measured
      ? modelVsMeasured({
          estimatedGb: monthlyTrafficGb(declared).gb,
          estimatedCrossZone: crossZone.withHints,
          measuredGb: measured.trafficGb,
          measuredCrossZone: measured.crossZone,
          pricePerGb: price.pricePerGb,
        })
      : null,
    contradiction: measuredContradiction({
      hintState: row.hint_state,
      honoursHints: row.honours_hints,
      modelCrossZone: crossZone.withHints,
      measuredCrossZone,
    }),
  };
}

/** The per-zone allocation of a stored state, as a list in zone order. */
export function zoneAllocations(row: ServiceStateRow): ZoneAllocationView[] {
  return Object.keys(row.zones)
    .sort()
    .map((zone) => {
      const z = row.zones[zone];
      return {
        zone,
        minimum: z.minimum ?? null,
        maximum: z.maximum ?? null,
        desired: z.desired ?? null,
        allocated: z.allocated ?? null,
        expectedOverload: z.expectedOverload ?? 0,
      };
    });
}
