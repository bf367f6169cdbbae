import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { guardedFetch } from '@zw/notify';
import type { SsoSettings } from '@zw/db';
import { createRemoteJWKSet, customFetch as joseCustomFetch, type JWTVerifyGetKey } from 'jose';
import * as oidc from 'openid-client';
import type { ApiConfig } from '../config.js';

/** How long a provider's discovery document is trusted before it is read again. */
const DISCOVERY_TTL_MS = 3600_000;
const CACHE_LIMIT = 1000;

interface CachedConfiguration {
  /** The settings' updatedAt: changed settings are discovered afresh. */
  version: number;
  configuration: oidc.Configuration;
  until: number;
}

/**
 * Each organization's OpenID Connect provider as openid-client sees it (its discovery document, the
 * client id and secret), and its signing keys as jose fetches them. The provider is tenant-chosen: every
 * request to it goes through the outbound SSRF policy (https to public addresses unless
 * SSO_ALLOW_PRIVATE_ISSUERS), with SSO_HTTP_TIMEOUT_MS.
 */
@Injectable()
export class OidcIssuers {
  private readonly configurations = new Map<string, CachedConfiguration>();
  private readonly keySets = new Map<string, JWTVerifyGetKey>();
  private readonly fetch: ReturnType<typeof guardedFetch>;
  private readonly allowPrivate: boolean;
  private readonly timeoutMs: number;

  constructor(@Inject(ConfigService) config: ConfigService<ApiConfig, true>) {
    this.allowPrivate = config.get('SSO_ALLOW_PRIVATE_ISSUERS', { infer: true });
    this.timeoutMs = config.get('SSO_HTTP_TIMEOUT_MS', { infer: true });
    this.fetch = guardedFetch({ allowPrivate: this.allowPrivate, timeoutMs: this.timeoutMs });
  }

  /** The openid-client configuration of these settings (discovered at most once an hour per version). */
  async configuration(settings: SsoSettings, redirectUri?: string): Promise<oidc.Configuration> {
    const version = settings.updatedAt.getTime();
    const cached = this.configurations.get(settings.organizationId);
    if (cached && cached.version === version && cached.until > Date.now()) return cached.configuration;
    const configuration = await this.discover(settings, redirectUri);
    if (this.configurations.size >= CACHE_LIMIT) this.configurations.clear();
    this.configurations.set(settings.organizationId, {
      version,
      configuration,
      until: Date.now() + DISCOVERY_TTL_MS,
    });
    return configuration;
  }

  /** Reads the provider's discovery document now (the settings page checks an issuer before saving it). */
  discover(
    settings: Pick<SsoSettings, 'issuer' | 'clientId' | 'clientSecret'>,
    redirectUri?: string,
  ): Promise<oidc.Configuration> {
    return oidc.discovery(
      new URL(settings.issuer),
      settings.clientId,
      {
        ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}),
        ...(redirectUri ? { redirect_uris: [redirectUri] } : {}),
      },
      settings.clientSecret ? oidc.ClientSecretBasic(settings.clientSecret) : oidc.None(),
      {
        [oidc.customFetch]: this.fetch as oidc.CustomFetch,
        timeout: Math.ceil(this.timeoutMs / 1000),
        execute: this.allowPrivate ? [oidc.allowInsecureRequests] : [],
      },
    );
  }

  /** The provider's signing keys (jose caches them, and refetches on an unknown key id, at most every 30 s). */
  async keySet(settings: SsoSettings): Promise<JWTVerifyGetKey> {
    const jwksUri = (await this.configuration(settings)).serverMetadata().jwks_uri;
    if (!jwksUri) throw new Error(`the provider ${settings.issuer} publishes no jwks_uri`);
    let keys = this.keySets.get(jwksUri);
    if (!keys) {
      keys = createRemoteJWKSet(new URL(jwksUri), {
        timeoutDuration: this.timeoutMs,
        [joseCustomFetch]: this.fetch,
      });
      if (this.keySets.size >= CACHE_LIMIT) this.keySets.clear();
      this.keySets.set(jwksUri, keys);
    }
    return keys;
  }
}
