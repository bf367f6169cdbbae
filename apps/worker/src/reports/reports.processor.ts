import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  GENERATE_REPORT_JOB,
  type GenerateReportJobData,
  REPORT_TICK_JOB,
  REPORTS_QUEUE,
  type ReportTickJobData,
  SYNC_REPORT_SCHEDULE_JOB,
  type SyncReportScheduleJobData,
} from '@zw/queue';
import { type Job, UnrecoverableError } from 'bullmq';
import { JobMetricsRecorder } from '../job-metrics.js';
import { ReportGenerator } from './report-generator.service.js';
import { ReportScheduler } from './report-scheduler.service.js';

/** Runs the reports queue: schedule ticks, schedule syncs from the API, and report generation. */
@Processor(REPORTS_QUEUE, { concurrency: 2 })
export class ReportsProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger('ReportsProcessor');

  constructor(
    @Inject(ReportScheduler) private readonly scheduler: ReportScheduler,
    @Inject(ReportGenerator) private readonly generator: ReportGenerator,
    @Inject(JobMetricsRecorder) private readonly metrics: JobMetricsRecorder,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.metrics.attach(this.worker, REPORTS_QUEUE);
  }

  async process(job: Job): Promise<unknown> {
    if (job.name === REPORT_TICK_JOB) return this.scheduler.tick(job as Job<ReportTickJobData>);
    if (job.name === SYNC_REPORT_SCHEDULE_JOB)
      return this.scheduler.sync((job.data as SyncReportScheduleJobData).scheduleId);
    if (job.name === GENERATE_REPORT_JOB) return this.generate(job as Job<GenerateReportJobData>);
    throw new Error(`unknown reports job "${job.name}"`);
  }

  private async generate(job: Job<GenerateReportJobData>) {
    try {
      return await this.generator.generate(job.data.reportId);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
        await this.generator.markFailed(job.data.reportId, reason);
        this.logger.warn(`report ${job.data.reportId} failed for good: ${reason}`);
      }
      throw error;
    }
  }
}
