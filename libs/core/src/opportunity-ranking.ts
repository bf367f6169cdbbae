/**
 * Which Services without topology routing would save the most by enabling it, from their previews
 * (opportunity.ts, routing-previews.ts).
 */
import { byteOrder } from './lists.js';
import type { MonthlyTraffic } from './monthly-traffic.js';
import type { Routing } from './routing-mode.js';
import type { CrossZonePrice } from './savings.js';
import { type MissedSavings, missedSavings, type RoutingPreviewOutcome } from './service-cost.js';
import type { CrossZoneFractions } from './traffic-model.js';

export interface OpportunityCandidate {
  namespace: string;
  name: string;
  /** The Service's routing today (the analysis' `routing`). */
  routing: Routing;
  /** GB per month (a {@link MonthlyTraffic} keeps its provenance). */
  traffic: number | MonthlyTraffic;
  /** Cross-zone fractions today (the analysis' `crossZone`). */
  crossZone: CrossZoneFractions;
  /** {@link autoRoutingPreview}'s answer for the Service. */
  preview: RoutingPreviewOutcome;
}

export interface Opportunity {
  namespace: string;
  name: string;
  missed: MissedSavings;
}

/**
 * The Services without topology routing for which enabling it would populate hints, largest estimated
 * saving first, ties by namespace then name (byte order).
 *
 * Decision: a Service that already asks for routing (`Auto` or a `trafficDistribution`) is no
 * opportunity, even when its hints are removed: enabling what is already enabled changes nothing, and
 * the reason is reported with its hint state. A Service whose preview would be removed is left out too;
 * one that would populate hints is kept even when its saving is 0 (no traffic, or no crossing), so the
 * list answers "which Services could route in-zone".
 *
 * Decision: equal costs (a free cloud such as Azure prices every saving at 0) are ranked by the
 * cross-zone GB saved before the names, so the ranking still says where the traffic would stay.
 */
export function rankOpportunities(
  candidates: readonly OpportunityCandidate[],
  pricePerGb: number | CrossZonePrice,
): Opportunity[] {
  return candidates
    .filter((candidate) => candidate.routing === 'None' && candidate.preview.state === 'populated')
    .map((candidate) => ({
      namespace: candidate.namespace,
      name: candidate.name,
      missed: missedSavings({
        trafficGb: candidate.traffic,
        pricePerGb,
        current: candidate.crossZone,
        ifEnabled: candidate.preview,
      }),
    }))
    .sort(bySavingsThenName);
}

function bySavingsThenName(a: Opportunity, b: Opportunity): number {
  const bySavings = b.missed.savings.cost - a.missed.savings.cost;
  if (bySavings !== 0) return bySavings;
  const byCrossZoneGb = b.missed.savings.crossZoneGb - a.missed.savings.crossZoneGb;
  if (byCrossZoneGb !== 0) return byCrossZoneGb;
  return byteOrder(a.namespace, b.namespace) || byteOrder(a.name, b.name);
}
