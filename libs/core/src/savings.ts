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
 * This module is the price per cross-zone GB. Traffic per Service is monthly-traffic.ts; the cost and
 * savings of one Service, service-cost.ts; the model as the API and the README describe it,
 * pricing-model-description.ts.
 */
import { isValidGb } from './monthly-traffic.js';

export type Cloud = 'aws' | 'gcp' | 'azure' | 'on-prem';
export type PriceSource =
  'cluster-override' | 'organization-override' | 'provider-region' | 'provider-default' | 'unknown-cloud-default';

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
export const PROVIDER_PRICES: Record<Cloud, ProviderPrice> = {
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
export const UNKNOWN_CLOUD_DEFAULT: Cloud = 'aws';

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

export function cloudTitle(cloud: Cloud): string {
  return cloud === 'aws' ? 'AWS' : cloud === 'gcp' ? 'Google Cloud' : cloud === 'azure' ? 'Azure' : 'On-prem';
}

/** The catalogue: every provider's entry with its source and date (copies; changing them changes nothing). */
export function priceCatalogue(): ProviderPrice[] {
  return Object.values(PROVIDER_PRICES).map((entry) => ({ ...entry, regions: [...entry.regions] }));
}
