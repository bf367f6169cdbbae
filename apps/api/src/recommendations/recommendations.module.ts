import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { RecommendationsController } from './recommendations.controller.js';
import { RecommendationsService } from './recommendations.service.js';
import { RecommendationsResolver } from './recommendations.resolver.js';

/** Ranked fixes of a cluster and of the fleet (REST and GraphQL). */
@Module({
  imports: [AuthModule, ReadDbModule],
  controllers: [RecommendationsController],
  providers: [RecommendationsService, RecommendationsResolver],
  exports: [RecommendationsService],
})
export class RecommendationsModule {}
