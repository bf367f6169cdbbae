import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type ApiKey,
  apiKeyOf,
  apiKeysOf,
  type AuditActor,
  createAuditedApiKey,
  PrismaService,
  recordAudit,
  revokeApiKey,
  type Role,
} from '@zw/db';
import { z } from 'zod';
import { CurrentActor } from '../audit/audit-actor.js';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator.js';
import { AdminOnly, ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiPathParams, ApiResponseFrom } from '../http/openapi.js';
import { isoDate, RoleSchema } from '../http/schemas.js';
import { parseInput } from '../http/validation.js';
import { notFound } from '../problem.js';
import { DAY_MS } from '@zw/core';

const CreateApiKeyBody = z
  .object({
    name: z.string().min(1).max(100).describe('what the key is for, e.g. "grafana" or "ci-reports"'),
    role: RoleSchema.optional().describe(
      '`viewer` (the default): every query; `operator`: also run reports, manage traffic sources, prices, traffic values and alert rules; `admin`: also keys, clusters, members, channels, schedules and SSO',
    ),
    scopes: z
      .array(z.enum(['read', 'admin']))
      .min(1)
      .optional()
      .describe('the older form of `role`: `["read"]` is viewer, `["admin"]` (or both) is admin'),
    expiresAt: z.iso
      .datetime({ offset: true, message: 'expected an RFC 3339 timestamp in the future' })
      .optional()
      .describe('when the key stops working (RFC 3339); omit for a key that never expires'),
    expiresInDays: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .optional()
      .describe('alternatively, how many days from now the key works'),
  })
  .strict()
  .refine((body) => body.role === undefined || body.scopes === undefined, {
    message: 'give role or scopes, not both',
    path: ['scopes'],
  })
  .refine((body) => body.expiresAt === undefined || body.expiresInDays === undefined, {
    message: 'give expiresAt or expiresInDays, not both',
    path: ['expiresAt'],
  })
  .refine((body) => body.expiresAt === undefined || Date.parse(body.expiresAt) > Date.now(), {
    message: 'must be in the future',
    path: ['expiresAt'],
  });

/** The role the older `scopes` form asked for. */
function roleOfScopes(scopes: readonly ('read' | 'admin')[] | undefined): Role {
  return scopes?.includes('admin') ? 'admin' : 'viewer';
}

const ApiKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  role: RoleSchema,
  prefix: z.string().describe("the key's first characters"),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
  expiresAt: isoDate.nullable().describe('from then on the key answers 401 "expired"; null: never'),
});

const CreatedApiKeySchema = z.object({
  apiKey: ApiKeySchema,
  key: z.string().describe('the secret, shown only in this answer'),
});

const ApiKeyListSchema = z.object({ apiKeys: z.array(ApiKeySchema) });

type ApiKeyView = z.output<typeof ApiKeySchema>;

function apiKeyView(row: ApiKey): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    prefix: row.keyPrefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

const keyIdParam = z.object({ id: z.uuid({ message: 'must be a UUID' }) });

@ApiTags('api-keys')
@ApiKeyAuth()
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ApiKeyAuthenticator) private readonly authenticator: ApiKeyAuthenticator,
  ) {}

  @Post()
  @AdminOnly()
  @ApiOperation({ summary: 'Create an API key for this organization; the secret is shown only once' })
  @ApiBodyFrom(CreateApiKeyBody)
  @ApiResponseFrom(201, CreatedApiKeySchema, 'created')
  async create(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Body() body: unknown,
  ): Promise<z.output<typeof CreatedApiKeySchema>> {
    const { expiresAt, expiresInDays, role, scopes, name } = parseInput(CreateApiKeyBody, body, 'body');
    const expiry =
      expiresAt !== undefined
        ? new Date(expiresAt)
        : expiresInDays !== undefined
          ? new Date(Date.now() + expiresInDays * DAY_MS)
          : null;
    const { apiKey, key } = await createAuditedApiKey(
      this.prisma,
      { organizationId: caller.organizationId, name, role: role ?? roleOfScopes(scopes), expiresAt: expiry },
      actor,
    );
    return { apiKey: apiKeyView(apiKey), key };
  }

  @Get()
  @AdminOnly()
  @ApiOperation({ summary: "The organization's API keys (never their secrets)" })
  @ApiResponseFrom(200, ApiKeyListSchema, 'every key, newest first')
  async list(@CurrentCaller() caller: Caller): Promise<z.output<typeof ApiKeyListSchema>> {
    const rows = await apiKeysOf(this.prisma, caller.organizationId);
    return { apiKeys: rows.map(apiKeyView) };
  }

  @Delete(':id')
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key: it answers 401 from now on' })
  @ApiPathParams({ id: 'API key id' })
  async revoke(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<void> {
    const keyId = parseInput(keyIdParam, { id }, 'path').id;
    await this.prisma.$transaction(async (tx) => {
      const key = await apiKeyOf(tx, caller.organizationId, keyId);
      if (!key) throw notFound(`no API key ${keyId} in your organization`);
      if (key.revokedAt !== null) return; // revoking twice changes nothing, and is not logged twice
      await revokeApiKey(tx, keyId);
      await recordAudit(tx, actor, {
        organizationId: caller.organizationId,
        action: 'api_key.revoke',
        targetType: 'api_key',
        targetId: keyId,
        details: { name: key.name, prefix: key.keyPrefix },
      });
    });
    this.authenticator.forget(keyId);
  }
}
