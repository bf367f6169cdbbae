import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { TrendsController } from './trends.controller.js';
import { TrendsService } from './trends.service.js';
import { TrendsResolver } from './trends.resolver.js';

/** Trends of the fleet and of a cluster, in UTC buckets. */
@Module({
  imports: [AuthModule, ReadDbModule],
  controllers: [TrendsController],
  providers: [TrendsService, TrendsResolver],
  exports: [TrendsService],
})
export class TrendsModule {}
