import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { PrismaService, type TrafficSourceSchedule, trafficSourceSchedule, trafficSourceSchedules } from '@zw/db';
import {
  MEASURE_TRAFFIC_JOB,
  measureJobOptions,
  TRAFFIC_QUEUE,
  type TrafficConfig,
  type TrafficJobData,
  trafficSchedulerId,
} from '@zw/queue';
import type { Queue } from 'bullmq';
import { TRAFFIC_CONFIG } from './traffic-config.js';

const SCHEDULER_PREFIX = trafficSchedulerId('');

/**
 * Owns the traffic sources' job schedulers: one per configured cluster, every `interval_seconds`.
 * Decision: as for report schedules, the worker is the only owner (the API asks through a sync job), and a
 * scheduler is upserted only when its interval differs, never removed then re-added.
 */
@Injectable()
export class TrafficScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('TrafficScheduler');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(TRAFFIC_QUEUE) private readonly queue: Queue,
    @Inject(TRAFFIC_CONFIG) private readonly config: TrafficConfig,
  ) {}

  /** At boot: a scheduler for every source, none for a cluster without one (Redis may have lost them). */
  async onApplicationBootstrap(): Promise<void> {
    try {
      const sources = await trafficSourceSchedules(this.prisma);
      const existing = new Map(
        (await this.queue.getJobSchedulers(0, -1))
          .filter((scheduler) => scheduler.key.startsWith(SCHEDULER_PREFIX))
          .map((scheduler) => [scheduler.key, scheduler.every ?? null]),
      );
      for (const source of sources) await this.ensure(source, existing.get(trafficSchedulerId(source.clusterId)));
      const wanted = new Set(sources.map((source) => trafficSchedulerId(source.clusterId)));
      for (const key of existing.keys()) if (!wanted.has(key)) await this.queue.removeJobScheduler(key);
    } catch (error) {
      this.logger.warn(`traffic schedulers not reconciled at boot: ${String(error)}`);
    }
  }

  /**
   * Brings the cluster's scheduler in line with Postgres. `scheduled`: the scheduler was created or its
   * interval changed, and BullMQ runs an `every` scheduler's first job at once, so that run measures.
   */
  async sync(clusterId: string): Promise<{ configured: boolean; scheduled: boolean }> {
    const source = await trafficSourceSchedule(this.prisma, clusterId);
    if (!source) {
      await this.queue.removeJobScheduler(trafficSchedulerId(clusterId));
      return { configured: false, scheduled: false };
    }
    const current = await this.queue.getJobScheduler(trafficSchedulerId(clusterId));
    return { configured: true, scheduled: await this.ensure(source, current?.every ?? undefined) };
  }

  private async ensure(source: TrafficSourceSchedule, every: number | null | undefined): Promise<boolean> {
    const wanted = source.intervalSeconds * 1000;
    if (every === wanted) return false;
    await this.queue.upsertJobScheduler(
      trafficSchedulerId(source.clusterId),
      { every: wanted },
      {
        name: MEASURE_TRAFFIC_JOB,
        data: { clusterId: source.clusterId } satisfies TrafficJobData,
        opts: measureJobOptions(this.config),
      },
    );
    return true;
  }
}
