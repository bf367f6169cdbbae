import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { IncomingMessage } from 'node:http';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import { WindowRateStorage } from './window-rate-storage.js';

/** The client's address: `req.ip` (which honours TRUST_PROXY), else the socket's peer. */
export function clientAddressOf(request: IncomingMessage): string {
  return (request as IncomingMessage & { ip?: string }).ip ?? request.socket?.remoteAddress ?? 'unknown';
}

/**
 * Throttles requests without a valid credential, per client address, before any database lookup: each
 * refused credential (missing, malformed, unknown, revoked, expired API key or agent token) counts against
 * its address, and an address over UNAUTHENTICATED_RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_MS is answered
 * 429 with `Retry-After` without its credential being looked up, so a flood of random keys costs Postgres
 * at most that many lookups per window.
 *
 * Decision: only failures count. A valid key or token is never charged here (it has its own per-key
 * limit, and agents of a whole fleet may push from one NAT address), and a key already verified and
 * cached passes even from a throttled address, so an attacker sharing a client's address cannot lock out
 * a client that is already working.
 */
@Injectable()
export class UnauthenticatedThrottle {
  private readonly limit: number;
  private readonly windowMs: number;

  constructor(
    @Inject(WindowRateStorage) private readonly storage: WindowRateStorage,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.limit = config.get('UNAUTHENTICATED_RATE_LIMIT_REQUESTS', { infer: true });
    this.windowMs = config.get('RATE_LIMIT_WINDOW_MS', { infer: true });
  }

  /** Throws the 429 problem when the address has used up its refused credentials for this window. */
  check(address: string): void {
    const state = this.storage.charge(this.keyOf(address), this.windowMs, this.limit, 0);
    if (state.totalHits < this.limit) return;
    const retryAfter = Math.max(1, state.timeToExpire);
    throw new ProblemException(
      429,
      `too many requests without a valid credential from this address (at most ${this.limit} per ${Math.round(this.windowMs / 1000)} s); retry in ${retryAfter} s`,
      { limit: this.limit, windowSeconds: Math.round(this.windowMs / 1000), retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }

  /** Counts one refused credential against the address. */
  recordFailure(address: string): void {
    this.storage.charge(this.keyOf(address), this.windowMs, this.limit, 1);
  }

  /** Runs an authentication: checked first, charged when it is refused with 401. */
  async guard<T>(address: string, authenticate: () => Promise<T>): Promise<T> {
    this.check(address);
    try {
      return await authenticate();
    } catch (error) {
      if (error instanceof ProblemException && error.getStatus() === 401) this.recordFailure(address);
      throw error;
    }
  }

  private keyOf(address: string): string {
    return `unauthenticated:${address}`;
  }
}
