/**
 * The alert deliveries' life in Postgres: one row per message to one channel (an alert opening or
 * resolving, a test, a scheduled report), claimed before it is sent and finished once its outcome is
 * known. The row's id is the BullMQ job id and the receivers' idempotency key.
 */
import type { CreatedDelivery } from './alerts.js';
import type { Db } from './db-client.js';
import type { SqlClient } from './sql-client.js';

/** pending → sending → succeeded | failed (after the last attempt) | skipped. */
export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed' | 'skipped';

/**
 * One delivery of the report to each of `channelIds` that is the organization's and enabled; a report
 * reaches a channel once (unique report_id, channel_id), whoever makes it twice.
 */
export async function createReportDeliveries(
  tx: SqlClient,
  input: { organizationId: string; reportId: string; channelIds: readonly string[] },
): Promise<CreatedDelivery[]> {
  if (input.channelIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO alert_deliveries (id, organization_id, channel_id, report_id, event)
    SELECT gen_random_uuid(), ${input.organizationId}::uuid, ch.id, ${input.reportId}::uuid, 'report'
      FROM alert_channels ch
     WHERE ch.organization_id = ${input.organizationId}::uuid AND ch.enabled
       AND ch.id = ANY(${[...input.channelIds]}::uuid[])
    ON CONFLICT (report_id, channel_id) DO NOTHING
    RETURNING id::text`;
  return rows.map((row) => ({ id: row.id, notBefore: null }));
}

/** A delivery with what its message is made of: the channel, the alert (and its rule's name) or the report. */
export function deliveryToSend(db: Db, id: string) {
  return db.alertDelivery.findUnique({
    where: { id },
    include: {
      channel: true,
      alert: { include: { rule: { select: { name: true } } } },
      report: {
        select: {
          id: true,
          periodStart: true,
          periodEnd: true,
          partial: true,
          generatedAt: true,
          summary: true,
          html: true,
          csv: true,
          schedule: { select: { id: true, name: true } },
        },
      },
    },
  });
}

export type DeliveryToSend = NonNullable<Awaited<ReturnType<typeof deliveryToSend>>>;

/** The organization's names, as messages show them. */
export function organizationNames(db: Db, organizationId: string): Promise<{ slug: string; name: string }> {
  return db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { slug: true, name: true } });
}

/** The pending resolve of an alert on a channel (an alert opened and cleared during quiet hours). */
/**
 * The other message of an alert on a channel (its resolve for an opening, its opening for a resolve),
 * still held for quiet hours and not yet sent.
 */
export function heldCounterpart(db: Db, alertId: string, channelId: string, event: 'opened' | 'resolved') {
  return db.alertDelivery.findFirst({
    where: {
      alertId,
      channelId,
      event: event === 'opened' ? 'resolved' : 'opened',
      status: 'pending',
      notBefore: { not: null },
    },
    select: { id: true },
  });
}

/**
 * Claims the delivery for one attempt (pending or interrupted `sending` → `sending`, attempts + 1) before
 * anything leaves; false when it finished meanwhile.
 */
export async function claimDelivery(db: Db, id: string, now: Date): Promise<boolean> {
  const claimed = await db.alertDelivery.updateMany({
    where: { id, status: { in: ['pending', 'sending'] } },
    data: { status: 'sending', attempts: { increment: 1 }, lastAttemptAt: now },
  });
  return claimed.count === 1;
}

/** Records the attempt's outcome: succeeded, back to pending for a retry, or failed after the last one. */
export async function finishAttempt(
  db: Db,
  id: string,
  outcome: { ok: boolean; final: boolean; statusCode: number | null; error: string | null; at: Date },
): Promise<void> {
  await db.alertDelivery.updateMany({
    where: { id, status: 'sending' },
    data: {
      status: outcome.ok ? 'succeeded' : outcome.final ? 'failed' : 'pending',
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      sentAt: outcome.ok ? outcome.at : null,
    },
  });
}

/** A delivery that will not be sent (its channel disabled, its alert cleared in quiet hours), and why. */
export async function skipDelivery(db: Db, id: string, why: string): Promise<void> {
  await db.alertDelivery.updateMany({
    where: { id, status: { in: ['pending', 'sending'] } },
    data: { status: 'skipped', lastStatusCode: null, lastError: why },
  });
}

/** Those of `ids` that are alert channels of the organization. */
export async function organizationChannelIds(
  db: Db,
  organizationId: string,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.alertChannel.findMany({
    where: { organizationId, id: { in: [...ids] } },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

/** A deleted channel leaves the rules and report schedules that named it. */
export async function detachChannel(tx: Db, organizationId: string, channelId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE alert_rules SET channel_ids = array_remove(channel_ids, ${channelId}::uuid), updated_at = now()
     WHERE organization_id = ${organizationId}::uuid AND ${channelId}::uuid = ANY(channel_ids)`;
  await tx.$executeRaw`
    UPDATE report_schedules SET channel_ids = array_remove(channel_ids, ${channelId}::uuid), updated_at = now()
     WHERE organization_id = ${organizationId}::uuid AND ${channelId}::uuid = ANY(channel_ids)`;
}

/** The alerts a grouped delivery tells of, by subject, with their rule's name. */
export function alertsOfGroup(db: Db, alertIds: readonly string[]) {
  return db.alert.findMany({
    where: { id: { in: [...alertIds] } },
    include: { rule: { select: { name: true } } },
    orderBy: { subject: 'asc' },
  });
}

/** Queues a test message to the organization's channel: a delivery like any other, shown in its log. */
export function createTestDelivery(
  db: Db,
  organizationId: string,
  channelId: string,
): Promise<{ id: string; notBefore: Date | null }> {
  return db.alertDelivery.create({
    data: { organizationId, channelId, event: 'test' },
    select: { id: true, notBefore: true },
  });
}
