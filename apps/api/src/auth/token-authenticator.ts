import { Inject, Injectable } from '@nestjs/common';
import { findSsoSettingsForToken, groupsOfClaim, PrismaService, roleOfGroups } from '@zw/db';
import type { SecretKeyring } from '@zw/secrets';
import { decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import { ProblemException } from '../problem.js';
import { OidcIssuers } from './oidc-issuers.js';
import { unauthorized } from './api-key-authenticator.js';
import type { Caller } from './caller.js';
import { SECRET_KEYRING } from './secret-keyring.js';

/** Clock difference tolerated between this API and the identity provider. */
const CLOCK_TOLERANCE_SECONDS = 30;

/** 503: the provider's keys could not be read, so no token of it can be checked now. */
function providerUnreachable(issuer: string, error: unknown): ProblemException {
  const reason = error instanceof Error ? error.message : String(error);
  return new ProblemException(
    503,
    `could not read the signing keys of ${issuer}: ${reason}`,
    { retryAfterSeconds: 30 },
    {
      'Retry-After': '30',
    },
  );
}

/** A compact JWS: three base64url parts, the first a JSON header (`{"` is `eyJ`). */
export function looksLikeJwt(secret: string): boolean {
  return /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/.test(secret);
}

/**
 * Turns a bearer token of an organization's identity provider into a Caller, for programs (CI, scripts
 * with a client-credentials token). The token's issuer and audience name the organization (one SSO
 * setting per issuer and audience); its signature is checked against the provider's published keys
 * (JWKS), its `exp` and `nbf` against the clock; its groups claim maps to a role as a person's does.
 */
@Injectable()
export class TokenAuthenticator {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(OidcIssuers) private readonly issuers: OidcIssuers,
    @Inject(SECRET_KEYRING) private readonly keyring: SecretKeyring | null,
  ) {}

  async authenticate(token: string): Promise<Caller> {
    let claims: ReturnType<typeof decodeJwt>;
    try {
      claims = decodeJwt(token);
    } catch {
      throw unauthorized('invalid token: not a JWT');
    }
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
    if (typeof claims.iss !== 'string') throw unauthorized('invalid token: it names no issuer (iss)');
    const settings = await findSsoSettingsForToken(this.prisma, claims.iss, audiences, this.keyring);
    if (!settings) {
      throw unauthorized(
        `no organization accepts tokens of issuer ${claims.iss} for audience ${audiences.join(', ') || '(none)'}`,
      );
    }
    const keys = await this.issuers.keySet(settings).catch((error: unknown) => {
      throw providerUnreachable(settings.issuer, error);
    });
    const verified = await this.verify(token, settings.issuer, settings.audience, keys);
    const groups = groupsOfClaim(verified[settings.groupsClaim]);
    const role = roleOfGroups(settings, groups);
    if (!role) {
      throw new ProblemException(
        403,
        `this token's groups (${groups.join(', ') || 'none'} in claim "${settings.groupsClaim}") map to no role in this organization`,
        { groups },
      );
    }
    const subject = String(verified.sub);
    const email = typeof verified.email === 'string' ? verified.email : null;
    return {
      principalId: `token:${settings.issuer} ${subject}`,
      via: 'bearer_token',
      organizationId: settings.organizationId,
      role,
      keyId: null,
      subject,
      email,
      name: email ?? (typeof verified.azp === 'string' ? verified.azp : subject),
      expiresAt: new Date(Number(verified.exp) * 1000),
      sessionId: null,
    };
  }

  private async verify(token: string, issuer: string, audience: string, keys: Parameters<typeof jwtVerify>[1]) {
    try {
      const { payload } = await jwtVerify(token, keys as Parameters<typeof jwtVerify>[1] & object, {
        issuer,
        audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'sub'],
      });
      return payload;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) {
        const exp = Number((error.payload as { exp?: number }).exp);
        throw unauthorized(`this token expired at ${new Date(exp * 1000).toISOString()}`, {
          expiredAt: new Date(exp * 1000).toISOString(),
        });
      }
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
        throw unauthorized("invalid token: its signature does not verify with the provider's keys");
      }
      if (error instanceof joseErrors.JWKSNoMatchingKey) {
        throw unauthorized('invalid token: signed with a key the provider does not publish');
      }
      if (error instanceof joseErrors.JWKSTimeout) throw providerUnreachable(issuer, error);
      if (error instanceof joseErrors.JOSEError) throw unauthorized(`invalid token: ${error.message}`);
      throw providerUnreachable(issuer, error);
    }
  }
}
