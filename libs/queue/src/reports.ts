import type { DefaultJobOptions, Queue } from 'bullmq';
import { keyringProblem, parseKeyring, type SecretKeyring } from '@zw/secrets';
import { z } from 'zod';

/**
 * Scheduled reports: the queues, jobs and settings api and worker share.
 *
 * Postgres decides what is made (one `reports` row per schedule and period); Redis only carries the work.
 * The worker alone owns the BullMQ job schedulers (one per enabled report schedule, a cron pattern with
 * its time zone); the API never creates or removes one, it asks the worker to sync a schedule.
 */
export const REPORTS_QUEUE = 'reports';
/** Webhook deliveries get their own queue: a slow receiver never holds up report generation. */
export const REPORT_DELIVERIES_QUEUE = 'report-deliveries';

/** Fired by a schedule's job scheduler: make every period of that schedule that is due. */
export const REPORT_TICK_JOB = 'report-tick';
/** Make one claimed report (job id = report id). */
export const GENERATE_REPORT_JOB = 'generate-report';
/** A schedule was created, changed or deleted: bring its job scheduler in line and make what is due. */
export const SYNC_REPORT_SCHEDULE_JOB = 'sync-report-schedule';
/** Periodic reconciliation: schedulers against Postgres, due periods, reports and deliveries without a job. */
export const REPORTS_SWEEP_JOB = 'reports-sweep';
/** POST one report to its schedule's webhook (job id = delivery id). */
export const DELIVER_WEBHOOK_JOB = 'deliver-webhook';

export interface ReportTickJobData {
  scheduleId: string;
}

export interface GenerateReportJobData {
  reportId: string;
}

export interface SyncReportScheduleJobData {
  scheduleId: string;
}

export interface DeliverWebhookJobData {
  deliveryId: string;
}

/** The job scheduler of a report schedule. */
export function reportSchedulerId(scheduleId: string): string {
  return `report-schedule-${scheduleId}`;
}

/** A keyring setting (`id:key,id:key,…`, checked by keyringProblem); empty means unset. */
const keyringSetting = z
  .string()
  .optional()
  .superRefine((text, context) => {
    const problem = text === undefined || text === '' ? null : keyringProblem(text);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  })
  .transform((text) => (text ? text : undefined));

/** Environment both api and worker read for reports. */
export const reportsEnvSchema = z.object({
  /**
   * Shortest time allowed between two reports of one schedule (a cron expression firing more often is
   * refused). Reports are a daily/weekly/monthly thing; an hour keeps a typo from making one a minute.
   */
  REPORT_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** After downtime, at most this many missed periods of one schedule are made (the newest ones). */
  REPORT_CATCH_UP_MAX_PERIODS: z.coerce.number().int().min(1).max(1000).default(31),
  /**
   * Most Services one report may cover: the API refuses a schedule whose scope holds more, and a report
   * whose scope grew past it fails at once, saying so, instead of each attempt taking minutes and the
   * worker's memory before failing. Making one takes about 4.5 KB of the worker's heap per Service (200,400
   * Services were made within a 896 MiB heap, not within 768 MiB: bench/RESULTS.md, reportmem25), so the
   * default fits the chart's worker (a 1,280 MiB heap in 3 GiB). Past it, raise the worker's memory with
   * it; the bodies are single strings, which Node caps at about 512 MiB: the JSON at about 600,000
   * Services, a webhook attaching every format at about 430,000.
   */
  REPORT_MAX_SERVICES: z.coerce.number().int().min(1).default(200_000),
  /** Tries of one report's generation, and the delay before the first retry (doubling after). */
  REPORT_JOB_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  REPORT_JOB_BACKOFF_MS: z.coerce.number().int().min(0).default(5000),
  /** How often the worker reconciles schedulers, makes overdue periods and re-enqueues lost jobs. */
  REPORT_SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(60_000),
  /** How long a pending report or delivery may wait before the sweep checks that its job exists. */
  REPORT_SWEEP_GRACE_MS: z.coerce.number().int().min(0).default(120_000),
  /** Tries of one webhook delivery, and the delay before the first retry (doubling after: ~1 h in all). */
  REPORT_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  REPORT_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(0).default(30_000),
  /** Longest a receiver may take to answer one delivery. */
  REPORT_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * Lets webhooks use plain http and reach loopback, private, link-local and other non-public addresses.
   * Off in production: a tenant's webhook must not reach the deployment's own network (SSRF).
   */
  /**
   * Keys that encrypt webhook signing secrets at rest: `id:key,id:key,…` (ids of letters, digits, _ . -;
   * keys of 16+ characters, from which HKDF-SHA-256 derives the AES-256-GCM key: libs/secrets). The first
   * seals new secrets; the others only open what they sealed, and the worker re-encrypts those under the
   * first at start. Without it, schedules cannot be given a webhook.
   */
  REPORT_WEBHOOK_ENCRYPTION_KEYS: keyringSetting,
  /**
   * The deployment's keyring for every secret a tenant stores (webhook signing secrets, SSO client
   * secrets, channel addresses and secrets, traffic sources' auth headers), in the form above. When unset, REPORT_WEBHOOK_ENCRYPTION_KEYS
   * (its older name) is the keyring.
   */
  SECRET_ENCRYPTION_KEYS: keyringSetting,
  REPORT_WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
});

