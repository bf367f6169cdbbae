import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { ReadModelCacheModule } from '../cache/read-model-cache.module.js';
import { RecommendationsModule } from '../recommendations/recommendations.module.js';
import { ServicesController } from './services.controller.js';
import { ClusterStateController } from './cluster-state.controller.js';
import { ServicesService } from './services.service.js';
import { LiveViewService } from './live-view.service.js';
import { ServiceResolver } from './service.resolver.js';

/** A cluster's Services: the list, one Service's state and timeline, per-zone state, traffic overrides. */
@Module({
  imports: [AuthModule, ReadDbModule, ReadModelCacheModule, RecommendationsModule],
  controllers: [ServicesController, ClusterStateController],
  providers: [ServicesService, LiveViewService, ServiceResolver],
  exports: [ServicesService, LiveViewService],
})
export class ServicesModule {}
