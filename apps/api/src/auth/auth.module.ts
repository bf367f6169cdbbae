import { Module } from '@nestjs/common';
import { OidcIssuers } from './oidc-issuers.js';
import { ReadDbModule } from '../read-db.module.js';
import { ApiKeyAuthenticator } from './api-key-authenticator.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { Authenticator } from './authenticator.js';
import { ApiKeyRateLimitGuard } from './rate-limit.guard.js';
import { RateStorageModule } from './rate-storage.module.js';
import { SECRET_KEYRING, secretKeyringProvider } from './secret-keyring.js';
import { SessionAuthenticator } from './session-authenticator.js';
import { TokenAuthenticator } from './token-authenticator.js';

/**
 * Who is calling: API keys, dashboard sessions and identity-provider tokens, the guard every query route
 * uses, and the per-key rate limit. Every feature module imports it.
 */
@Module({
  imports: [RateStorageModule, ReadDbModule],
  providers: [
    ApiKeyAuthenticator,
    secretKeyringProvider,
    OidcIssuers,
    SessionAuthenticator,
    TokenAuthenticator,
    Authenticator,
    ApiKeyGuard,
    ApiKeyRateLimitGuard,
  ],
  exports: [
    RateStorageModule,
    ApiKeyAuthenticator,
    SECRET_KEYRING,
    OidcIssuers,
    SessionAuthenticator,
    Authenticator,
    ApiKeyGuard,
    ApiKeyRateLimitGuard,
  ],
})
export class AuthModule {}
