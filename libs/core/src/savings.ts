/**
 * The savings model: what a Service's cross-zone traffic costs per month, without hints and with the
 * hints as they are, and what enabling topology routing would save.
 *
 * What a "cross-zone GB" is. A Service's monthly traffic is the bytes of its requests plus its
 * responses. A byte crosses zones when the client that sent (or received) it runs in another zone than
 * the endpoint that served it; each crossing byte crosses one zone boundary once, whichever direction
 * it flows. The price per cross-zone GB is what the provider bills for one such GB, counting every side
 * it bills:
 *
 * | cloud | price per cross-zone GB | why |
 * | --- | --- | --- |
 * | AWS | $0.02 | $0.01/GB "out" at the sender plus $0.01/GB "in" at the receiver, the same in every commercial region |
 * | Google Cloud | $0.01 | $0.01/GiB inter-zone VM-to-VM data transfer, billed once, on the sending side |
 * | Azure | $0.00 | Azure does not charge for data transfer between availability zones of a region |
 * | unknown | $0.02 | AWS's rate, flagged as a default |
 *
 * Sources (checked 2026): AWS EC2 on-demand pricing, "Data Transfer within the same AWS Region"
 * (https://aws.amazon.com/ec2/pricing/on-demand/); Google Cloud VPC network pricing, "Data transfer
 * within Google Cloud" (https://cloud.google.com/vpc/network-pricing); Azure reliability docs, "What are
 * availability zones?" (https://learn.microsoft.com/azure/reliability/availability-zones-overview).
 * A cluster's own price overrides all of them.
 *
 * Formulas, per Service and month:
 *   crossZoneGb(x) = trafficGb × crossZoneFraction(x)       x = withoutHints | withHints | ifEnabled
 *   cost(x)        = crossZoneGb(x) × pricePerGb
 *   realized       = cost(withoutHints) − cost(withHints)   what the hints as they are save
 *   missed         = cost(withHints) − cost(ifEnabled)      what enabling the CPU heuristic would save
 * The fractions are the traffic model's (`crossZone` of `analyze`): the share of requests that reach an
 * endpoint in another zone; responses are assumed to follow their requests, so bytes cross in the same
 * proportion as requests. When the cluster's traffic source measured the share of a Service's bytes that
 * crossed zones, that measured share replaces the model's for the traffic as routed today (withHints,
 * and `today` of the missed savings); the counterfactuals (withoutHints, ifEnabled) cannot be measured and
 * stay the model's. The model's share is kept beside the measured one (`inputs.modelCrossZone`).
 *
 * Traffic per Service, first found: a value set through the API, the Service annotation
 * `zonewise.io/monthly-traffic-gb`, else 50 GB per ready endpoint per month, flagged as an estimate.
 */
import type { CrossZoneFractions } from './traffic-model.js';

export const MONTHLY_TRAFFIC_ANNOTATION = 'zonewise.io/monthly-traffic-gb';

/**
 * Decision: without a measured or declared volume, each ready endpoint is assumed to serve 50 GB a month
 * (about 19 KB/s around the clock): a modest backend pod. It is a placeholder that scales with the
 * Service's size, so rankings stay meaningful; every figure built on it says it is an estimate.
 */
export const DEFAULT_MONTHLY_GB_PER_ENDPOINT = 50;

export type Cloud = 'aws' | 'gcp' | 'azure' | 'on-prem';
export type PriceSource =
  'cluster-override' | 'organization-override' | 'provider-region' | 'provider-default' | 'unknown-cloud-default';
export type TrafficSource = 'api' | 'measured' | 'annotation' | 'default-per-endpoint';

export interface CrossZonePrice {
  pricePerGb: number;
  currency: 'USD';
  source: PriceSource;
  note: string;
}

export interface ProviderPrice {
  cloud: Cloud;
  /** Price of one GB crossing a zone boundary, every billed side counted. */
  pricePerGb: number;
  /** How the provider bills it. */
  basis: string;
  /** Where the rate is published. */
  url: string;
  /** Currency of the rate. */
  currency: 'USD';
  /** What the source says, in our words (the rate and how it is billed). */
  sourceSays: string;
  /** When the rate was read (ISO date, or year-month when the publication gives no day), and where. */
  sourceDate: string;
  readVia: string;
  /** Regions checked against the published rate (others get the same rate as `provider-default`). */
  regions: readonly string[];
}

