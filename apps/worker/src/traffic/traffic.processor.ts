import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import { MEASURE_TRAFFIC_JOB, SYNC_TRAFFIC_SOURCE_JOB, TRAFFIC_QUEUE, type TrafficJobData } from '@zw/queue';
import type { Job } from 'bullmq';
import { JobMetricsRecorder } from '../job-metrics.js';
import { TrafficMeasurer } from './traffic-measurer.service.js';
import { TrafficScheduler } from './traffic-scheduler.service.js';

/** Runs the traffic queue: scheduled measurements, and syncs the API asks for after a change. */
@Processor(TRAFFIC_QUEUE, { concurrency: 4 })
export class TrafficProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    @Inject(TrafficMeasurer) private readonly measurer: TrafficMeasurer,
    @Inject(TrafficScheduler) private readonly scheduler: TrafficScheduler,
    @Inject(JobMetricsRecorder) private readonly metrics: JobMetricsRecorder,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.metrics.attach(this.worker, TRAFFIC_QUEUE);
  }

  async process(job: Job<TrafficJobData>): Promise<unknown> {
    if (job.name === MEASURE_TRAFFIC_JOB) return this.measurer.measure(job.data.clusterId);
    if (job.name === SYNC_TRAFFIC_SOURCE_JOB) {
      const { configured, scheduled } = await this.scheduler.sync(job.data.clusterId);
      if (!configured) return { measured: false, reason: 'source removed' };
      // A new scheduler's first run measures now; one measurement per change, not two.
      if (scheduled) return { measured: false, reason: 'the new schedule measures now' };
      return this.measurer.measure(job.data.clusterId);
    }
    throw new Error(`unknown traffic job "${job.name}"`);
  }
}
