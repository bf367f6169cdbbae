import { type CrossZonePrice, crossZonePrice } from '@zw/core';
import { type Cloud, clusterPriceRows, type ReadDb } from '@zw/db';

export interface ClusterPricingInput {
  cloud: Cloud;
  region: string | null;
  crossZonePricePerGb: number | null;
  /** The organization's price (over the catalogue; the cluster's wins over it). */
  organizationPricePerGb: number | null;
}

export interface ClusterPricing extends CrossZonePrice {
  /** The cluster's own price, when one is set (it then wins). */
  overridePerGb: number | null;
}

/**
 * The price per cross-zone GB of a cluster: its own when set, else its organization's, else its cloud's
 * list price (core's catalogue; on-prem is 0).
 */
export function clusterPricing(cluster: ClusterPricingInput): ClusterPricing {
  return {
    ...crossZonePrice({
      // `other` is no provider the price table knows: priced as an unknown cloud, and said so.
      cloud: cluster.cloud === 'other' ? null : cluster.cloud,
      region: cluster.region,
      overridePerGb: cluster.crossZonePricePerGb,
      organizationOverridePerGb: cluster.organizationPricePerGb,
    }),
    overridePerGb: cluster.crossZonePricePerGb,
  };
}

export interface PricedCluster {
  id: string;
  name: string;
  pricing: ClusterPricing;
}

/** An organization's clusters (or the one named, when it is the organization's) by name, each priced. */
export async function pricedClusters(db: ReadDb, organizationId: string, clusterId?: string): Promise<PricedCluster[]> {
  const rows = await clusterPriceRows(db, organizationId, clusterId);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    pricing: clusterPricing({
      cloud: row.cloud,
      region: row.region,
      crossZonePricePerGb: row.price_override,
      organizationPricePerGb: row.org_price_override,
    }),
  }));
}
