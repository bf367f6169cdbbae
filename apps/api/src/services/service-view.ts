import {
  type CostInputs,
  type CrossZoneCost,
  type CrossZonePrice,
  MONTHLY_TRAFFIC_ANNOTATION,
  missedSavings,
  monthlyTrafficGb,
  type RoutingPreviewOutcome,
  serviceCost,
} from '@zw/core';
import type { ServiceStateRow } from '@zw/db';

export interface ServiceMonthly {
  withoutHints: CrossZoneCost;
  withHints: CrossZoneCost;
  realizedSavings: CrossZoneCost;
  /** Only for an opportunity (no routing today, hints would be populated): what enabling it would save. */
  missedSavings: CrossZoneCost | null;
  /** What every figure above came from (traffic, price, and whether either is an estimate). */
  inputs: CostInputs;
}

export interface ServiceSummaryView {
  namespace: string;
  name: string;
  routing: string;
  hints: { state: string; reason: string | null };
  readyEndpoints: number;
  /** Since when this state holds (the captured-at of the snapshot that first showed it). */
  since: string;
  crossZone: { withoutHints: number; withHints: number };
  monthly: ServiceMonthly;
  /** For a Service without topology routing: what `topology-mode: Auto` would do; null otherwise. */
  ifAutoEnabled: { wouldPopulate: boolean; reason: string | null; crossZoneWithHints: number } | null;
  opportunity: boolean;
}

/**
 * A stored Service state with its monthly cost and savings, computed by the core's savings model
 * (monthlyTrafficGb, serviceCost, missedSavings) from the stored inputs, so the API's per-Service figures
 * are the core's by construction; SQL aggregates use the same formulas (libs/db read-model).
 */
export function serviceSummaryView(row: ServiceStateRow, price: CrossZonePrice): ServiceSummaryView {
  const traffic = monthlyTrafficGb({
    explicitGb: row.explicit_gb,
    annotations: row.traffic_annotation === null ? null : { [MONTHLY_TRAFFIC_ANNOTATION]: row.traffic_annotation },
    readyEndpoints: row.ready_endpoints,
  });
  const crossZone = { withoutHints: row.cross_zone_without_hints ?? 0, withHints: row.cross_zone_with_hints ?? 0 };
  const cost = serviceCost({ trafficGb: traffic, crossZone, pricePerGb: price });
  const previewState = row.preview_state;
  const preview: RoutingPreviewOutcome | null =
    previewState === 'populated' || previewState === 'removed'
      ? {
          state: previewState,
          reason: row.preview_reason,
          crossZone: { withoutHints: crossZone.withoutHints, withHints: row.preview_cross_zone ?? crossZone.withHints },
        }
      : null;
  const opportunity = row.routing === 'None' && preview?.state === 'populated';
  const missed =
    opportunity && preview
      ? missedSavings({ trafficGb: traffic, pricePerGb: price, current: crossZone, ifEnabled: preview })
      : null;
  return {
    namespace: row.namespace,
    name: row.name,
    routing: row.routing,
    hints: { state: row.hint_state, reason: row.hint_reason },
    readyEndpoints: row.ready_endpoints,
    since: row.valid_from.toISOString(),
    crossZone,
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
  };
}

/** The per-zone allocation of a stored state, as a list in zone order. */
export function zoneAllocations(row: ServiceStateRow) {
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
