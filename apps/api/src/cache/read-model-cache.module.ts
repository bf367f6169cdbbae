import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { MetricsModule } from '../ops/metrics.module.js';
import { ApiRedisModule } from '../redis.provider.js';
import { ReadModelCache } from './read-model-cache.js';

/** Answers of the read model kept for a while, dropped on every API replica when their cluster changes. */
@Module({
  imports: [EventsModule, MetricsModule, ApiRedisModule],
  providers: [ReadModelCache],
  exports: [ReadModelCache],
})
export class ReadModelCacheModule {}
