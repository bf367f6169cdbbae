import { Module } from '@nestjs/common';
import { ApiRedisModule } from '../redis.provider.js';
import { QueueAvailability } from './queue-availability.js';

/** Whether the queues are reachable, for the routes that must answer 503 without them. */
@Module({ imports: [ApiRedisModule], providers: [QueueAvailability], exports: [QueueAvailability] })
export class QueueAvailabilityModule {}