export type ReportsConfig = z.output<typeof reportsEnvSchema>;

/** The deployment's secret keyring: SECRET_ENCRYPTION_KEYS, else REPORT_WEBHOOK_ENCRYPTION_KEYS; null when neither is set. */
export function secretKeyringOf(
  config: Pick<ReportsConfig, 'SECRET_ENCRYPTION_KEYS' | 'REPORT_WEBHOOK_ENCRYPTION_KEYS'>,
): SecretKeyring | null {
  const text = config.SECRET_ENCRYPTION_KEYS ?? config.REPORT_WEBHOOK_ENCRYPTION_KEYS;
  return text ? parseKeyring(text) : null;
}

export function reportJobOptions(
  config: Pick<ReportsConfig, 'REPORT_JOB_ATTEMPTS' | 'REPORT_JOB_BACKOFF_MS'>,
): DefaultJobOptions {
  return {
    attempts: config.REPORT_JOB_ATTEMPTS,
    backoff: { type: 'exponential', delay: config.REPORT_JOB_BACKOFF_MS },
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
  };
}

export function webhookJobOptions(
  config: Pick<ReportsConfig, 'REPORT_WEBHOOK_ATTEMPTS' | 'REPORT_WEBHOOK_BACKOFF_MS'>,
): DefaultJobOptions {
  return {
    attempts: config.REPORT_WEBHOOK_ATTEMPTS,
    backoff: { type: 'exponential', delay: config.REPORT_WEBHOOK_BACKOFF_MS },
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
  };
}

/**
 * Enqueues the generation of a claimed report. The job id is the report id, so enqueuing a report whose
 * job Redis still knows is a no-op.
 */
export async function enqueueReportGeneration(queue: Queue, reportId: string, config: ReportsConfig): Promise<void> {
  await queue.add(GENERATE_REPORT_JOB, { reportId } satisfies GenerateReportJobData, {
    ...reportJobOptions(config),
    jobId: reportId,
  });
}

/** Asks the worker to sync one schedule's job scheduler (and make what is due). */
export async function enqueueScheduleSync(queue: Queue, scheduleId: string): Promise<void> {
  await queue.add(SYNC_REPORT_SCHEDULE_JOB, { scheduleId } satisfies SyncReportScheduleJobData, {
    attempts: 5,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: 600, count: 1000 },
    removeOnFail: { age: 24 * 3600, count: 1000 },
  });
}

/** Enqueues a webhook delivery (job id = delivery id: a no-op while Redis knows the job). */
export async function enqueueWebhookDelivery(queue: Queue, deliveryId: string, config: ReportsConfig): Promise<void> {
  await queue.add(DELIVER_WEBHOOK_JOB, { deliveryId } satisfies DeliverWebhookJobData, {
    ...webhookJobOptions(config),
    jobId: deliveryId,
  });
}

/** Why a scope of `services` Services gets no report: the API refuses such a schedule, the worker such a report. */
export function tooManyServicesProblem(services: number, maxServices: number): string {
  return (
    `the scope holds ${services} Services and one report covers at most ${maxServices} (REPORT_MAX_SERVICES): ` +
    'scope the schedule to fewer clusters, or split it into several schedules'
  );
}