/**
 * Decision: the providers bill per GB (AWS) or per GiB (Google Cloud); zonewise applies the list price
 * to its GB unconverted. The 7 % between the two units is far below the accuracy of any traffic volume
 * zonewise is given, and converting would make the figures disagree with the price lists users check.
 *
 * Decision: every region listed is billed at its provider's single published inter-zone rate (the
 * price lists, as checked, give one inter-zone rate per provider for these regions); the per-region table is where a regional rate would go. A
 * region missing from it gets the provider's rate as `provider-default`, so the answer says it was not
 * checked.
 */
const PROVIDER_PRICES: Record<Cloud, ProviderPrice> = {
  aws: {
    cloud: 'aws',
    pricePerGb: 0.02,
    basis: '$0.01/GB out of the sending Availability Zone plus $0.01/GB into the receiving one',
    url: 'https://aws.amazon.com/ec2/pricing/on-demand/',
    currency: 'USD',
    sourceSays:
      'EC2 on-demand pricing, "Data Transfer within the same AWS Region": data crossing Availability Zones in a region is charged $0.01/GB in each direction, the same in every commercial region',
    sourceDate: '2026-05',
    readVia:
      'https://awsnegotiations.com/inter-az-data-transfer-cost-reduction (published May 2026: "a cent per GB in each direction"), which restates the EC2 price list',
    regions: [
      'af-south-1',
      'ap-east-1',
      'ap-northeast-1',
      'ap-northeast-2',
      'ap-northeast-3',
      'ap-south-1',
      'ap-south-2',
      'ap-southeast-1',
      'ap-southeast-2',
      'ap-southeast-3',
      'ap-southeast-4',
      'ap-southeast-5',
      'ca-central-1',
      'ca-west-1',
      'eu-central-1',
      'eu-central-2',
      'eu-north-1',
      'eu-south-1',
      'eu-south-2',
      'eu-west-1',
      'eu-west-2',
      'eu-west-3',
      'il-central-1',
      'me-central-1',
      'me-south-1',
      'mx-central-1',
      'sa-east-1',
      'us-east-1',
      'us-east-2',
      'us-west-1',
      'us-west-2',
    ],
  },
  gcp: {
    cloud: 'gcp',
    pricePerGb: 0.01,
    basis: '$0.01/GiB for VM-to-VM data transfer between zones of a region, billed on the sending side only',
    url: 'https://cloud.google.com/vpc/network-pricing',
    currency: 'USD',
    sourceSays:
      'VPC network pricing, "Data transfer within Google Cloud": inter-zone VM-to-VM data transfer in the same region, $0.01 per GiB (same zone: no charge)',
    sourceDate: '2026-09-20',
    readVia:
      'a transcription of https://cloud.google.com/vpc/network-pricing read on 2026-09-20 (api-evangelist/google-cloud-vpc plans)',
    regions: [
      'africa-south1',
      'asia-east1',
      'asia-east2',
      'asia-northeast1',
      'asia-northeast2',
      'asia-northeast3',
      'asia-south1',
      'asia-south2',
      'asia-southeast1',
      'asia-southeast2',
      'australia-southeast1',
      'australia-southeast2',
      'europe-central2',
      'europe-north1',
      'europe-southwest1',
      'europe-west1',
      'europe-west2',
      'europe-west3',
      'europe-west4',
      'europe-west6',
      'europe-west8',
      'europe-west9',
      'europe-west10',
      'europe-west12',
      'me-central1',
      'me-central2',
      'me-west1',
      'northamerica-northeast1',
      'northamerica-northeast2',
      'southamerica-east1',
      'southamerica-west1',
      'us-central1',
      'us-east1',
      'us-east4',
      'us-east5',
      'us-south1',
      'us-west1',
      'us-west2',
      'us-west3',
      'us-west4',
    ],
  },
  azure: {
    cloud: 'azure',
    pricePerGb: 0,
    basis:
      'no charge for data transfer between availability zones of a region (VNet peering is billed separately and is not modelled)',
    url: 'https://learn.microsoft.com/azure/reliability/availability-zones-overview',
    currency: 'USD',
    sourceSays:
      'Microsoft announced at Build (May 2024) that data transfer between availability zones is not charged, withdrawing the inter-AZ charge it had announced in 2021; VNet peering is billed per GB',
    sourceDate: '2024-05',
    readVia:
      "https://blog.vjirovsky.cz/azure-may-2024-cost-storage/ (May 2024), on the Azure bandwidth pricing page and Microsoft's Build 2024 post",
    regions: [
      'australiaeast',
      'brazilsouth',
      'canadacentral',
      'centralindia',
      'centralus',
      'eastasia',
      'eastus',
      'eastus2',
      'francecentral',
      'germanywestcentral',
      'italynorth',
      'japaneast',
      'koreacentral',
      'northeurope',
      'norwayeast',
      'polandcentral',
      'southafricanorth',
      'southcentralus',
      'southeastasia',
      'swedencentral',
      'switzerlandnorth',
      'uaenorth',
      'uksouth',
      'westeurope',
      'westus2',
      'westus3',
    ],
  },
  'on-prem': {
    cloud: 'on-prem',
    pricePerGb: 0,
    basis: 'no provider bills traffic between zones of your own data centres',
    url: 'https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/',
    currency: 'USD',
    sourceSays:
      'zones on premises are your own racks, rooms or sites: nothing is billed per GB; set an organization or cluster price when your interconnect is metered',
    sourceDate: '2026-11-28',
    readVia: "zonewise's own decision",
    regions: [],
  },
};

