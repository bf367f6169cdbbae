import { Inject, Injectable } from '@nestjs/common';
import { priceCatalogue } from '@zw/core';
import {
  type AuditActor,
  type Cloud,
  organizationPriceOf,
  organizationPrices,
  PrismaService,
  recordAudit,
  setOrganizationPrice,
} from '@zw/db';
import { ReadModelCache } from '../cache/read-model-cache.js';
import { clusterPricing } from '../cluster-pricing.js';
import type { OrganizationPricingView } from './pricing.schemas.js';

const numberOrNull = (value: { toString(): string } | null) => (value === null ? null : Number(value));

/** The price catalogue, the organization's price and each cluster's effective price. */
@Injectable()
export class PricingService {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ReadModelCache) private readonly cache: ReadModelCache,
  ) {}

  async get(organizationId: string): Promise<OrganizationPricingView> {
    const organization = await organizationPrices(this.prisma, organizationId);
    const organizationPricePerGb = numberOrNull(organization.crossZonePricePerGb);
    return {
      currency: 'USD',
      catalogue: priceCatalogue().map((entry) => ({ ...entry, regions: [...entry.regions] })),
      organization: { crossZonePricePerGb: organizationPricePerGb },
      clusters: organization.clusters.map((cluster) => ({
        id: cluster.id,
        name: cluster.name,
        cloud: cluster.cloud,
        region: cluster.region,
        pricing: clusterPricing({
          cloud: cluster.cloud as Cloud,
          region: cluster.region,
          crossZonePricePerGb: numberOrNull(cluster.crossZonePricePerGb),
          organizationPricePerGb,
        }),
      })),
    };
  }

  /** Sets (or, with null, removes) the organization's price; audited; every cached figure is dropped. */
  async setOrganizationPrice(
    organizationId: string,
    pricePerGb: number | null,
    actor: AuditActor,
  ): Promise<OrganizationPricingView> {
    await this.prisma.$transaction(async (tx) => {
      const before = await organizationPriceOf(tx, organizationId);
      await setOrganizationPrice(tx, organizationId, pricePerGb);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'organization.price_change',
        targetType: 'organization',
        targetId: organizationId,
        details: { crossZonePricePerGb: { from: numberOrNull(before), to: pricePerGb } },
      });
    });
    await this.cache.changed({ organizationId });
    return this.get(organizationId);
  }
}
