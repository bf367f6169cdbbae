import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  claimReportPeriod,
  enabledReportSchedules,
  failPendingReport,
  failPendingWebhookDelivery,
  lastScheduledPeriodEnd,
  pendingReportIds,
  pendingWebhookDeliveryIds,
  PrismaService,
  type ReportSchedule,
  reportScheduleById,
} from '@zw/db';
import {
  enqueueReportGeneration,
  enqueueWebhookDelivery,
  REPORT_DELIVERIES_QUEUE,
  REPORT_TICK_JOB,
  reportSchedulerId,
  REPORTS_QUEUE,
  type ReportsConfig,
  type ReportTickJobData,
} from '@zw/queue';
import { duePeriods } from '@zw/reports';
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { WorkerConfig } from '../config.js';
import { WORKER_CONFIG } from '../worker-config.token.js';
import { REPORTS_CONFIG, REPORTS_REDIS } from './reports-worker.config.js';

const SCHEDULER_PREFIX = reportSchedulerId('');
const SWEEP_LOCK_KEY = 'sweep-lock';
/** Deletes the lock only if it still holds this token (it may have expired and been taken by another). */
const RELEASE_LOCK =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const PAGE = 500;

export interface SweepResult {
  schedulersUpserted: number;
  schedulersRemoved: number;
  reportsClaimed: number;
  reportsRequeued: number;
  deliveriesRequeued: number;
  markedFailed: number;
}

/**
 * Owns the report schedules' BullMQ job schedulers and decides which periods are due.
 *
 * Decision: the worker is the only owner of job schedulers (the API asks it through a sync job), each
 * one a cron `pattern` with its `tz` (never `every`), upserted only when it differs from the schedule,
 * and never removed then re-added (BullMQ pitfalls #3262, #3063, #2954). A scheduler's tick only says
 * "look at schedule X": which periods are due is computed from the schedule and the newest period
 * Postgres says was made, so a lost, late, repeated or doubled tick changes nothing.
 *
 * Decision: the sweep that reconciles schedulers with Postgres, makes overdue periods and re-enqueues
 * reports and deliveries whose jobs vanished runs on an in-process timer (at boot, then every
 * REPORT_SWEEP_EVERY_MS), not as a job scheduler: it is what repairs a Redis that lost its data, so it
 * must not live in Redis. With several workers, a short lock in Redis lets one sweep at a time.
 */
