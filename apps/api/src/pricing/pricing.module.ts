import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadModelCacheModule } from '../cache/read-model-cache.module.js';
import { PricingController } from './pricing.controller.js';
import { PricingService } from './pricing.service.js';

/** The price catalogue and the organization's price per cross-zone GB. */
@Module({
  imports: [AuthModule, ReadModelCacheModule],
  controllers: [PricingController],
  providers: [PricingService],
})
export class PricingModule {}
