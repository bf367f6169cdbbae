import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ServicesModule } from '../services/services.module.js';
import { SimulateController } from './simulate.controller.js';
import { ClusterSimulateController } from './cluster-simulate.controller.js';
import { ClusterSimulateService } from './cluster-simulate.service.js';
import { ClusterSimulateResolver } from './cluster-simulate.resolver.js';

/** What-ifs: a posted snapshot analysed, or a stored cluster with a change applied. */
@Module({
  imports: [AuthModule, ServicesModule],
  controllers: [SimulateController, ClusterSimulateController],
  providers: [ClusterSimulateService, ClusterSimulateResolver],
  exports: [ClusterSimulateService],
})
export class SimulateModule {}
