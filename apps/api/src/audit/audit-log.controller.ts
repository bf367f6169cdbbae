import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Prisma, PrismaService } from '@zw/db';
import { z } from 'zod';
import { AdminOnly, ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { cursorSchema, decodeCursor, encodeCursor, fingerprint, limitSchema } from '../http/pagination.js';
import { isoDate } from '../http/schemas.js';
import { parseInput } from '../http/validation.js';

const timestamp = z.iso.datetime({ offset: true, message: 'expected an RFC 3339 timestamp' });

export const AuditLogQuery = z
  .object({
    action: z
      .string()
      .regex(/^[a-z_]+(\.[a-z_]+)?$/, 'expected an action such as "cluster.delete", or a prefix such as "cluster"')
      .optional()
      .describe('an action (`api_key.create`) or every action on a kind of thing (`api_key`)'),
    from: timestamp.optional().describe('entries at or after this instant'),
    to: timestamp.optional().describe('entries before this instant'),
    limit: limitSchema(50, 500),
    cursor: cursorSchema,
  })
  .strict();

const AuditEntrySchema = z.object({
  id: z.uuid(),
  at: isoDate,
  actor: z.object({
    type: z.enum(['api_key', 'admin_cli']),
    keyId: z.uuid().nullable().describe('the API key that acted (null for the admin CLI)'),
    name: z.string().describe("the key's name, or the operating-system user of the admin CLI"),
    clientAddress: z.string().nullable().describe("the client's address as the API saw it"),
  }),
  action: z.string().describe('`<thing>.<verb>`, e.g. `cluster.price_change`'),
  target: z.object({ type: z.string(), id: z.string().nullable() }),
  details: z.record(z.string(), z.unknown()).describe('what changed (names, old and new values); never a secret'),
});

export const AuditLogSchema = z.object({
  entries: z.array(AuditEntrySchema),
  nextCursor: z.string().nullable(),
});

type AuditRow = Prisma.AuditLogEntryGetPayload<object>;

function entryView(row: AuditRow): z.output<typeof AuditEntrySchema> {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: {
      type: row.actorType as 'api_key' | 'admin_cli',
      keyId: row.actorKeyId,
      name: row.actorName,
      clientAddress: row.clientAddress,
    },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    details: row.details as Record<string, unknown>,
  };
}

/** Who changed what in the organization, newest first; admins only. */
@ApiTags('audit-log')
@ApiKeyAuth()
@Controller('v1/audit-log')
export class AuditLogController {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  @Get()
  @AdminOnly()
  @ApiOperation({
    summary: 'The audit log: every change made by an admin key or the admin CLI, newest first (cursor-paginated)',
  })
  @ApiQueryFrom(AuditLogQuery)
  @ApiResponseFrom(200, AuditLogSchema, 'one page of entries')
  async list(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<z.output<typeof AuditLogSchema>> {
    const input = parseInput(AuditLogQuery, query, 'query');
    const print = fingerprint(['audit-log', input.action, input.from, input.to]);
    const after = decodeCursor(input.cursor, print);
    const afterAt = after ? new Date(String(after.k[0])) : null;
    const rows = await this.prisma.auditLogEntry.findMany({
      where: {
        organizationId: caller.organizationId,
        ...(input.action
          ? input.action.includes('.')
            ? { action: input.action }
            : { action: { startsWith: `${input.action}.` } }
          : {}),
        at: { ...(input.from ? { gte: new Date(input.from) } : {}), ...(input.to ? { lt: new Date(input.to) } : {}) },
        ...(afterAt ? { OR: [{ at: { lt: afterAt } }, { at: afterAt, id: { lt: String(after!.k[1]) } }] } : {}),
      },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
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
