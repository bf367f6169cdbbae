import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WorkerConfig } from './config.js';
import { WORKER_CONFIG } from './worker-config.token.js';
import { WORKER_REDIS } from './worker-redis.js';

/**
 * Job durations and failures, kept in Redis so the API's /metrics can expose the whole pipeline without
 * scraping every worker. Layout (apps/api/src/ops/job-metrics.ts reads it; the metrics test checks the two
 * agree end to end): one hash per queue at `<QUEUE_PREFIX>:zw-metrics:<queue>` with `completed`,
 * `failed_attempts`, `failed_final`, `sum_ms` and `b<upper bound in ms>` per duration bucket
 * (non-cumulative counts; `binf` above the last bound). Counters only ever grow, as Prometheus expects;
 * a Redis that loses its data resets them, which Prometheus treats as a counter reset.
 */
export const JOB_DURATION_BUCKETS_MS = [50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000, 300_000];

export function jobMetricsKey(prefix: string, queue: string): string {
  return `${prefix}:zw-metrics:${queue}`;
}

function bucketField(ms: number): string {
  const bound = JOB_DURATION_BUCKETS_MS.find((le) => ms <= le);
  return bound === undefined ? 'binf' : `b${bound}`;
}

@Injectable()
export class JobMetricsRecorder {
  private readonly logger = new Logger('JobMetrics');
  private readonly prefix: string;

  constructor(
    @Inject(WORKER_CONFIG) config: WorkerConfig,
    @Inject(WORKER_REDIS) private readonly redis: Redis,
  ) {
    this.prefix = config.QUEUE_PREFIX;
  }

  /** Counts every completed and failed attempt of the worker's jobs. */
  attach(worker: Worker, queue: string): void {
    worker.on('completed', (job: Job) => this.record(queue, job, false));
    worker.on('failed', (job: Job | undefined, error: Error) => {
      const final = !job || error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
      this.record(queue, job, true, final);
    });
  }

  private record(queue: string, job: Job | undefined, failed: boolean, final = false): void {
    const key = jobMetricsKey(this.prefix, queue);
    const multi = this.redis.multi();
    if (failed) {
      multi.hincrby(key, 'failed_attempts', 1);
      if (final) multi.hincrby(key, 'failed_final', 1);
    } else {
      multi.hincrby(key, 'completed', 1);
    }
    if (job?.processedOn) {
      const ms = Math.max(0, (job.finishedOn ?? Date.now()) - job.processedOn);
      multi.hincrby(key, bucketField(ms), 1);
      multi.hincrby(key, 'sum_ms', Math.round(ms));
    }
    multi.exec().catch((error: unknown) => this.logger.warn(`could not record job metrics: ${String(error)}`));
  }
}
