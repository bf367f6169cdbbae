import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  createSession,
  findSsoSettings,
  findSsoSettingsBySlug,
  groupsOfClaim,
  organizationSlugOf,
  PrismaService,
  recordAudit,
  recordSignInAttempt,
  revokeSession,
  roleOfGroups,
  type SsoSettings,
  takeSignInAttempt,
  upsertMember,
} from '@zw/db';
import type { SecretKeyring } from '@zw/secrets';
import type { IncomingMessage } from 'node:http';
import * as oidc from 'openid-client';
import type { Caller } from '../auth/caller.js';
import { SECRET_KEYRING } from '../auth/secret-keyring.js';
import { SessionAuthenticator } from '../auth/session-authenticator.js';
import type { ApiConfig } from '../config.js';
import { OidcIssuers } from '../auth/oidc-issuers.js';

/** How long a person has to come back from the identity provider. */
export const SIGN_IN_WINDOW_SECONDS = 600;
export const CALLBACK_PATH = '/v1/auth/sso/callback';

/** A sign-in that cannot go on: the person is sent back to the sign-in page with this sentence. */
export class SignInRefused extends Error {
  constructor(
    message: string,
    readonly organizationSlug: string | null = null,
  ) {
    super(message);
  }
}

export interface StartedSignIn {
  authorizationUrl: string;
  state: string;
}

export interface FinishedSignIn {
  sessionToken: string;
  expiresAt: Date;
  returnTo: string;
}

/** A path of this dashboard to go back to: relative, one leading slash (never `//host` or a scheme). */
export function safeReturnPath(value: string | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  return /^[\x21-\x7e]*$/.test(value) && value.length <= 2000 ? value : '/';
}

/**
 * Signing people in through their organization's OpenID Connect provider: authorization code with PKCE
 * (openid-client), the ID token's nonce and the browser's state cookie checked, the groups claim mapped to
 * a role, the member recorded and a server-side session opened (Postgres, so every replica knows it).
 *
 * Decision: a person picks their organization by its sign-in URL (`/sign-in/<organization slug>`, which the
 * SSO settings answer names, to bookmark or share), not by email-domain discovery: nothing on the sign-in
 * page lists organizations or tells whether one exists beyond the slug typed, and two organizations may
 * share a domain (and a provider).
 */
