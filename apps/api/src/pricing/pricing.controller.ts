import { Body, Controller, Get, Inject, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { ApiKeyAuth, OperatorOnly } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiResponseFrom } from '../http/openapi.js';
import { parseInput } from '../http/validation.js';
import {
  OrganizationPricingSchema,
  type OrganizationPricingView,
  SetOrganizationPriceBody,
} from './pricing.schemas.js';
import { PricingService } from './pricing.service.js';

@ApiTags('pricing')
@ApiKeyAuth()
@Controller('v1/pricing')
export class PricingController {
  constructor(@Inject(PricingService) private readonly pricing: PricingService) {}

  @Get()
  @ApiOperation({
    summary: "The price catalogue (per provider, with sources and dates), the organization's price and each cluster's",
  })
  @ApiResponseFrom(200, OrganizationPricingSchema, 'the prices and where each comes from')
  get(@CurrentCaller() caller: Caller): Promise<OrganizationPricingView> {
    return this.pricing.get(caller.organizationId);
  }

  @Put()
  @OperatorOnly()
  @ApiOperation({
    summary: "Set the organization's price per cross-zone GB (over the catalogue; a cluster's own price still wins)",
    description: "A cluster's own price is set with PATCH /v1/clusters/{id} `crossZonePricePerGb` (operator).",
  })
  @ApiBodyFrom(SetOrganizationPriceBody)
  @ApiResponseFrom(200, OrganizationPricingSchema, 'the prices as changed')
  set(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Body() body: unknown,
  ): Promise<OrganizationPricingView> {
    const { crossZonePricePerGb } = parseInput(SetOrganizationPriceBody, body, 'body');
    return this.pricing.setOrganizationPrice(caller.organizationId, crossZonePricePerGb, actor);
  }
}
