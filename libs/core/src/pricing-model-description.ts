/**
 * The savings model (savings.ts) described for the API and the README: what a cross-zone GB is, each
 * provider's price, where a Service's traffic comes from, and the formulas, as fields and as Markdown.
 */
import { DEFAULT_MONTHLY_GB_PER_ENDPOINT, MONTHLY_TRAFFIC_ANNOTATION } from './monthly-traffic.js';
import { cloudTitle, PROVIDER_PRICES, type ProviderPrice, UNKNOWN_CLOUD_DEFAULT } from './savings.js';

export interface PricingModelDescription {
  crossZoneGb: string;
  formulas: string[];
  traffic: string[];
  defaultMonthlyGbPerEndpoint: number;
  trafficAnnotation: string;
  prices: ProviderPrice[];
  unknownCloud: string;
  /** The whole description as Markdown. */
  markdown: string;
}

const CROSS_ZONE_GB_TEXT =
  'A cross-zone GB is one GB of a Service’s traffic (requests plus responses) exchanged between a client and an endpoint in different zones. Its price counts every side the provider bills: AWS bills $0.01/GB leaving one Availability Zone and $0.01/GB entering the other, so $0.02; Google Cloud bills $0.01/GiB once, on the sending side; Azure does not charge between availability zones. A cluster’s own price overrides the provider’s.';

const FORMULAS = [
  'crossZoneGb = trafficGb × crossZone fraction (withoutHints, withHints, or ifEnabled with topology-mode Auto)',
  'cost = crossZoneGb × price per cross-zone GB',
  'realized savings = cost without hints − cost with the hints as they are',
  'missed savings = cost with the hints as they are − cost with topology-mode Auto (only when the controller would populate hints)',
  "with hints as they are, a Service's measured cross-zone share (from its traffic source) replaces the model's; without hints and with topology-mode Auto stay the model's",
];

const TRAFFIC_TEXT = [
  'a value set through the API for the Service',
  "else the volume measured by the cluster's traffic source (Prometheus), GB per month over its window",
  `else the Service annotation ${MONTHLY_TRAFFIC_ANNOTATION} (GB per month; a bad value is ignored and said so)`,
  `else ${DEFAULT_MONTHLY_GB_PER_ENDPOINT} GB per ready endpoint per month, flagged as an estimate`,
];

export function describePricingModel(): PricingModelDescription {
  const prices = Object.values(PROVIDER_PRICES).map((entry) => ({ ...entry, regions: [...entry.regions] }));
  const unknownCloud = `an unknown or missing cloud is priced like AWS ($${PROVIDER_PRICES[UNKNOWN_CLOUD_DEFAULT].pricePerGb}/GB) and flagged (source unknown-cloud-default)`;
  const markdown = [
    '## The savings model',
    '',
    CROSS_ZONE_GB_TEXT,
    '',
    '| cloud | USD per cross-zone GB | basis | source |',
    '| --- | --- | --- | --- |',
    ...prices.map(
      (entry) => `| ${cloudTitle(entry.cloud)} | ${entry.pricePerGb.toFixed(2)} | ${entry.basis} | ${entry.url} |`,
    ),
    '',
    `Unknown cloud: ${unknownCloud}.`,
    '',
    'Traffic per Service, first found:',
    ...TRAFFIC_TEXT.map((line, index) => `${index + 1}. ${line}`),
    '',
    'Formulas, per Service and month:',
    ...FORMULAS.map((line) => `- ${line}`),
    '',
    'The crossZone fractions are the traffic model’s share of requests that reach an endpoint in another zone; responses follow their requests.',
  ].join('\n');
  return {
    crossZoneGb: CROSS_ZONE_GB_TEXT,
    formulas: [...FORMULAS],
    traffic: [...TRAFFIC_TEXT],
    defaultMonthlyGbPerEndpoint: DEFAULT_MONTHLY_GB_PER_ENDPOINT,
    trafficAnnotation: MONTHLY_TRAFFIC_ANNOTATION,
    prices,
    unknownCloud,
    markdown,
  };
}
