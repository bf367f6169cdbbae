import type { Db } from './db-client.js';
import type { AuditLogEntry, Prisma, Role } from './generated/prisma/client.js';

/**
 * Who made a change: an API key, a person signed in through the organization's identity provider (`sso`),
 * a program presenting a token of that provider (`bearer_token`), or the operator's admin CLI; with the
 * client's address when it came through the API.
 */
export interface AuditActor {
  type: 'api_key' | 'sso' | 'bearer_token' | 'admin_cli';
  keyId: string | null;
  /** The key's name, the person's name or email, the token's subject, or the admin CLI's user. */
  name: string;
  /** The identity provider's `sub` (sso and bearer_token). */
  subject?: string | null;
  email?: string | null;
  /** The role acted with (none for the admin CLI). */
  role?: Role | null;
  clientAddress: string | null;
}

/** What was done: `<thing>.<verb>` on a target, with what changed (never a secret). */
export interface AuditEvent {
  organizationId: string;
  action: string;
  targetType: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

/** Writes one audit entry; pass the change's transaction so the entry stands or falls with it. */
export async function recordAudit(db: Db, actor: AuditActor, event: AuditEvent): Promise<void> {
  await db.auditLogEntry.create({
    data: {
      organizationId: event.organizationId,
      actorType: actor.type,
      actorKeyId: actor.keyId,
      actorName: actor.name,
      actorSubject: actor.subject ?? null,
      actorEmail: actor.email ?? null,
      actorRole: actor.role ?? null,
      clientAddress: actor.clientAddress,
      action: event.action,
      targetType: event.targetType,
      targetId: event.targetId ?? null,
      details: (event.details ?? {}) as Prisma.InputJsonValue,
    },
  });
}

/** Deletes audit entries older than `before`, in batches; returns how many. */
export async function pruneAuditLog(db: Db, before: Date, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRaw`
      DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ${before} LIMIT ${batch})`;
    total += deleted;
    if (deleted < batch) return total;
  }
}

/** Which of an organization's audit entries to read, newest first. */
export interface AuditLogQuery {
  /** `<thing>.<verb>` for that action alone, `<thing>` for every action on that thing. */
  action?: string;
  from?: Date;
  /** Exclusive. */
  to?: Date;
  /** The last entry of the previous page: the page starts after it. */
  after?: { at: Date; id: string } | null;
  take: number;
}

/** The organization's audit entries, newest first (ties by id), `take` at most. */
export async function auditLogEntries(db: Db, organizationId: string, query: AuditLogQuery): Promise<AuditLogEntry[]> {
  const { action, from, to, after } = query;
  return db.auditLogEntry.findMany({
    where: {
      organizationId,
      ...(action ? (action.includes('.') ? { action } : { action: { startsWith: `${action}.` } }) : {}),
      at: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) },
      ...(after ? { OR: [{ at: { lt: after.at } }, { at: after.at, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: query.take,
  });
}
