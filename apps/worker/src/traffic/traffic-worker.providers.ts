import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule, Provider } from '@nestjs/common';
import { TRAFFIC_QUEUE } from '@zw/queue';
import { trafficConfigProvider } from './traffic-config.js';
import { TrafficMeasurer } from './traffic-measurer.service.js';
import { TrafficScheduler } from './traffic-scheduler.service.js';
import { TrafficProcessor } from './traffic.processor.js';

/** Measured traffic in the worker: its queue, the clusters' job schedulers, the measurement. */
export const trafficWorkerImports: DynamicModule[] = [BullModule.registerQueue({ name: TRAFFIC_QUEUE })];

export const trafficWorkerProviders: Provider[] = [
  trafficConfigProvider,
  TrafficScheduler,
  TrafficMeasurer,
  TrafficProcessor,
];
