import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  activeApiKeyPrefixes,
  AGENT_TOKEN_PREFIX,
  apiKeyByHash,
  apiKeyPrefixOf,
  hashApiKey,
  MIN_CHOSEN_KEY_LENGTH,
  PrismaService,
  ReadDb,
  recordApiKeyUse,
} from '@zw/db';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import type { Caller } from './caller.js';
import { CredentialPrefixes } from './credential-prefixes.js';
import { UnauthenticatedThrottle } from './unauthenticated-throttle.js';

interface CachedKey {
  caller: Caller | null;
  revoked: boolean;
  /** When the key itself expires (its `expiresAt`), checked on every use, cached or not. */
  keyExpiresAt: Date | null;
  /** When this cache entry must be looked up again. */
  expiresAt: number;
}

const CACHE_LIMIT = 10_000;
/** last_used_at is refreshed at most this often per key, so authentication does not write per request. */
const LAST_USED_RESOLUTION_S = 60;

export function unauthorized(detail: string, extensions: Record<string, unknown> = {}): ProblemException {
  return new ProblemException(401, detail, extensions, { 'WWW-Authenticate': 'Bearer realm="zonewise"' });
}

/**
 * Turns a presented bearer secret into a Caller. Verified keys are remembered for API_KEY_CACHE_MS so a
 * busy dashboard does not cost a key lookup per request; unknown secrets are remembered too (briefly),
 * so a client hammering with a bad key does not reach Postgres each time.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly logger = new Logger('ApiKeys');
  private readonly cache = new Map<string, CachedKey>();
  private readonly ttlMs: number;
  private readonly prefixes: CredentialPrefixes;

  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
    @Inject(UnauthenticatedThrottle) private readonly throttle: UnauthenticatedThrottle,
    @Inject(PrismaService) prisma: PrismaService,
  ) {
    this.ttlMs = config.get('API_KEY_CACHE_MS', { infer: true });
    this.prefixes = new CredentialPrefixes(() => activeApiKeyPrefixes(prisma), apiKeyPrefixOf);
  }

  /**
   * The caller of a request from `clientAddress`. A key verified and cached recently answers at once; a
   * key that may be valid is verified; anything else is refused (429) while the address is over its
   * budget of refused credentials, and counted there when refused.
   */
  async authenticate(authorization: string | undefined, clientAddress: string): Promise<Caller> {
    const cached = this.cachedCaller(authorization);
    if (cached) return cached;
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    const credential = secret ? { secret, prefixes: this.prefixes } : null;
    return this.throttle.guard(clientAddress, credential, () => this.verify(authorization));
  }

  private async verify(authorization: string | undefined): Promise<Caller> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) {
      throw unauthorized(
        'missing API key: send Authorization: Bearer <API key> (or a token of your identity provider), or sign in to the dashboard',
      );
    }
    const secret = match[1];
    if (secret.startsWith(AGENT_TOKEN_PREFIX)) {
      throw new ProblemException(
        403,
        'this is a cluster agent token, which can only push snapshots (POST /v1/ingest/snapshots); the query API needs an API key (zwk_…)',
      );
    }
    // Generated keys start with zwk_; operators may also choose a key of their own (the demo's
    // ZONEWISE_DEMO_API_KEY), so only the length is a quick reject.
    if (secret.length < MIN_CHOSEN_KEY_LENGTH) throw unauthorized('invalid API key');
    const key = await this.lookUp(secret);
    if (key.revoked) throw unauthorized('this API key has been revoked');
    if (!key.caller) throw unauthorized('invalid API key');
    if (key.keyExpiresAt !== null && key.keyExpiresAt.getTime() <= Date.now()) {
      throw unauthorized(`this API key expired at ${key.keyExpiresAt.toISOString()}; ask an admin for a new one`, {
        expiredAt: key.keyExpiresAt.toISOString(),
      });
    }
    return key.caller;
  }

  /** Forgets a key at once in this process (after it was revoked here). */
  forget(keyId: string): void {
    for (const [hash, entry] of this.cache) if (entry.caller?.keyId === keyId) this.cache.delete(hash);
  }

  /** The caller of a valid, unexpired key this process verified within API_KEY_CACHE_MS; else null. */
  private cachedCaller(authorization: string | undefined): Caller | null {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match || match[1].length < MIN_CHOSEN_KEY_LENGTH || match[1].startsWith(AGENT_TOKEN_PREFIX)) return null;
    const entry = this.cache.get(cacheKeyOf(hashApiKey(match[1])));
    const now = Date.now();
    if (!entry?.caller || entry.revoked || entry.expiresAt <= now) return null;
    if (entry.keyExpiresAt !== null && entry.keyExpiresAt.getTime() <= now) return null;
    return entry.caller;
  }

  private async lookUp(secret: string): Promise<CachedKey> {
    const hash = hashApiKey(secret);
    const cacheKey = cacheKeyOf(hash);
    const cached = this.cache.get(cacheKey);
    const now = Date.now();
    if (cached && cached.expiresAt > now) return cached;
    const row = await apiKeyByHash(this.db, hash, LAST_USED_RESOLUTION_S);
    const entry: CachedKey = row
      ? {
          caller: {
            principalId: `key:${row.id}`,
            via: 'api_key',
            organizationId: row.organization_id,
            role: row.role,
            keyId: row.id,
            subject: null,
            email: null,
            name: row.name,
            expiresAt: row.expires_at,
            sessionId: null,
          },
          revoked: row.revoked,
          keyExpiresAt: row.expires_at,
          expiresAt: now + this.ttlMs,
        }
      : { caller: null, revoked: false, keyExpiresAt: null, expiresAt: now + Math.min(this.ttlMs, 5000) };
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(cacheKey, entry);
    if (row && !row.revoked && row.stale_use) this.touch(row.id);
    return entry;
  }

  private touch(keyId: string): void {
    recordApiKeyUse(this.db, keyId).catch((error: unknown) =>
      this.logger.warn(`could not record use of key ${keyId}: ${String(error)}`),
    );
  }
}

function cacheKeyOf(hash: Uint8Array): string {
  return Buffer.from(hash).toString('base64');
}
