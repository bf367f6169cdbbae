import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { hashSessionToken, ReadDb, sessionByTokenHash, type SessionIdentity } from '@zw/db';
import type { ApiConfig } from '../config.js';
import { type ProblemException } from '../problem.js';
import type { Caller } from './caller.js';
import { unauthorized } from './api-key-authenticator.js';

const CACHE_LIMIT = 10_000;

interface CachedSession {
  session: SessionIdentity | null;
  /** When this entry must be looked up again. */
  until: number;
}

/** 401 for a session that ended, telling the dashboard to sign in again (and why). */
export function sessionEnded(detail: string, extensions: Record<string, unknown> = {}): ProblemException {
  return unauthorized(`${detail}; sign in again`, { signIn: true, ...extensions });
}

/**
 * Turns the dashboard's session cookie into a Caller. Sessions live in Postgres, so every API replica
 * honours one (and its end); each process remembers what it looked up for SESSION_CACHE_MS, and forgets
 * a session at once when it is ended through this process.
 */
@Injectable()
export class SessionAuthenticator {
  private readonly cache = new Map<string, CachedSession>();
  private readonly ttlMs: number;

  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.ttlMs = config.get('SESSION_CACHE_MS', { infer: true });
  }

  async authenticate(token: string): Promise<Caller> {
    const session = await this.lookUp(token);
    if (!session) throw sessionEnded('this dashboard session is unknown (signed out, or from another deployment)');
    if (session.disabled) throw sessionEnded('an admin disabled your membership of this organization');
    if (session.revoked) throw sessionEnded('you were signed out of this session');
    if (session.expiresAt.getTime() <= Date.now()) {
      throw sessionEnded(`your session expired at ${session.expiresAt.toISOString()}`, {
        expiredAt: session.expiresAt.toISOString(),
      });
    }
    return {
      principalId: `user:${session.userId}`,
      via: 'sso',
      organizationId: session.organizationId,
      role: session.role,
      keyId: null,
      subject: session.subject,
      email: session.email,
      name: session.name ?? session.email ?? session.subject,
      expiresAt: session.expiresAt,
      sessionId: session.sessionId,
    };
  }

  /** Forgets the sessions that match at once in this process (after they were ended here). */
  forget(match: (session: SessionIdentity) => boolean): void {
    for (const [key, entry] of this.cache) if (entry.session && match(entry.session)) this.cache.delete(key);
  }

  private async lookUp(token: string): Promise<SessionIdentity | null> {
    const hash = hashSessionToken(token);
    const key = Buffer.from(hash).toString('base64');
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.session;
    const session = await sessionByTokenHash(this.db, hash);
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { session, until: Date.now() + (session ? this.ttlMs : Math.min(this.ttlMs, 2000)) });
    return session;
  }
}