/** Decision: a cluster on an unrecognised cloud (or none given) is priced like AWS, the most common and the dearest. */
const UNKNOWN_CLOUD_DEFAULT: Cloud = 'aws';

const CLOUD_ALIASES: Record<string, Cloud> = {
  aws: 'aws',
  amazon: 'aws',
  eks: 'aws',
  gcp: 'gcp',
  google: 'gcp',
  gke: 'gcp',
  azure: 'azure',
  microsoft: 'azure',
  aks: 'azure',
  'on-prem': 'on-prem',
  onprem: 'on-prem',
  'on-premises': 'on-prem',
  'bare-metal': 'on-prem',
  baremetal: 'on-prem',
};

export interface CrossZonePriceInput {
  /** `aws`, `gcp`, `azure` (case-insensitive; `eks`, `gke`, `aks` and the vendor names are accepted). */
  cloud?: string | null;
  region?: string | null;
  /** The cluster's own price per cross-zone GB, in USD; wins when it is a finite number ≥ 0. */
  overridePerGb?: number | null;
  /** The organization's price per cross-zone GB, in USD: wins over the catalogue, not over the cluster's. */
  organizationOverridePerGb?: number | null;
}

/**
 * The price of a cluster's cross-zone GB, first found: the cluster's own price, the organization's, the
 * catalogue's entry for the provider and region, the provider's rate for a region not in the catalogue,
 * and AWS's rate for an unknown cloud (flagged as an estimate). On-prem is 0 (nothing is billed).
 */
export function crossZonePrice({
  cloud,
  region,
  overridePerGb,
  organizationOverridePerGb,
}: CrossZonePriceInput): CrossZonePrice {
  const provider = providerOf(cloud);
  const ignoredOverride = overridePerGb !== undefined && overridePerGb !== null && !isValidGb(overridePerGb);
  if (!ignoredOverride && typeof overridePerGb === 'number') {
    return {
      pricePerGb: overridePerGb,
      currency: 'USD',
      source: 'cluster-override',
      note: 'price set for this cluster',
    };
  }
  const ignored = ignoredOverride ? `ignored the cluster price ${String(overridePerGb)} (not a number ≥ 0); ` : '';
  if (organizationOverridePerGb !== undefined && organizationOverridePerGb !== null) {
    if (isValidGb(organizationOverridePerGb)) {
      return price(organizationOverridePerGb, 'organization-override', `${ignored}price set for the organization`);
    }
  }
  if (provider === null) {
    const fallback = PROVIDER_PRICES[UNKNOWN_CLOUD_DEFAULT];
    const named = cloud ? `unknown cloud ${JSON.stringify(cloud)}` : 'no cloud given';
    return price(
      fallback.pricePerGb,
      'unknown-cloud-default',
      `${ignored}${named}: priced like AWS (${fallback.basis})`,
    );
  }
  if (provider.cloud === 'on-prem') {
    return price(0, 'provider-default', `${ignored}on-prem: ${provider.basis}`);
  }
  const regionName = region?.trim().toLowerCase() ?? '';
  if (regionName !== '' && provider.regions.includes(regionName)) {
    return price(
      provider.pricePerGb,
      'provider-region',
      `${ignored}${cloudTitle(provider.cloud)} ${regionName}: ${provider.basis}`,
    );
  }
  const which = regionName === '' ? 'no region given' : `region ${JSON.stringify(regionName)} not in zonewise's table`;
  return price(
    provider.pricePerGb,
    'provider-default',
    `${ignored}${cloudTitle(provider.cloud)}, ${which}: the provider's standard rate (${provider.basis})`,
  );
}

