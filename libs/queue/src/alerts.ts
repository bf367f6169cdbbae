import type { JobsOptions, Queue } from 'bullmq';
import { z } from 'zod';

/**
 * Alerts: the queue, jobs and settings api and worker share. Postgres holds the alerts and one
 * `alert_deliveries` row per message (its id is the job id and the idempotency key); Redis only carries
 * the work, and the worker's sweep re-enqueues a delivery whose job was lost.
 */
export const ALERTS_QUEUE = 'alerts';

/** Evaluate an organization's rules over one cluster (after a processed snapshot). */
export const EVALUATE_ALERTS_JOB = 'evaluate-alerts';
/** Periodic: every rule of every organization (staleness, traffic sources), and lost delivery jobs. */
export const ALERTS_SWEEP_JOB = 'alerts-sweep';
/** Send one delivery (job id = delivery id). */
export const DELIVER_ALERT_JOB = 'deliver-alert';

export interface EvaluateAlertsJobData {
  clusterId: string;
}

export interface DeliverAlertJobData {
  deliveryId: string;
}

const flag = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((value) => value === 'true' || value === '1');

/** Environment both api and worker read for alerts. */
export const alertsEnvSchema = z.object({
  /** Tries of one delivery, and the delay before the first retry (doubling after: ~10 min in all). */
  ALERT_DELIVERY_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(7),
  ALERT_DELIVERY_BACKOFF_MS: z.coerce.number().int().min(0).default(10_000),
  /** Longest a receiver (or the SMTP server) may take with one message. */
  ALERT_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** How often every rule is evaluated (agents going stale, traffic sources failing) and lost jobs re-enqueued. */
  ALERT_SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(60_000),
  /** How long a pending delivery may wait before the sweep re-enqueues it. */
  ALERT_SWEEP_GRACE_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * Lets Slack, Teams and webhook channels use plain http and reach non-public addresses. Off in
   * production: a tenant's channel must not reach the deployment's own network (SSRF).
   */
  ALERT_ALLOW_PRIVATE: flag,
  /** The deployment's SMTP server for email channels (`smtp://user:pass@host:587`, `smtps://…`); unset: no email. */
  SMTP_URL: z.string().url().optional(),
  SMTP_FROM: z.string().min(3).default('zonewise <alerts@localhost>'),
  /** Where people reach the dashboard (links in messages), e.g. `https://zonewise.example.com`. */
  PUBLIC_URL: z
    .string()
    .url()
    .default('http://localhost:3000')
    .transform((url) => url.replace(/\/+$/, '')),
});

export type AlertsConfig = z.output<typeof alertsEnvSchema>;

export function deliveryJobOptions(
  config: Pick<AlertsConfig, 'ALERT_DELIVERY_ATTEMPTS' | 'ALERT_DELIVERY_BACKOFF_MS'>,
  notBefore: Date | null,
  now = new Date(),
): JobsOptions {
  return {
    attempts: config.ALERT_DELIVERY_ATTEMPTS,
    backoff: { type: 'exponential', delay: config.ALERT_DELIVERY_BACKOFF_MS },
    delay: notBefore ? Math.max(0, notBefore.getTime() - now.getTime()) : 0,
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
  };
}

/** Enqueues one delivery; its job id is the delivery id, so a delivery whose job Redis still has is not added twice. */
export async function enqueueAlertDelivery(
  queue: Queue,
  delivery: { id: string; notBefore: Date | null },
  config: Pick<AlertsConfig, 'ALERT_DELIVERY_ATTEMPTS' | 'ALERT_DELIVERY_BACKOFF_MS'>,
): Promise<void> {
  await queue.add(DELIVER_ALERT_JOB, { deliveryId: delivery.id } satisfies DeliverAlertJobData, {
    ...deliveryJobOptions(config, delivery.notBefore),
    jobId: delivery.id,
  });
}

/**
 * Asks for an evaluation of the rules over one cluster (after a snapshot of it was recorded). An
 * evaluation reads the cluster's state when it runs, not the snapshot's, so one already waiting covers
 * every snapshot recorded before it starts: a backlog drained at hundreds of snapshots a second asks for
 * one evaluation per cluster at a time, not one per snapshot. One asked for while the cluster's is
 * running waits for it and then runs (BullMQ's `keepLastIfActive`): a state recorded after the running
 * one read its own is always evaluated.
 */
export async function enqueueAlertEvaluation(queue: Queue, clusterId: string, snapshotId: string): Promise<void> {
  await queue.add(EVALUATE_ALERTS_JOB, { clusterId } satisfies EvaluateAlertsJobData, {
    jobId: `evaluate-${snapshotId}`,
    deduplication: { id: `evaluate-cluster-${clusterId}`, keepLastIfActive: true },
    attempts: 3,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: 600, count: 1000 },
    removeOnFail: { age: 24 * 3600, count: 1000 },
  });
}
