import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadModelCacheModule } from '../cache/read-model-cache.module.js';
import { PricingController } from './pricing.controller.js';
import { PricingResolver } from './pricing.graphql.js';
import { PricingService } from './pricing.service.js';

/** The price catalogue and the organization's price per cross-zone GB (REST and GraphQL). */
@Module({
  imports: [AuthModule, ReadModelCacheModule],
  controllers: [PricingController],
  providers: [PricingService, PricingResolver],
})
export class PricingModule {}
