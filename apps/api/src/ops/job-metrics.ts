import type { Redis } from 'ioredis';

/**
 * Job metrics the worker keeps in Redis (apps/worker/src/job-metrics.ts writes them; the two files must
 * agree on this layout, which the metrics test checks end to end): one hash per queue at
 * `<QUEUE_PREFIX>:zw-metrics:<queue>` with `completed`, `failed_attempts`, `failed_final`, `sum_ms`, and
 * `b<upper bound in ms>` per duration bucket (non-cumulative counts; `binf` above the last bound).
 */
export const JOB_DURATION_BUCKETS_MS = [50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000, 300_000];

export function jobMetricsKey(prefix: string, queue: string): string {
  return `${prefix}:zw-metrics:${queue}`;
}

export interface QueueJobMetrics {
  queue: string;
  completed: number;
  failedAttempts: number;
  failedFinal: number;
  sumMs: number;
  /** Cumulative counts per upper bound (ms), the last being +Inf. */
  buckets: { le: number; count: number }[];
}

export async function readJobMetrics(redis: Redis, prefix: string, queue: string): Promise<QueueJobMetrics> {
  const hash = await redis.hgetall(jobMetricsKey(prefix, queue));
  const number = (field: string) => Number(hash[field] ?? 0);
  let cumulative = 0;
  const buckets = [...JOB_DURATION_BUCKETS_MS, Number.POSITIVE_INFINITY].map((le) => {
    cumulative += number(Number.isFinite(le) ? `b${le}` : 'binf');
    return { le, count: cumulative };
  });
  return {
    queue,
    completed: number('completed'),
    failedAttempts: number('failed_attempts'),
    failedFinal: number('failed_final'),
    sumMs: number('sum_ms'),
    buckets,
  };
}

/** Prometheus text exposition of the job metrics of every queue. */
export function formatJobMetrics(all: QueueJobMetrics[]): string {
  const lines = [
    '# HELP zonewise_job_duration_seconds Time a worker spent on one job attempt that completed or failed.',
    '# TYPE zonewise_job_duration_seconds histogram',
  ];
  for (const m of all) {
    for (const bucket of m.buckets) {
      const le = Number.isFinite(bucket.le) ? String(bucket.le / 1000) : '+Inf';
      lines.push(`zonewise_job_duration_seconds_bucket{queue="${m.queue}",le="${le}"} ${bucket.count}`);
    }
    lines.push(`zonewise_job_duration_seconds_sum{queue="${m.queue}"} ${m.sumMs / 1000}`);
    lines.push(`zonewise_job_duration_seconds_count{queue="${m.queue}"} ${m.buckets[m.buckets.length - 1].count}`);
  }
  lines.push('# HELP zonewise_jobs_completed_total Jobs completed.', '# TYPE zonewise_jobs_completed_total counter');
  for (const m of all) lines.push(`zonewise_jobs_completed_total{queue="${m.queue}"} ${m.completed}`);
  lines.push(
    '# HELP zonewise_jobs_failed_total Failed job attempts; final="true" when no retry is left (the snapshot is marked failed).',
    '# TYPE zonewise_jobs_failed_total counter',
  );
  for (const m of all) {
    lines.push(`zonewise_jobs_failed_total{queue="${m.queue}",final="false"} ${m.failedAttempts - m.failedFinal}`);
    lines.push(`zonewise_jobs_failed_total{queue="${m.queue}",final="true"} ${m.failedFinal}`);
  }
  return `${lines.join('\n')}\n`;
}
