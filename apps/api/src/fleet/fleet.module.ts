import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { ReadModelCacheModule } from '../cache/read-model-cache.module.js';
import { FleetController } from './fleet.controller.js';
import { FleetService } from './fleet.service.js';
import { ClusterResolver } from './cluster.resolver.js';
import { FleetResolver } from './fleet.resolver.js';

/** The fleet: every cluster of the organization at a glance. */
@Module({
  imports: [AuthModule, ReadDbModule, ReadModelCacheModule],
  controllers: [FleetController],
  providers: [FleetService, FleetResolver, ClusterResolver],
  exports: [FleetService],
})
export class FleetModule {}
