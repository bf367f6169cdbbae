import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { ApiRedisModule } from '../redis.provider.js';
import { EventsController } from './events.controller.js';
import { LiveEventStream } from './live-event-stream.js';
import { StreamCaps } from './stream-caps.js';

/** Live events: the stream the dashboard follows, which also tells every API replica what changed. */
@Module({
  imports: [AuthModule, ReadDbModule, ApiRedisModule],
  controllers: [EventsController],
  providers: [LiveEventStream, StreamCaps],
  exports: [LiveEventStream],
})
export class EventsModule {}
