import { Inject, Injectable } from '@nestjs/common';
import { type AuditLogEntry, auditLogEntries, PrismaService } from '@zw/db';
import type { z } from 'zod';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import type { AuditEntrySchema, AuditLogQuery, AuditLogSchema } from './audit-log.schemas.js';

export function entryView(row: AuditLogEntry): z.output<typeof AuditEntrySchema> {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: {
      type: row.actorType as 'api_key' | 'sso' | 'bearer_token' | 'admin_cli',
      keyId: row.actorKeyId,
      name: row.actorName,
      subject: row.actorSubject,
      email: row.actorEmail,
      role: row.actorRole,
      clientAddress: row.clientAddress,
    },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    details: row.details as Record<string, unknown>,
  };
}

/** Reads an organization's audit log, newest first, for REST and GraphQL alike. */
@Injectable()
export class AuditLogService {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async list(organizationId: string, input: z.output<typeof AuditLogQuery>): Promise<z.output<typeof AuditLogSchema>> {
    const print = fingerprint(['audit-log', input.action, input.from, input.to]);
    const after = decodeCursor(input.cursor, print);
    const rows = await auditLogEntries(this.prisma, organizationId, {
      action: input.action,
      from: input.from ? new Date(input.from) : undefined,
      to: input.to ? new Date(input.to) : undefined,
      after: after ? { at: new Date(String(after.k[0])), id: String(after.k[1]) } : null,
      take: input.limit + 1,
    });
    const page = rows.slice(0, input.limit);
    const last = page[page.length - 1];
    return {
      entries: page.map(entryView),
      nextCursor: rows.length > input.limit ? encodeCursor({ f: print, k: [last.at.toISOString(), last.id] }) : null,
    };
  }
}
