/**
 * A claimed report's way to `ready`, and its deliveries: the schedule's generic signed webhook
 * (webhook_deliveries, `Zonewise-Signature`) and its alert channels (alert_deliveries, event `report`).
 */
import { createReportDeliveries } from './alert-deliveries.js';
import type { CreatedDelivery } from './alerts.js';
import type { Db } from './db-client.js';
import type pg from 'pg';
import { inPgTransaction } from './sql-client.js';

/** The report with its schedule, or null when it was deleted (with its schedule). */
export function reportToMake(db: Db, reportId: string) {
  return db.report.findUnique({ where: { id: reportId }, include: { schedule: true } });
}

/** One more generation attempt started. */
export async function countReportAttempt(db: Db, reportId: string): Promise<void> {
  await db.report.update({ where: { id: reportId }, data: { attempts: { increment: 1 } } });
}

export interface MadeReport {
  reportId: string;
  organizationId: string;
  /** The JSON document, serialised as its download serves it. */
  documentJson: string;
  /** The headline figures kept for listings and channel messages, serialised. */
  summaryJson: string;
  csv: string | null;
  html: string | null;
  generatedAt: Date;
  /** The schedule's signed webhook, if it has one. */
  webhookUrl: string | null;
  /** The alert channels the schedule sends its reports to. */
  channelIds: readonly string[];
}

export interface StoredReport {
  webhookDeliveryId: string | null;
  channelDeliveries: CreatedDelivery[];
}

/**
 * The longest the storing transaction may stay open: an organization of 200,000 Services sends a 174 MB
 * JSON document and a 73 MB CSV in it, which Postgres compresses (about 1.6 s here; Prisma's default of
 * 5 s once cut such a report short, and it was never stored: bench/RESULTS.md, report24d).
 */
const STORE_TIMEOUT_MS = 300_000;
/** The longest the store waits for a pooled connection. */
const STORE_CONNECTION_WAIT_MS = 10_000;

/**
 * Stores a made report and creates its deliveries in one transaction that locks the report's row: only
 * the first caller finds it not ready yet (a retry, or a second worker that raced, gets null), so the
 * report and each of its deliveries exist once.
 *
 * Decision: on pg directly (inPgTransaction), the bodies as text serialised by the caller. Through
 * Prisma's raw statements the organization's bodies took 7.3-8.1 s to store, through pg 1.6 s
 * (bench/RESULTS.md, reportstore24); given to Prisma as objects, they cost the worker gigabytes. Each
 * large body goes in a statement of its own: `pg` builds a statement's message in one buffer growing by
 * half again, so the JSON and CSV of 200,000 Services together held about 500 MB of it at once, alone
 * at most the JSON's 174 MB (bench/RESULTS.md, reportmem25). Postgres keeps the bodies already stored
 * as they are when the row is updated again.
 */
export function storeMadeReport(pool: pg.Pool, made: MadeReport): Promise<StoredReport | null> {
  const timing = { timeoutMs: STORE_TIMEOUT_MS, maxWaitMs: STORE_CONNECTION_WAIT_MS };
  return inPgTransaction(pool, timing, async (tx) => {
    const [row] = await tx.$queryRaw<{ status: string }[]>`
      SELECT status::text FROM reports WHERE id = ${made.reportId}::uuid FOR UPDATE`;
    if (!row || row.status === 'ready') return null;
    // One body a statement: see the decision above.
    await tx.$executeRaw`UPDATE reports SET document_json = ${made.documentJson} WHERE id = ${made.reportId}::uuid`;
    if (made.csv !== null) await tx.$executeRaw`UPDATE reports SET csv = ${made.csv} WHERE id = ${made.reportId}::uuid`;
    await tx.$executeRaw`
      UPDATE reports
         SET status = 'ready', error = NULL, summary = ${made.summaryJson}::jsonb, html = ${made.html},
             generated_at = ${made.generatedAt}
       WHERE id = ${made.reportId}::uuid`;
    const [webhook] = made.webhookUrl
      ? await tx.$queryRaw<{ id: string }[]>`
          INSERT INTO webhook_deliveries (id, report_id, url)
          VALUES (gen_random_uuid(), ${made.reportId}::uuid, ${made.webhookUrl}) RETURNING id::text`
      : [];
    const channelDeliveries = await createReportDeliveries(tx, {
      organizationId: made.organizationId,
      reportId: made.reportId,
      channelIds: made.channelIds,
    });
    return { webhookDeliveryId: webhook?.id ?? null, channelDeliveries };
  });
}