@Injectable()
export class SignInService {
  private readonly logger = new Logger('SignIn');
  private readonly publicUrl: string | undefined;
  private readonly sessionTtlSeconds: number;

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(OidcIssuers) private readonly issuers: OidcIssuers,
    @Inject(SessionAuthenticator) private readonly sessions: SessionAuthenticator,
    @Inject(SECRET_KEYRING) private readonly keyring: SecretKeyring | null,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.publicUrl = config.get('PUBLIC_URL', { infer: true });
    this.sessionTtlSeconds = config.get('SESSION_TTL_SECONDS', { infer: true });
  }

  get sessionTtl(): number {
    return this.sessionTtlSeconds;
  }

  /** Where people and links reach this deployment: PUBLIC_URL, else this request's scheme and host. */
  baseUrl(request: IncomingMessage & { protocol?: string; get?: (name: string) => string | undefined }): string {
    if (this.publicUrl) return this.publicUrl;
    const host = request.get?.('host') ?? request.headers.host ?? 'localhost';
    return `${request.protocol ?? 'http'}://${host}`;
  }

  redirectUri(request: IncomingMessage): string {
    return `${this.baseUrl(request)}${CALLBACK_PATH}`;
  }

  async start(slug: string, returnTo: string, request: IncomingMessage): Promise<StartedSignIn> {
    const found = await findSsoSettingsBySlug(this.prisma, slug, this.keyring);
    if (!found?.settings || !found.settings.enabled) {
      throw new SignInRefused(`the organization "${slug}" does not sign in through single sign-on`, slug);
    }
    const configuration = await this.configurationOf(found.settings, request, slug);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    await recordSignInAttempt(this.prisma, {
      state,
      organizationId: found.organization.id,
      codeVerifier,
      nonce,
      returnTo: safeReturnPath(returnTo),
      expiresAt: new Date(Date.now() + SIGN_IN_WINDOW_SECONDS * 1000),
    });
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri(request),
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { authorizationUrl: url.href, state };
  }

  /**
   * Finishes a sign-in the provider sent back: `query` is the callback's query string, `browserState` the
   * state cookie of the browser that started it (so a sign-in cannot be completed in another browser).
   */
  async finish(
    query: URLSearchParams,
    browserState: string | undefined,
    request: IncomingMessage & { ip?: string },
  ): Promise<FinishedSignIn> {
    const state = query.get('state') ?? '';
    if (!state || state !== browserState) {
      throw new SignInRefused(
        'this sign-in was not started in this browser, or took longer than ten minutes: start it again',
      );
    }
    const attempt = await takeSignInAttempt(this.prisma, state);
    if (!attempt) throw new SignInRefused('this sign-in expired or was already used: start it again');
    const slug = await organizationSlugOf(this.prisma, attempt.organizationId);
    if (query.get('error')) {
      throw new SignInRefused(
        `the identity provider refused the sign-in: ${query.get('error_description') ?? query.get('error')}`,
        slug,
      );
    }
    const settings = await findSsoSettings(this.prisma, attempt.organizationId, this.keyring);
    if (!settings?.enabled) throw new SignInRefused('single sign-on was turned off for this organization', slug);
    const configuration = await this.configurationOf(settings, request, slug);
    const currentUrl = new URL(this.redirectUri(request));
    currentUrl.search = query.toString();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      this.logger.warn(`sign-in to ${slug} refused by the token exchange: ${String(error)}`);
      throw new SignInRefused(`the identity provider's answer could not be accepted: ${messageOf(error)}`, slug);
    }
    const claims = { ...(await this.userInfo(configuration, tokens)), ...tokens.claims()! };
    const groups = groupsOfClaim(claims[settings.groupsClaim]);
    const role = roleOfGroups(settings, groups);
    if (!role) {
      throw new SignInRefused(
        `your groups (${groups.join(', ') || 'none'}) give you no role in this organization: ask its admin to map one of them`,
        slug,
      );
    }
    const subject = String(claims.sub);
    const email = typeof claims.email === 'string' ? claims.email : null;
    const name = typeof claims.name === 'string' ? claims.name : null;
    const clientAddress = request.ip ?? request.socket?.remoteAddress ?? null;
    const expiresAt = new Date(Date.now() + this.sessionTtlSeconds * 1000);
    const { token } = await this.prisma.$transaction(async (tx) => {
      const member = await upsertMember(tx, {
        organizationId: attempt.organizationId,
        subject,
        email,
        name,
        role,
        groups,
      });
      if (member.disabledAt) {
        throw new SignInRefused('an admin of this organization disabled your membership', slug);
      }
      const opened = await createSession(tx, {
        organizationId: attempt.organizationId,
        userId: member.id,
        role,
        expiresAt,
        clientAddress,
      });
      await recordAudit(
        tx,
        { type: 'sso', keyId: null, name: name ?? email ?? subject, subject, email, role, clientAddress },
        {
          organizationId: attempt.organizationId,
          action: 'session.sign_in',
          targetType: 'member',
          targetId: member.id,
          details: { groups, role, expiresAt: expiresAt.toISOString() },
        },
      );
      return opened;
    });
    return { sessionToken: token, expiresAt, returnTo: attempt.returnTo };
  }

  /** Ends the caller's dashboard session (sign-out). */
  async signOut(caller: Caller, clientAddress: string | null): Promise<void> {
    if (!caller.sessionId) return;
    await this.prisma.$transaction(async (tx) => {
      if (!(await revokeSession(tx, caller.sessionId!))) return;
      await recordAudit(
        tx,
        {
          type: 'sso',
          keyId: null,
          name: caller.name,
          subject: caller.subject,
          email: caller.email,
          role: caller.role,
          clientAddress,
        },
        {
          organizationId: caller.organizationId,
          action: 'session.sign_out',
          targetType: 'session',
          targetId: caller.sessionId,
        },
      );
    });
    this.sessions.forget((session) => session.sessionId === caller.sessionId);
  }

  private async configurationOf(settings: SsoSettings, request: IncomingMessage, slug: string) {
    if (settings.secretProblem) throw new SignInRefused(settings.secretProblem, slug);
    try {
      return await this.issuers.configuration(settings, this.redirectUri(request));
    } catch (error) {
      this.logger.warn(`discovery of ${settings.issuer} failed: ${String(error)}`);
      throw new SignInRefused(
        `the identity provider ${settings.issuer} could not be reached: ${messageOf(error)}`,
        slug,
      );
    }
  }

  /** The userinfo claims, when the provider has the endpoint (some put groups only there); {} otherwise. */
  private async userInfo(
    configuration: oidc.Configuration,
    tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>,
  ): Promise<Record<string, unknown>> {
    if (!configuration.serverMetadata().userinfo_endpoint) return {};
    try {
      return await oidc.fetchUserInfo(configuration, tokens.access_token, tokens.claims()!.sub);
    } catch (error) {
      this.logger.warn(`userinfo failed (the ID token's claims are used alone): ${String(error)}`);
      return {};
    }
  }
}

function messageOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error instanceof Error ? error.message : String(error)}${cause}`.slice(0, 300);
}
