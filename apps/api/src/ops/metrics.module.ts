import { Module } from '@nestjs/common';
import { QueryQueuesModule } from '../queues.js';
import { ReadDbModule } from '../read-db.module.js';
import { ApiRedisModule } from '../redis.provider.js';
import { MetricsServer } from './metrics-server.js';
import { MetricsService } from './metrics.service.js';

/** The API's Prometheus metrics, and the server of their own port that answers scrapes. */
@Module({
  imports: [QueryQueuesModule, ApiRedisModule, ReadDbModule],
  providers: [MetricsService, MetricsServer],
  exports: [MetricsService, MetricsServer],
})
export class MetricsModule {}