/** After the last attempt: the report says it failed, and why. */
export async function markReportFailed(db: Db, reportId: string, reason: string): Promise<void> {
  await db.report.updateMany({
    where: { id: reportId, status: 'pending' },
    data: { status: 'failed', error: reason.slice(0, 2000) },
  });
}

/** A signed-webhook delivery with its report and schedule, or null when it was deleted. */
export function webhookDeliveryToSend(db: Db, deliveryId: string) {
  return db.webhookDelivery.findUnique({
    where: { id: deliveryId },
    include: { report: { include: { schedule: true } } },
  });
}

export interface WebhookAttempt {
  attempt: number;
  url: string;
  at: Date;
  ok: boolean;
  final: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** When the next attempt is due, if there is one. */
  nextAttemptAt: Date | null;
}

/** Appends the attempt to the delivery's log and sets its status; a delivery no longer pending is left alone. */
export async function recordWebhookAttempt(db: Db, deliveryId: string, attempt: WebhookAttempt): Promise<void> {
  const status = attempt.ok ? 'succeeded' : attempt.final ? 'failed' : 'pending';
  const entry = {
    attempt: attempt.attempt,
    at: attempt.at.toISOString(),
    statusCode: attempt.statusCode,
    error: attempt.error,
    durationMs: attempt.durationMs,
  };
  await db.$executeRaw`
    UPDATE webhook_deliveries
       SET attempts = attempts + 1, url = ${attempt.url}, status = ${status}::webhook_delivery_status,
           last_attempt_at = ${attempt.at}, last_status_code = ${attempt.statusCode}, last_error = ${attempt.error},
           next_attempt_at = ${status === 'pending' ? attempt.nextAttemptAt : null}::timestamptz,
           delivered_at = ${attempt.ok ? new Date() : null}::timestamptz,
           log = log || ${JSON.stringify([entry])}::jsonb
     WHERE id = ${deliveryId}::uuid AND status = 'pending'`;
}

/** One schedule, or null when it was deleted. */
export function reportScheduleById(db: Db, scheduleId: string) {
  return db.reportSchedule.findUnique({ where: { id: scheduleId } });
}

/** Every enabled schedule, for the sweep that reconciles their job schedulers. */
export function enabledReportSchedules(db: Db) {
  return db.reportSchedule.findMany({ where: { enabled: true } });
}

/** Ids of reports still pending since before `createdBefore` (their job may be lost), oldest first. */
export async function pendingReportIds(db: Db, createdBefore: Date, limit: number): Promise<string[]> {
  const rows = await db.report.findMany({
    where: { status: 'pending', createdAt: { lt: createdBefore } },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
    take: limit,
  });
  return rows.map((row) => row.id);
}

/** A pending report whose job gave up: failed, with why; 1 if this call failed it. */
export async function failPendingReport(db: Db, reportId: string, error: string): Promise<number> {
  const { count } = await db.report.updateMany({
    where: { id: reportId, status: 'pending' },
    data: { status: 'failed', error },
  });
  return count;
}

/** Ids of signed-webhook deliveries still pending since before `createdBefore`, oldest first. */
export async function pendingWebhookDeliveryIds(db: Db, createdBefore: Date, limit: number): Promise<string[]> {
  const rows = await db.webhookDelivery.findMany({
    where: { status: 'pending', createdAt: { lt: createdBefore } },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
    take: limit,
  });
  return rows.map((row) => row.id);
}

/** A pending signed-webhook delivery whose job gave up: failed, with why; 1 if this call failed it. */
export async function failPendingWebhookDelivery(db: Db, deliveryId: string, error: string): Promise<number> {
  const { count } = await db.webhookDelivery.updateMany({
    where: { id: deliveryId, status: 'pending' },
    data: { status: 'failed', lastError: error, nextAttemptAt: null },
  });
  return count;
}
