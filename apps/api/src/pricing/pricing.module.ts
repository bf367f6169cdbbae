import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { EventsModule } from '../events/events.module.js';
import { PricingController } from './pricing.controller.js';
import { PricingService } from './pricing.service.js';

/** The price catalogue and the organization's price per cross-zone GB. */
@Module({
  imports: [AuthModule, EventsModule],
  controllers: [PricingController],
  providers: [PricingService],
})
export class PricingModule {}
