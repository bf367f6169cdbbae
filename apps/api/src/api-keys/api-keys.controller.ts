import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type ApiKey, createApiKey, PrismaService } from '@zw/db';
import { z } from 'zod';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator.js';
import { AdminOnly, ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiPathParams, ApiResponseFrom } from '../http/openapi.js';
import { isoDate } from '../http/schemas.js';
import { parseInput } from '../http/validation.js';
import { notFound } from '../problem.js';

const CreateApiKeyBody = z
  .object({
    name: z.string().min(1).max(100).describe('what the key is for, e.g. "grafana" or "ci-reports"'),
    scopes: z
      .array(z.enum(['read', 'admin']))
      .min(1)
      .default(['read'])
      .describe('`read`: every query; `admin`: also create, change and delete clusters, keys and traffic values'),
  })
  .strict();

const ApiKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  scopes: z.array(z.enum(['read', 'admin'])),
  prefix: z.string().describe("the key's first characters"),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
});

const CreatedApiKeySchema = z.object({
  apiKey: ApiKeySchema,
  key: z.string().describe('the secret, shown only in this answer'),
});

function apiKeyView(row: ApiKey): z.output<typeof ApiKeySchema> {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    prefix: row.keyPrefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
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
  async create(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    const input = parseInput(CreateApiKeyBody, body, 'body');
    const { apiKey, key } = await createApiKey(this.prisma, { organizationId: caller.organizationId, ...input });
    return { apiKey: apiKeyView(apiKey), key };
  }

  @Get()
  @AdminOnly()
  @ApiOperation({ summary: "The organization's API keys (never their secrets)" })
  @ApiResponseFrom(200, z.object({ apiKeys: z.array(ApiKeySchema) }), 'every key, newest first')
  async list(@CurrentCaller() caller: Caller) {
    const rows = await this.prisma.apiKey.findMany({
      where: { organizationId: caller.organizationId },
      orderBy: { createdAt: 'desc' },
    });
    return { apiKeys: rows.map(apiKeyView) };
  }

  @Delete(':id')
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key: it answers 401 from now on' })
  @ApiPathParams({ id: 'API key id' })
  async revoke(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<void> {
    const keyId = parseInput(keyIdParam, { id }, 'path').id;
    const { count } = await this.prisma.apiKey.updateMany({
      where: { id: keyId, organizationId: caller.organizationId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (count === 0) {
      const exists = await this.prisma.apiKey.count({ where: { id: keyId, organizationId: caller.organizationId } });
      if (exists === 0) throw notFound(`no API key ${keyId} in your organization`);
    }
    this.authenticator.forget(keyId);
  }
}
