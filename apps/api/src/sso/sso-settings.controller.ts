import { Body, Controller, Delete, Get, HttpCode, Inject, Put, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  type AuditActor,
  deleteSsoSettings,
  findSsoSettings,
  organizationSlugOf,
  Prisma,
  PrismaService,
  recordAudit,
  revokeOrganizationSessions,
  saveSsoSettings,
} from '@zw/db';
import { outboundUrlProblem } from '@zw/reports';
import type { SecretKeyring } from '@zw/secrets';
import { ConfigService } from '@nestjs/config';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { CurrentActor } from '../audit/audit-actor.js';
import { AdminOnly, ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { SECRET_KEYRING } from '../auth/secret-keyring.js';
import { SessionAuthenticator } from '../auth/session-authenticator.js';
import type { ApiConfig } from '../config.js';
import { ApiBodyFrom, ApiResponseFrom } from '../http/openapi.js';
import { isoDate, RoleSchema } from '../http/schemas.js';
import { parseInput } from '../http/validation.js';
import { ProblemException, validationProblem } from '../problem.js';
import { OidcIssuers } from '../auth/oidc-issuers.js';
import { SignInService } from './sign-in.service.js';

const RoleMappingSchema = z.object({
  group: z
    .string()
    .min(1)
    .max(256)
    .describe("a group as the provider names it in the groups claim, e.g. 'zonewise-admins'"),
  role: RoleSchema,
});

const SsoSettingsBody = z
  .object({
    issuer: z
      .string()
      .url()
      .max(500)
      .describe(
        "the provider's issuer identifier; its discovery document must answer at <issuer>/.well-known/openid-configuration",
      ),
    clientId: z.string().min(1).max(500),
    clientSecret: z
      .string()
      .min(1)
      .max(2000)
      .nullable()
      .optional()
      .describe(
        'the client secret (stored encrypted, never shown again); omit to keep the stored one, null for a public client (PKCE alone)',
      ),
    audience: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("what a program's bearer token must name in `aud`; the client id when omitted"),
    groupsClaim: z.string().min(1).max(200).default('groups').describe('the claim that holds the groups'),
    roleMappings: z
      .array(RoleMappingSchema)
      .max(200)
      .default([])
      .describe('groups to roles; someone in several mapped groups gets the strongest role'),
    defaultRole: RoleSchema.nullable()
      .default(null)
      .describe('the role of someone none of whose groups is mapped; null: they cannot sign in'),
    enabled: z.boolean().default(true),
  })
  .strict();

const SsoSettingsSchema = z.object({
  configured: z.boolean(),
  settings: z
    .object({
      issuer: z.string(),
      clientId: z.string(),
      hasClientSecret: z.boolean().describe('whether a client secret is stored (it is never shown)'),
      audience: z.string(),
      groupsClaim: z.string(),
      roleMappings: z.array(RoleMappingSchema),
      defaultRole: RoleSchema.nullable(),
      enabled: z.boolean(),
      updatedAt: isoDate,
      problem: z
        .string()
        .nullable()
        .describe('why sign-in cannot work as stored (e.g. the secret cannot be decrypted)'),
    })
    .nullable(),
  redirectUri: z.string().describe('register this redirect URI with the identity provider'),
  signInUrl: z.string().describe("the organization's sign-in page: bookmark or share it"),
});

type SsoSettingsView = z.output<typeof SsoSettingsSchema>;

type ExpressRequest = IncomingMessage & { protocol?: string; get?: (name: string) => string | undefined };

/** The organization's single sign-on: its OpenID Connect provider, client, and how groups map to roles. */
@ApiTags('sign-in')
@ApiKeyAuth()
@Controller('v1/sso')
export class SsoSettingsController {
  private readonly allowPrivate: boolean;

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(OidcIssuers) private readonly issuers: OidcIssuers,
    @Inject(SignInService) private readonly signIn: SignInService,
    @Inject(SessionAuthenticator) private readonly sessions: SessionAuthenticator,
    @Inject(SECRET_KEYRING) private readonly keyring: SecretKeyring | null,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.allowPrivate = config.get('SSO_ALLOW_PRIVATE_ISSUERS', { infer: true });
  }

  @Get()
  @AdminOnly()
  @ApiOperation({ summary: 'The single sign-on settings (never the client secret), the redirect URI and sign-in URL' })
  @ApiResponseFrom(200, SsoSettingsSchema, 'the settings, or configured false')
  get(@CurrentCaller() caller: Caller, @Req() request: ExpressRequest): Promise<SsoSettingsView> {
    return this.view(caller.organizationId, request);
  }

  @Put()
  @AdminOnly()
  @ApiOperation({
    summary: "Set the organization's single sign-on: its provider is checked (discovery) before the settings are saved",
  })
  @ApiBodyFrom(SsoSettingsBody)
  @ApiResponseFrom(200, SsoSettingsSchema, 'the settings as saved')
  @ApiResponse({ status: 409, description: 'another organization takes tokens of this issuer for this audience' })
  async put(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Body() body: unknown,
    @Req() request: ExpressRequest,
  ): Promise<SsoSettingsView> {
    const input = parseInput(SsoSettingsBody, body, 'body');
    const problem = outboundUrlProblem(input.issuer, this.allowPrivate);
    if (problem) throw validationProblem([{ location: 'body', field: 'issuer', message: problem }]);
    if (input.clientSecret && !this.keyring) {
      throw validationProblem([
        {
          location: 'body',
          field: 'clientSecret',
          message: 'this deployment stores no secrets: its operator must set SECRET_ENCRYPTION_KEYS',
        },
      ]);
    }
    const stored = await findSsoSettings(this.prisma, caller.organizationId, this.keyring);
    const secret = input.clientSecret === undefined ? (stored?.clientSecret ?? null) : input.clientSecret;
    try {
      await this.issuers.discover({ issuer: input.issuer, clientId: input.clientId, clientSecret: secret });
    } catch (error) {
      throw validationProblem([
        {
          location: 'body',
          field: 'issuer',
          message: `its discovery document could not be read: ${error instanceof Error ? error.message : String(error)}`,
        },
      ]);
    }
    const settings = { ...input, audience: input.audience ?? input.clientId };
    try {
      await this.prisma.$transaction(async (tx) => {
        await saveSsoSettings(tx, caller.organizationId, settings, this.keyring);
        await recordAudit(tx, actor, {
          organizationId: caller.organizationId,
          action: 'sso.update',
          targetType: 'sso',
          targetId: caller.organizationId,
          details: {
            issuer: settings.issuer,
            clientId: settings.clientId,
            audience: settings.audience,
            clientSecretChanged: input.clientSecret !== undefined,
            groupsClaim: settings.groupsClaim,
            roleMappings: settings.roleMappings,
            defaultRole: settings.defaultRole,
            enabled: settings.enabled,
          },
        });
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new ProblemException(
          409,
          `another organization already takes tokens of ${settings.issuer} for audience ${settings.audience}: give this one another audience`,
        );
      }
      throw error;
    }
    return this.view(caller.organizationId, request);
  }

  @Delete()
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Turn single sign-on off: its settings go, and every dashboard session of the organization ends',
  })
  async delete(@CurrentCaller() caller: Caller, @CurrentActor() actor: AuditActor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const deleted = await deleteSsoSettings(tx, caller.organizationId);
      if (!deleted) return;
      const ended = await revokeOrganizationSessions(tx, caller.organizationId);
      await recordAudit(tx, actor, {
        organizationId: caller.organizationId,
        action: 'sso.delete',
        targetType: 'sso',
        targetId: caller.organizationId,
        details: { sessionsEnded: ended },
      });
    });
    this.sessions.forget((session) => session.organizationId === caller.organizationId);
  }

  private async view(organizationId: string, request: ExpressRequest): Promise<SsoSettingsView> {
    const [settings, slug] = await Promise.all([
      findSsoSettings(this.prisma, organizationId, this.keyring),
      organizationSlugOf(this.prisma, organizationId),
    ]);
    const base = this.signIn.baseUrl(request);
    return {
      configured: settings !== null,
      settings: settings
        ? {
            issuer: settings.issuer,
            clientId: settings.clientId,
            hasClientSecret: settings.hasClientSecret,
            audience: settings.audience,
            groupsClaim: settings.groupsClaim,
            roleMappings: settings.roleMappings,
            defaultRole: settings.defaultRole,
            enabled: settings.enabled,
            updatedAt: settings.updatedAt.toISOString(),
            problem: settings.secretProblem,
          }
        : null,
      redirectUri: this.signIn.redirectUri(request),
      signInUrl: `${base}/sign-in/${slug}`,
    };
  }
}
