import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { MAINTENANCE_QUEUE, RETENTION_JOB, SWEEP_JOB } from '@zw/queue';
import type { Job, Queue } from 'bullmq';
import { writeFile } from 'node:fs/promises';
import { AgentStalenessService } from './agent-staleness.service.js';
import type { WorkerConfig } from './config.js';
import { JobMetricsRecorder } from './job-metrics.js';
import { RetentionService } from './retention.service.js';
import { SweeperService } from './sweeper.service.js';
import { WORKER_CONFIG } from './worker-config.token.js';

/** The maintenance queue's repeatable jobs, each with a scheduler of its own in Redis. */
const SCHEDULED_JOBS = [SWEEP_JOB, RETENTION_JOB];

/** Runs the repeatable housekeeping jobs: the sweeper (with the agents' staleness) and retention. */
@Processor(MAINTENANCE_QUEUE)
export class MaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    @Inject(SweeperService) private readonly sweeper: SweeperService,
    @Inject(RetentionService) private readonly retention: RetentionService,
    @Inject(AgentStalenessService) private readonly staleness: AgentStalenessService,
    @Inject(JobMetricsRecorder) private readonly metrics: JobMetricsRecorder,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.metrics.attach(this.worker, MAINTENANCE_QUEUE);
  }

  async process(job: Job): Promise<unknown> {
    if (job.name === SWEEP_JOB) {
      const staleness = await this.staleness.announce(); // never throws: a failed sweep does not hold it up
      return { ...(await this.sweeper.sweep()), ...staleness };
    }
    if (job.name === RETENTION_JOB) return this.retention.prune();
    throw new Error(`unknown maintenance job "${job.name}"`);
  }
}

/**
 * Makes sure the repeatable jobs exist, and sweeps once at boot. Job schedulers live in Redis, so a
 * Redis that lost its data loses them too, and with them the sweeper that would repair the loss: a
 * light in-process check re-creates them (and sweeps at once) whenever they have gone missing.
 */
@Injectable()
export class MaintenanceSchedules implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('MaintenanceSchedules');
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    @InjectQueue(MAINTENANCE_QUEUE) private readonly queue: Queue,
    @Inject(SweeperService) private readonly sweeper: SweeperService,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureSchedules();
    await this.sweepNow('boot');
    await this.checkSchedules();
    this.watchdog = setInterval(() => void this.checkSchedules(), this.config.SWEEP_EVERY_MS);
    this.watchdog.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.watchdog);
  }

  private async checkSchedules(): Promise<void> {
    try {
      // Every scheduler, not only the sweep's: a sweep job running when Redis lost its data can bring its
      // own scheduler back as it completes, and retention's would then never return.
      const present = await Promise.all(SCHEDULED_JOBS.map((name) => this.queue.getJobScheduler(name)));
      if (this.config.WORKER_HEARTBEAT_FILE)
        await writeFile(this.config.WORKER_HEARTBEAT_FILE, new Date().toISOString());
      if (present.every(Boolean)) return;
      this.logger.warn('job schedulers missing from Redis (data lost?): re-creating them and sweeping');
      await this.ensureSchedules();
      await this.sweepNow('schedulers lost');
    } catch (error) {
      this.logger.warn(`schedule check failed: ${String(error)}`);
    }
  }

  private async ensureSchedules(): Promise<void> {
    await this.queue.upsertJobScheduler(SWEEP_JOB, { every: this.config.SWEEP_EVERY_MS }, { name: SWEEP_JOB });
    await this.queue.upsertJobScheduler(
      RETENTION_JOB,
      { every: this.config.RETENTION_EVERY_MS },
      { name: RETENTION_JOB },
    );
  }

  private async sweepNow(why: string): Promise<void> {
    try {
      await this.sweeper.sweep();
    } catch (error) {
      this.logger.warn(`sweep (${why}) failed: ${String(error)}`);
    }
  }
}
