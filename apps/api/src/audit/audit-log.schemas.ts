import { z } from 'zod';
import { cursorSchema, limitSchema } from '../http/pagination.js';
import { isoDate } from '../http/schemas.js';

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

export const AuditEntrySchema = z.object({
  id: z.uuid(),
  at: isoDate,
  actor: z.object({
    type: z
      .enum(['api_key', 'sso', 'bearer_token', 'admin_cli'])
      .describe(
        '`api_key`; `sso`: a person signed in through the identity provider; `bearer_token`: a program with its token; `admin_cli`',
      ),
    keyId: z.uuid().nullable().describe('the API key that acted (null otherwise)'),
    name: z
      .string()
      .describe(
        "the key's name, the person's name or email, the token's subject, or the admin CLI's operating-system user",
      ),
    subject: z.string().nullable().describe("the identity provider's subject (`sub`) of the person or program"),
    email: z.string().nullable().describe("the person's email, as the identity provider gave it"),
    role: z.enum(['viewer', 'operator', 'admin']).nullable().describe('the role acted with (null for the admin CLI)'),
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
