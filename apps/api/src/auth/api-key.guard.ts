import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ApiKeyScope } from '@zw/db';
import { ProblemException } from '../problem.js';
import { ApiKeyAuthenticator } from './api-key-authenticator.js';
import { httpOf } from './caller.js';
import { clientAddressOf } from './unauthenticated-throttle.js';

export const REQUIRED_SCOPE = 'zonewise:required-scope';

/** Marks a handler (or controller) as needing a key with this scope; the default is `read`. */
export const RequireScope = (scope: ApiKeyScope) => SetMetadata(REQUIRED_SCOPE, scope);

/**
 * Authenticates the API key (401 when missing, unknown or revoked; 403 for an agent token) and checks
 * the scope the route needs (403 naming it). The caller's organization then scopes every query.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(ApiKeyAuthenticator) private readonly authenticator: ApiKeyAuthenticator,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { request } = httpOf(context);
    const caller = await this.authenticator.authenticate(request.headers.authorization, clientAddressOf(request));
    const needed =
      this.reflector.getAllAndOverride<ApiKeyScope | undefined>(REQUIRED_SCOPE, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'read';
    if (!caller.scopes.includes(needed)) {
      throw new ProblemException(
        403,
        `this operation needs an API key with the "${needed}" scope; this key has: ${caller.scopes.join(', ') || 'none'}`,
        { requiredScope: needed, keyScopes: caller.scopes },
      );
    }
    request.caller = caller;
    return true;
  }
}
