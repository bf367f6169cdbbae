import { Inject, UseGuards } from '@nestjs/common';
import { Args, Field, Float, ID, Mutation, ObjectType, Query, Resolver } from '@nestjs/graphql';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { ApiKeyGuard, RequireRole } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { parseInput } from '../http/validation.js';
import { SetOrganizationPriceBody } from './pricing.schemas.js';
import { PricingService } from './pricing.service.js';

/** GraphQL types of prices (code-first): the shapes of GET /v1/pricing. */
@ObjectType('PriceCatalogueEntry', { description: "one provider's price per cross-zone GB, with its source" })
export class PriceCatalogueEntryModel {
  @Field({ description: '`aws`, `gcp`, `azure` or `on-prem`' }) cloud: string;
  @Field(() => Float, { description: 'every billed side counted' }) pricePerGb: number;
  @Field() currency: string;
  @Field({ description: 'how the provider bills it' }) basis: string;
  @Field({ description: 'where the rate is published' }) url: string;
  @Field() sourceSays: string;
  @Field({ description: 'when the rate was read (ISO date, or year-month)' }) sourceDate: string;
  @Field() readVia: string;
  @Field(() => [String]) regions: string[];
}

@ObjectType('ClusterPrice', { description: 'the price a cluster is costed at, and where it comes from' })
export class ClusterPriceModel {
  @Field(() => Float) pricePerGb: number;
  @Field() currency: string;
  @Field({
    description:
      '`cluster-override`, `organization-override`, `provider-region`, `provider-default` or `unknown-cloud-default`',
  })
  source: string;
  @Field() note: string;
  @Field(() => Float, { nullable: true, description: "the cluster's own price, when set" })
  overridePerGb: number | null;
}

@ObjectType('PricedCluster')
export class PricedClusterModel {
  @Field(() => ID) id: string;
  @Field() name: string;
  @Field() cloud: string;
  @Field(() => String, { nullable: true }) region: string | null;
  @Field(() => ClusterPriceModel) pricing: ClusterPriceModel;
}

@ObjectType('OrganizationPrice')
export class OrganizationPriceModel {
  @Field(() => Float, { nullable: true, description: "the organization's price (null: the catalogue's)" })
  crossZonePricePerGb: number | null;
}

@ObjectType('OrganizationPricing', { description: 'REST: GET /v1/pricing' })
export class OrganizationPricingModel {
  @Field({ description: 'the currency of every price and every cost' }) currency: string;
  @Field(() => [PriceCatalogueEntryModel]) catalogue: PriceCatalogueEntryModel[];
  @Field(() => OrganizationPriceModel) organization: OrganizationPriceModel;
  @Field(() => [PricedClusterModel]) clusters: PricedClusterModel[];
}

/** The price catalogue and the organization's price: read by every role, set by an operator (audited). */
@Resolver()
@UseGuards(ApiKeyGuard)
export class PricingResolver {
  constructor(@Inject(PricingService) private readonly service: PricingService) {}

  @Query(() => OrganizationPricingModel, {
    description:
      "the price catalogue (per provider, with sources and dates), the organization's price and each cluster's",
  })
  pricing(@CurrentCaller() caller: Caller): Promise<OrganizationPricingModel> {
    return this.service.get(caller.organizationId);
  }

  @Mutation(() => OrganizationPricingModel, {
    description:
      "set (or, with null, remove) the organization's price per cross-zone GB, over the catalogue; a cluster's own price still wins (operator)",
  })
  @RequireRole('operator')
  setOrganizationPrice(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('crossZonePricePerGb', { type: () => Float, nullable: true }) crossZonePricePerGb?: number | null,
  ): Promise<OrganizationPricingModel> {
    // Absent (not null) is refused as REST refuses a body without the field: clearing is said explicitly.
    const body = parseInput(SetOrganizationPriceBody, { crossZonePricePerGb }, 'body');
    return this.service.setOrganizationPrice(caller.organizationId, body.crossZonePricePerGb, actor);
  }
}
