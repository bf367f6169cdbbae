import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule, Provider } from '@nestjs/common';
import { queueRegistration, TRAFFIC_QUEUE } from '@zw/queue';
import type { WorkerConfig } from '../config.js';
import { trafficConfigProvider, trafficKeyringProvider } from './traffic-config.js';
import { TrafficMeasurer } from './traffic-measurer.service.js';
import { TrafficScheduler } from './traffic-scheduler.service.js';
import { TrafficProcessor } from './traffic.processor.js';

/** Measured traffic in the worker: its queue, the clusters' job schedulers, the measurement. */
export function trafficWorkerImports(config: WorkerConfig): DynamicModule[] {
  return [BullModule.registerQueue(queueRegistration(config.REDIS_URL, config.QUEUE_PREFIX, TRAFFIC_QUEUE))];
}

export const trafficWorkerProviders: Provider[] = [
  trafficConfigProvider,
  trafficKeyringProvider,
  TrafficScheduler,
  TrafficMeasurer,
  TrafficProcessor,
];
