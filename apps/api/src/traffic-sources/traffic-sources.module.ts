import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { ReadModelCacheModule } from '../cache/read-model-cache.module.js';
import { ServicesModule } from '../services/services.module.js';
import { QueryQueuesModule } from '../queues.js';
import { QueueAvailabilityModule } from '../http/queue-availability.module.js';
import { TrafficSourcesController } from './traffic-sources.controller.js';
import { trafficConfigProvider, trafficKeyringProvider } from './traffic-config.js';
import { TrafficSourcesService } from './traffic-sources.service.js';

/** Each cluster's traffic source: its settings, a test, and what it measured. */
@Module({
  imports: [AuthModule, ReadDbModule, ReadModelCacheModule, ServicesModule, QueryQueuesModule, QueueAvailabilityModule],
  controllers: [TrafficSourcesController],
  providers: [trafficConfigProvider, trafficKeyringProvider, TrafficSourcesService],
})
export class TrafficSourcesModule {}
