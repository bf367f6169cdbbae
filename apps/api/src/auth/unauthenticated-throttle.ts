import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { IncomingMessage } from 'node:http';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import type { CredentialPrefixes } from './credential-prefixes.js';
import { type RateLimitStanding, tooManyRequests } from './rate-limit-headers.js';
import { type WindowLimiter, type WindowState, WindowRateStorage } from './window-rate-storage.js';

/** Throttled addresses one process remembers (the oldest is forgotten first: Redis still has it). */
const MAX_BLOCKED_REMEMBERED = 100_000;

/** The client's address: `req.ip` (which honours TRUST_PROXY), else the socket's peer. */
export function clientAddressOf(request: IncomingMessage): string {
  return (request as IncomingMessage & { ip?: string }).ip ?? request.socket?.remoteAddress ?? 'unknown';
}

/** A presented credential, and the prefixes of the credentials of its kind that may be valid. */
export interface PresentedCredential {
  secret: string;
  prefixes: CredentialPrefixes;
}

/**
 * Throttles refused credentials per client address, across every API process (the count lives in
 * Redis): each refused credential (missing, malformed, unknown, revoked, expired API key or agent token)
 * counts against its address, and past UNAUTHENTICATED_RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_MS the
 * address's requests are answered 429 with `Retry-After` and the rate-limit fields.
 *
 * Decision: a valid credential is never locked out, whoever else shares its address (clients behind one
 * NAT, a load balancer without TRUST_PROXY). It is verified first, cheaply: a secret whose prefix is one
 * of a credential that may be valid is looked up as usual, even from a throttled address; only a secret
 * that cannot be valid (its prefix belongs to no credential) is refused there without a lookup. So a
 * flood of guessed keys costs Postgres at most the budget's lookups per window (and one load of the
 * prefixes a second), and the keys of other organizations at the same address keep getting 200.
 * Only failures count: a valid credential is never charged here (it has its own per-key limit).
 */
@Injectable()
export class UnauthenticatedThrottle {
  private readonly failures: WindowLimiter;
  /** Addresses this process saw over their budget, until their window ends (a cache of Redis's count). */
  private readonly blocked = new Map<string, { totalHits: number; until: number }>();

  constructor(
    @Inject(WindowRateStorage) storage: WindowRateStorage,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.failures = storage.limiter(
      'refused-credentials',
      config.get('UNAUTHENTICATED_RATE_LIMIT_REQUESTS', { infer: true }),
      config.get('RATE_LIMIT_WINDOW_MS', { infer: true }),
    );
  }

  /**
   * Runs an authentication of a request from `address`: a credential that may be valid is verified at
   * once; anything else is refused with 429 while the address is over its budget. A credential the
   * authentication refuses with 401 is counted.
   */
  async guard<T>(address: string, credential: PresentedCredential | null, authenticate: () => Promise<T>): Promise<T> {
    if (!credential?.prefixes.known(credential.secret)) {
      const state = this.blockedHere(address) ?? (await this.failures.peek(address));
      if (state.totalHits >= this.failures.limit) {
        this.rememberBlocked(address, state);
        const verdict = credential ? await credential.prefixes.verdict(credential.secret) : null;
        if (!verdict?.known) throw this.tooMany(state, verdict?.recheckInMs);
      }
    }
    try {
      return await authenticate();
    } catch (error) {
      if (error instanceof ProblemException && error.getStatus() === 401) {
        const state = await this.failures.add(address, 1);
        if (state.totalHits >= this.failures.limit) this.rememberBlocked(address, state);
      }
      throw error;
    }
  }

  /** Where a throttled address stands, from this process's memory: a flood costs no Redis round trips. */
  private blockedHere(address: string): WindowState | undefined {
    const blocked = this.blocked.get(address);
    if (!blocked) return undefined;
    const msLeft = blocked.until - Date.now();
    if (msLeft <= 0) {
      this.blocked.delete(address);
      return undefined;
    }
    return { totalHits: blocked.totalHits, resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)), blocked: true };
  }

  private rememberBlocked(address: string, state: WindowState): void {
    if (this.blocked.size >= MAX_BLOCKED_REMEMBERED) this.blocked.delete(this.blocked.keys().next().value!);
    this.blocked.set(address, { totalHits: state.totalHits, until: Date.now() + state.resetSeconds * 1000 });
  }

  /**
   * The 429 of a throttled address. A credential refused only because this process had too many waiting
   * for the next load of the prefixes is asked to retry when that load is made.
   */
  private tooMany(state: WindowState, recheckInMs?: number): ProblemException {
    const { limit, windowMs } = this.failures;
    const windowSeconds = Math.round(windowMs / 1000);
    const waitSeconds = recheckInMs === undefined ? state.resetSeconds : Math.max(1, Math.ceil(recheckInMs / 1000));
    const standing: RateLimitStanding = {
      policy: 'refused-credentials',
      limit,
      windowSeconds,
      remaining: 0,
      resetSeconds: waitSeconds,
      retryAfterSeconds: waitSeconds,
    };
    return tooManyRequests(
      standing,
      `too many requests without a valid credential from this address (at most ${limit} per ${windowSeconds} s)`,
      { windowSeconds },
    );
  }
}
