import { Controller, Get, Inject, Req } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { organizationIdentity, PrismaService } from '@zw/db';
import { z } from 'zod';
import { ApiResponseFrom } from '../http/openapi.js';
import { isoDate, RoleSchema } from '../http/schemas.js';
import { ApiKeyAuth } from './auth.decorators.js';
import { type Caller, CurrentCaller } from './caller.js';
import { cookieOf, csrfTokenOf, SESSION_COOKIE } from './cookies.js';

const MeSchema = z.object({
  organization: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }),
  via: z
    .enum(['api_key', 'sso', 'bearer_token'])
    .describe('an API key, a dashboard session signed in through SSO, or a token of the identity provider'),
  role: RoleSchema.describe(
    'viewer reads; operator also runs reports and manages traffic, prices and alert rules; admin manages the rest',
  ),
  name: z.string().describe("the key's name, the person's name or email, or the token's subject"),
  subject: z.string().nullable().describe("the identity provider's subject (sso and bearer_token)"),
  email: z.string().nullable(),
  expiresAt: isoDate
    .nullable()
    .describe('when these credentials stop working: the key expires, the session ends; null: never'),
  apiKey: z
    .object({ id: z.uuid(), name: z.string(), role: RoleSchema, expiresAt: isoDate.nullable() })
    .nullable()
    .describe('the calling key (via api_key)'),
  session: z
    .object({ id: z.uuid(), expiresAt: isoDate, csrfToken: z.string() })
    .nullable()
    .describe(
      'the dashboard session (via sso): send csrfToken as X-CSRF-Token with every request that changes something',
    ),
});

/** Who is calling: a client (the dashboard) shows what the caller may do, and hides what it may not. */
@ApiTags('api-keys')
@ApiKeyAuth()
@Controller('v1/me')
export class MeController {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  @Get()
  @ApiOperation({
    summary: 'The caller: its organization, role, identity and when its credentials expire (never a secret)',
  })
  @ApiResponseFrom(200, MeSchema, 'the caller')
  async me(@CurrentCaller() caller: Caller, @Req() request: IncomingMessage): Promise<z.output<typeof MeSchema>> {
    const organization = await organizationIdentity(this.prisma, caller.organizationId);
    const expiresAt = caller.expiresAt?.toISOString() ?? null;
    return {
      organization,
      via: caller.via,
      role: caller.role,
      name: caller.name,
      subject: caller.subject,
      email: caller.email,
      expiresAt,
      apiKey: caller.keyId ? { id: caller.keyId, name: caller.name, role: caller.role, expiresAt } : null,
      session: caller.sessionId
        ? {
            id: caller.sessionId,
            expiresAt: expiresAt!,
            csrfToken: csrfTokenOf(cookieOf(request, SESSION_COOKIE) ?? ''),
          }
        : null,
    };
  }
}
