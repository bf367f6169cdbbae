/**
 * The dashboard's words for states and figures, one per meaning on every page (pages.e2e.spec checks
 * the pages use them); the API's documentation names them beside its values.
 *
 * Hint states: the API's `removed` is the state in which the EndpointSlice controller refused (removed)
 * the hints, called "refused" (and drawn red); `none` is a Service that does not ask for topology routing.
 */
export type HintState = 'populated' | 'removed' | 'none';

export const HINT_STATE_WORDS: Record<HintState, string> = {
  populated: 'populated',
  removed: 'refused',
  none: 'no routing',
};

export function hintStateWord(state: string): string {
  return HINT_STATE_WORDS[state as HintState] ?? state;
}

/**
 * Savings have two meanings, named apart everywhere: a monthly figure at today's traffic and routing
 * (the fleet, a cluster, the API's `monthly`) is the run-rate; a figure over a past range (the Savings
 * page, reports, `GET /v1/savings`) is history, what was saved so far.
 */
export const RUN_RATE = 'run-rate';
export const HISTORY = 'so far';

/**
 * Where a cluster's price per cross-zone GB comes from (the API's `pricing.source`): its own override, the
 * organization's, or the catalogue (for its region, its cloud, or an unknown cloud priced like AWS).
 */
export type PriceSource =
  'cluster-override' | 'organization-override' | 'provider-region' | 'provider-default' | 'unknown-cloud-default';

export const PRICE_SOURCE_WORDS: Record<PriceSource, string> = {
  'cluster-override': 'cluster override',
  'organization-override': 'organization',
  'provider-region': 'catalogue (region)',
  'provider-default': 'catalogue',
  'unknown-cloud-default': 'catalogue (unknown cloud, estimated as AWS)',
};

export function priceSourceWord(source: string): string {
  return PRICE_SOURCE_WORDS[source as PriceSource] ?? source;
}