@Injectable()
export class ReportScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ReportScheduler');
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<SweepResult | null> | null = null;

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(REPORTS_QUEUE) private readonly queue: Queue,
    @InjectQueue(REPORT_DELIVERIES_QUEUE) private readonly deliveries: Queue,
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    @Inject(REPORTS_REDIS) private readonly redis: Redis,
    @Inject(WORKER_CONFIG) private readonly workerConfig: WorkerConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.sweep('boot');
    this.timer = setInterval(() => void this.sweep('periodic'), this.config.REPORT_SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** A tick of the schedule's job scheduler: make its due periods (or drop a scheduler left behind). */
  async tick(job: Job<ReportTickJobData>, now = new Date()): Promise<{ claimed: number }> {
    const schedule = await reportScheduleById(this.prisma, job.data.scheduleId);
    if (!schedule || !schedule.enabled) {
      await this.queue.removeJobScheduler(reportSchedulerId(job.data.scheduleId));
      return { claimed: 0 };
    }
    return { claimed: await this.claimDue(schedule, now) };
  }

  /** The API created, changed or deleted the schedule: bring its job scheduler in line, make what is due. */
  async sync(scheduleId: string, now = new Date()): Promise<{ claimed: number }> {
    const schedule = await reportScheduleById(this.prisma, scheduleId);
    if (!schedule || !schedule.enabled) {
      await this.queue.removeJobScheduler(reportSchedulerId(scheduleId));
      return { claimed: 0 };
    }
    await this.ensureScheduler(schedule, await this.queue.getJobScheduler(reportSchedulerId(schedule.id)));
    return { claimed: await this.claimDue(schedule, now) };
  }

  /**
   * Claims every due period of the schedule (one `reports` row each; a period another run claimed first
   * is left to it) and enqueues the generation of those this call claimed. Returns how many it claimed.
   */
  async claimDue(schedule: ReportSchedule, now: Date): Promise<number> {
    const last = await lastScheduledPeriodEnd(this.prisma, schedule.id);
    const after = last && last > schedule.anchorAt ? last : schedule.anchorAt;
    const timing = { cron: schedule.cronExpression, timeZone: schedule.timeZone };
    const { periods, skipped } = duePeriods(timing, after, now, this.config.REPORT_CATCH_UP_MAX_PERIODS);
    if (skipped > 0) {
      this.logger.warn(
        `schedule ${schedule.id}: ${skipped} missed period(s) older than the newest ${this.config.REPORT_CATCH_UP_MAX_PERIODS} are not made (REPORT_CATCH_UP_MAX_PERIODS)`,
      );
    }
    let claimed = 0;
    for (const period of periods) {
      const { report, created } = await claimReportPeriod(this.prisma, {
        organizationId: schedule.organizationId,
        scheduleId: schedule.id,
        periodStart: period.start,
        periodEnd: period.end,
        trigger: 'schedule',
        partial: false,
        formats: schedule.formats,
      });
      if (!created) continue;
      claimed++;
      await this.enqueueGeneration(report.id);
    }
    return claimed;
  }

  /** Reconciles everything; a sweep already running in this process is joined rather than doubled. */
  sweep(why: string, now = new Date()): Promise<SweepResult | null> {
    this.sweeping ??= this.sweepLocked(now)
      .catch((error: unknown) => {
        this.logger.warn(`reports sweep (${why}) failed: ${String(error)}`);
        return null;
      })
      .finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  /**
   * One sweep at a time across workers: a lock in Redis (SET NX with an expiry, released only by its
   * holder). Every step is safe to run concurrently anyway (claims are unique rows, job ids dedupe,
   * upserts are idempotent); the lock only spares the duplicate work. Decision: not a Postgres advisory
   * lock, which a worker's own history writes use and which tools watch as "a write in progress".
   */
  private async sweepLocked(now: Date): Promise<SweepResult | null> {
    const redis = this.redis;
    const key = `${this.workerConfig.QUEUE_PREFIX}:${REPORTS_QUEUE}:${SWEEP_LOCK_KEY}`;
    const token = randomUUID();
    const ttlMs = Math.max(60_000, 2 * this.config.REPORT_SWEEP_EVERY_MS);
    if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return null; // another worker is sweeping
    try {
      return await this.reconcile(now);
    } finally {
      await redis.eval(RELEASE_LOCK, 1, key, token);
    }
  }

  private async reconcile(now: Date): Promise<SweepResult> {
    const result: SweepResult = {
      schedulersUpserted: 0,
      schedulersRemoved: 0,
      reportsClaimed: 0,
      reportsRequeued: 0,
      deliveriesRequeued: 0,
      markedFailed: 0,
    };
    const schedules = await enabledReportSchedules(this.prisma);
    const existing = new Map(
      (await this.queue.getJobSchedulers(0, -1))
        .filter((scheduler) => scheduler.key.startsWith(SCHEDULER_PREFIX))
        .map((scheduler) => [scheduler.key, scheduler]),
    );
    const wanted = new Set<string>();
    for (const schedule of schedules) {
      const id = reportSchedulerId(schedule.id);
      wanted.add(id);
      if (await this.ensureScheduler(schedule, existing.get(id))) result.schedulersUpserted++;
    }
    for (const id of existing.keys()) {
      if (wanted.has(id)) continue;
      await this.queue.removeJobScheduler(id);
      result.schedulersRemoved++;
    }
    for (const schedule of schedules) result.reportsClaimed += await this.claimDue(schedule, now);
    await this.requeueLost(now, result);
    const changed = Object.values(result).some((count) => count > 0);
    if (changed) this.logger.log(`reports sweep: ${JSON.stringify(result)}`);
    return result;
  }

  /** Upserts the schedule's job scheduler unless it already fires on the same pattern and time zone. */
  private async ensureScheduler(
    schedule: ReportSchedule,
    existing: { pattern?: string | null; tz?: string | null } | undefined,
  ): Promise<boolean> {
    if (existing && existing.pattern === schedule.cronExpression && existing.tz === schedule.timeZone) return false;
    await this.queue.upsertJobScheduler(
      reportSchedulerId(schedule.id),
      { pattern: schedule.cronExpression, tz: schedule.timeZone },
      {
        name: REPORT_TICK_JOB,
        data: { scheduleId: schedule.id } satisfies ReportTickJobData,
        opts: {
          attempts: 3,
          backoff: { type: 'exponential', delay: 1000 },
          removeOnComplete: { age: 3600, count: 100 },
          removeOnFail: { age: 24 * 3600, count: 100 },
        },
      },
    );
    return true;
  }

  /**
   * Reports and deliveries still pending past the grace period must have a live job, or get one again
   * (Redis lost its data, an enqueue failed after the claim). One whose job BullMQ gave up on is failed.
   */
  private async requeueLost(now: Date, result: SweepResult): Promise<void> {
    const waitedSince = new Date(now.getTime() - this.config.REPORT_SWEEP_GRACE_MS);
    for (const id of await pendingReportIds(this.prisma, waitedSince, PAGE)) {
      const job = await this.queue.getJob(id);
      const state = job ? await job.getState() : 'unknown';
      if (state === 'failed') {
        result.markedFailed += await failPendingReport(this.prisma, id, job!.failedReason || 'generation failed');
      } else if (state === 'completed' || state === 'unknown') {
        if (job) await job.remove();
        await this.enqueueGeneration(id);
        result.reportsRequeued++;
      }
    }
    for (const id of await pendingWebhookDeliveryIds(this.prisma, waitedSince, PAGE)) {
      const job = await this.deliveries.getJob(id);
      const state = job ? await job.getState() : 'unknown';
      if (state === 'failed') {
        const reason = job!.failedReason || 'delivery failed';
        result.markedFailed += await failPendingWebhookDelivery(this.prisma, id, reason);
      } else if (state === 'completed' || state === 'unknown') {
        if (job) await job.remove();
        await enqueueWebhookDelivery(this.deliveries, id, this.config);
        result.deliveriesRequeued++;
      }
    }
  }

  private async enqueueGeneration(reportId: string): Promise<void> {
    try {
      await enqueueReportGeneration(this.queue, reportId, this.config);
    } catch (error) {
      this.logger.warn(`could not enqueue report ${reportId} (the next sweep will): ${String(error)}`);
    }
  }
}