function price(pricePerGb: number, source: PriceSource, note: string): CrossZonePrice {
  return { pricePerGb, currency: 'USD', source, note };
}

function providerOf(cloud: string | null | undefined): ProviderPrice | null {
  const alias = CLOUD_ALIASES[cloud?.trim().toLowerCase() ?? ''];
  return alias === undefined ? null : PROVIDER_PRICES[alias];
}

function cloudTitle(cloud: Cloud): string {
  return cloud === 'aws' ? 'AWS' : cloud === 'gcp' ? 'Google Cloud' : cloud === 'azure' ? 'Azure' : 'On-prem';
}

/** The catalogue: every provider's entry with its source and date (copies; changing them changes nothing). */
export function priceCatalogue(): ProviderPrice[] {
  return Object.values(PROVIDER_PRICES).map((entry) => ({ ...entry, regions: [...entry.regions] }));
}

// ---------------------------------------------------------------------------------------------
// Traffic per Service
// ---------------------------------------------------------------------------------------------

export interface MonthlyTraffic {
  gb: number;
  source: TrafficSource;
  /** true when the volume is zonewise's default, not a value someone gave. */
  estimate: boolean;
  note: string;
}

export interface MonthlyTrafficInput {
  /** A volume set through the API for this Service (GB per month). */
  explicitGb?: number | null;
  /** The Service's `metadata.annotations`. */
  annotations?: Readonly<Record<string, string>> | null;
  /** Ready endpoints of the Service (the analysis' `readyEndpoints`). */
  readyEndpoints: number;
  /** A volume measured by the cluster's traffic source; `note` says source, query and window. */
  measured?: { gb: number; note: string } | null;
}

export function monthlyTrafficGb({
  explicitGb,
  annotations,
  readyEndpoints,
  measured,
}: MonthlyTrafficInput): MonthlyTraffic {
  const ignored: string[] = [];
  if (explicitGb !== undefined && explicitGb !== null) {
    if (isValidGb(explicitGb)) return { gb: explicitGb, source: 'api', estimate: false, note: 'set through the API' };
    ignored.push(`ignored the API value ${String(explicitGb)}: expected a number of GB ≥ 0`);
  }
  if (measured && isValidGb(measured.gb)) {
    return { gb: measured.gb, source: 'measured', estimate: false, note: measured.note };
  }
  const text = annotations?.[MONTHLY_TRAFFIC_ANNOTATION];
  if (text !== undefined && text !== null) {
    const gb = parseGb(text);
    if (gb !== null) {
      return {
        gb,
        source: 'annotation',
        estimate: false,
        note: `from the Service annotation ${MONTHLY_TRAFFIC_ANNOTATION}`,
      };
    }
    ignored.push(`ignored ${MONTHLY_TRAFFIC_ANNOTATION}: ${JSON.stringify(text)}: expected a number of GB ≥ 0`);
  }
  const endpoints = Number.isFinite(readyEndpoints) && readyEndpoints > 0 ? Math.floor(readyEndpoints) : 0;
  const estimate = `estimate: ${DEFAULT_MONTHLY_GB_PER_ENDPOINT} GB per ready endpoint × ${endpoints} ready endpoint${endpoints === 1 ? '' : 's'}`;
  return {
    gb: endpoints * DEFAULT_MONTHLY_GB_PER_ENDPOINT,
    source: 'default-per-endpoint',
    estimate: true,
    note: [...ignored, estimate].join('; '),
  };
}

/** A plain decimal, optionally with an exponent (`120`, `0.5`, `1.5e3`); no sign, no units, finite. */
const GB_PATTERN = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function parseGb(text: string): number | null {
  const trimmed = text.trim();
  if (!GB_PATTERN.test(trimmed)) return null;
  const gb = Number(trimmed);
  return isValidGb(gb) ? gb : null;
}

function isValidGb(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

// ---------------------------------------------------------------------------------------------
// Cost and savings of one Service
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// The model, for the API and the README
// ---------------------------------------------------------------------------------------------

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
