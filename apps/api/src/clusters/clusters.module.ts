import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadModelCacheModule } from '../cache/read-model-cache.module.js';
import { ClustersController } from './clusters.controller.js';
import { ClustersService } from './clusters.service.js';

/** Clusters: registering, settings, agent tokens, removal. */
@Module({
  imports: [AuthModule, ReadModelCacheModule],
  controllers: [ClustersController],
  providers: [ClustersService],
})
export class ClustersModule {}
