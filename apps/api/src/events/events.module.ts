import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadModelCache } from '../cache/read-model-cache.js';
import { MetricsModule } from '../ops/metrics.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { ApiRedisModule } from '../redis.provider.js';
import { EventsController } from './events.controller.js';
import { LiveEventStream } from './live-event-stream.js';
import { StreamCaps } from './stream-caps.js';

/**
 * Live events: the stream the dashboard follows, and the read-model cache it invalidates on every API
 * replica when a cluster changes.
 */
@Module({
  imports: [AuthModule, ReadDbModule, ApiRedisModule, MetricsModule],
  controllers: [EventsController],
  providers: [LiveEventStream, StreamCaps, ReadModelCache],
  exports: [LiveEventStream, ReadModelCache],
})
export class EventsModule {}
