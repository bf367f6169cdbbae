import { Inject, Injectable } from '@nestjs/common';
import { AGENT_TOKEN_PREFIX } from '@zw/db';
import type { IncomingMessage } from 'node:http';
import { ProblemException } from '../problem.js';
import { ApiKeyAuthenticator } from './api-key-authenticator.js';
import type { Caller } from './caller.js';
import { CSRF_HEADER, csrfTokenMatches, SESSION_COOKIE, cookieOf } from './cookies.js';
import { SessionAuthenticator } from './session-authenticator.js';
import { looksLikeJwt, TokenAuthenticator } from './token-authenticator.js';
import { clientAddressOf, UnauthenticatedThrottle } from './unauthenticated-throttle.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Who is calling, from whichever credentials the request carries: `Authorization: Bearer` with an API key
 * (`zwk_…`) or a JWT of the organization's identity provider, else the dashboard's session cookie. A
 * request authenticated by its cookie that changes something (any method but GET, HEAD and OPTIONS,
 * GraphQL's POSTs included) must carry the session's CSRF token. Refused credentials count against the
 * client address's throttle, as refused keys always have.
 */
@Injectable()
export class Authenticator {
  constructor(
    @Inject(ApiKeyAuthenticator) private readonly keys: ApiKeyAuthenticator,
    @Inject(SessionAuthenticator) private readonly sessions: SessionAuthenticator,
    @Inject(TokenAuthenticator) private readonly tokens: TokenAuthenticator,
    @Inject(UnauthenticatedThrottle) private readonly throttle: UnauthenticatedThrottle,
  ) {}

  async authenticate(request: IncomingMessage): Promise<Caller> {
    const address = clientAddressOf(request);
    const authorization = request.headers.authorization;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (bearer && looksLikeJwt(bearer) && !bearer.startsWith(AGENT_TOKEN_PREFIX)) {
      return this.throttle.guard(address, null, () => this.tokens.authenticate(bearer));
    }
    const sessionToken = authorization === undefined ? cookieOf(request, SESSION_COOKIE) : undefined;
    if (sessionToken) {
      const caller = await this.throttle.guard(address, null, () => this.sessions.authenticate(sessionToken));
      if (!SAFE_METHODS.has(request.method ?? 'GET') && !csrfTokenMatches(sessionToken, header(request, CSRF_HEADER))) {
        throw new ProblemException(
          403,
          `a request signed in by the dashboard's session cookie that changes something must carry its CSRF token in ${CSRF_HEADER} (from GET /v1/me)`,
        );
      }
      return caller;
    }
    // An API key, or nothing at all: the API key authenticator words the 401 (and counts it).
    return this.keys.authenticate(authorization, address);
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
