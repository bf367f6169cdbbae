import {
  type CanActivate,
  type CustomDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Role, roleAtLeast } from '@zw/db';
import { ProblemException } from '../problem.js';
import { Authenticator } from './authenticator.js';
import { type Caller, httpOf } from './caller.js';

export const REQUIRED_ROLE = 'zonewise:required-role';

/** Marks a handler (or controller) as needing this role at least; the default is `viewer`. */
export const RequireRole = (role: Role): CustomDecorator<string> => SetMetadata(REQUIRED_ROLE, role);

/** The role a handler needs, as RequireRole set it (viewer when it did not). */
export function requiredRole(reflector: Reflector, context: ExecutionContext): Role {
  return (
    reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, [context.getHandler(), context.getClass()]) ?? 'viewer'
  );
}

const CREDENTIAL_NAMES = { api_key: 'this API key', sso: 'you', bearer_token: 'this token' } as const;

/** 403 naming the role an operation needs and the one the caller has. */
export function roleProblem(caller: Caller, needed: Role): ProblemException {
  const who = CREDENTIAL_NAMES[caller.via];
  return new ProblemException(
    403,
    `this operation needs the "${needed}" role; ${who} ${caller.via === 'sso' ? 'have' : 'has'} "${caller.role}"`,
    { requiredRole: needed, role: caller.role },
  );
}

/** Throws roleProblem unless the caller's role includes `needed`. */
export function assertRole(caller: Caller, needed: Role): void {
  if (!roleAtLeast(caller.role, needed)) throw roleProblem(caller, needed);
}

/**
 * Authenticates the caller (401 when the credentials are missing, unknown, revoked or expired; 403 for an
 * agent token) and checks the role the route needs (403 naming it). The caller's organization then scopes
 * every query.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(Authenticator) private readonly authenticator: Authenticator,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { request } = httpOf(context);
    const caller = await this.authenticator.authenticate(request);
    assertRole(caller, requiredRole(this.reflector, context));
    request.caller = caller;
    return true;
  }
}
