import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { queueRegistration } from '@zw/queue';
import type { ApiConfig } from './config.js';

/** Registers queues the API adds jobs to, each with its prefix (a hash tag of its own on a Redis Cluster). */
export function registerQueues(...names: string[]): DynamicModule {
  return BullModule.registerQueueAsync(
    ...names.map((name) => ({
      name,
      inject: [ConfigService],
      useFactory: (config: ConfigService<ApiConfig, true>) =>
        queueRegistration(config.get('REDIS_URL', { infer: true }), config.get('QUEUE_PREFIX', { infer: true }), name),
    })),
  );
}
