import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ReadDb } from '@zw/db';
import { MAINTENANCE_QUEUE, SNAPSHOTS_QUEUE } from '@zw/queue';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { API_REDIS } from '../redis.provider.js';
import { HEAVY_READ_DB } from '../heavy-reads/heavy-read-db.provider.js';
import { REPLICA_READ_DB } from '../read-db.provider.js';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ApiConfig } from '../config.js';
import { BusinessFiguresSource, registerBusinessMetrics } from './business-metrics.js';
import { formatJobMetrics, readJobMetrics } from './job-metrics.js';

const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
] as const;

/**
 * The API's Prometheus metrics. One registry per application instance (tests start several in one
 * process). Queue depth is read from BullMQ at scrape time; job durations and failures from the counters
 * the worker keeps in Redis, so one scrape of the API covers the whole pipeline.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly prefix: string;

  constructor(
    @InjectQueue(SNAPSHOTS_QUEUE) private readonly snapshots: Queue,
    @InjectQueue(MAINTENANCE_QUEUE) private readonly maintenance: Queue,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
    @Inject(API_REDIS) private readonly redis: Redis,
    @Inject(ReadDb) db: ReadDb,
    @Inject(HEAVY_READ_DB) heavyDb: ReadDb,
    @Inject(REPLICA_READ_DB) replicaDb: ReadDb,
  ) {
    this.prefix = config.get('QUEUE_PREFIX', { infer: true });
    collectDefaultMetrics({ register: this.registry, prefix: 'zonewise_api_' });
    this.httpDuration = new Histogram({
      name: 'zonewise_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    registerBusinessMetrics(
      this.registry,
      new BusinessFiguresSource(
        db,
        config.get('STALE_AFTER_SECONDS', { infer: true }),
        config.get('BUSINESS_METRICS_TTL_MS', { infer: true }),
      ),
    );
    // The read replica (DATABASE_READ_URL) as each pool that may read it last measured it.
    const replicaPools = { heavy: heavyDb, trends: replicaDb };
    new Gauge({
      name: 'zonewise_read_replica_in_use',
      help: 'Whether heavy reads go to the read replica now (1), or to the primary (0: lagging past DATABASE_READ_MAX_LAG_MS, or down); absent without DATABASE_READ_URL.',
      labelNames: ['pool'],
      registers: [this.registry],
      collect() {
        for (const [pool, readDb] of Object.entries(replicaPools)) {
          const status = readDb.replicaStatus();
          if (status) this.set({ pool }, status.usable ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'zonewise_read_replica_lag_seconds',
      help: "The read replica's measured lag behind the primary (absent while it cannot be measured).",
      labelNames: ['pool'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [pool, readDb] of Object.entries(replicaPools)) {
          const lagMs = readDb.replicaStatus()?.lagMs;
          if (lagMs !== undefined && lagMs !== null) this.set({ pool }, lagMs / 1000);
        }
      },
    });
    const queues = [snapshots, maintenance];
    new Gauge({
      name: 'zonewise_queue_jobs',
      help: 'Jobs in each queue by state (waiting and delayed are the depth; failed are kept for a week).',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        for (const queue of queues) {
          const counts = await queue.getJobCounts(...QUEUE_STATES);
          for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      },
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    const jobs = await Promise.all(
      [this.snapshots.name, this.maintenance.name].map((queue) => readJobMetrics(this.redis, this.prefix, queue)),
    );
    return {
      contentType: this.registry.contentType,
      body: `${await this.registry.metrics()}\n${formatJobMetrics(jobs)}`,
    };
  }
}
