import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiExtension, ApiResponse } from '@nestjs/swagger';
import type { Role } from '@zw/db';
import { ProblemSchema } from '../http/schemas.js';
import { openApiSchema } from '../http/openapi.js';
import { ApiKeyGuard, RequireRole } from './api-key.guard.js';
import { ApiKeyRateLimitGuard } from './rate-limit.guard.js';

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: openApiSchema(ProblemSchema) } },
});

/** The OpenAPI extension naming the least role an operation needs (completeDocument repeats it in the description). */
export const ROLE_EXTENSION = 'x-zonewise-role';

/**
 * Every route of a controller needs credentials (an API key, a dashboard session or an identity provider's
 * token) with the `viewer` role unless a handler says otherwise, and is rate-limited per caller.
 */
export function ApiKeyAuth(): ClassDecorator & MethodDecorator {
  return applyDecorators(
    UseGuards(ApiKeyGuard, ApiKeyRateLimitGuard),
    ApiBearerAuth('apiKey'),
    ApiBearerAuth('oidcToken'),
    ApiCookieAuth('session'),
    ApiResponse({ status: 401, ...problem('no credentials, or unknown, revoked or expired ones') }),
    ApiResponse({ status: 403, ...problem('an agent token, or a caller without the role this operation needs') }),
    ApiResponse({ status: 429, ...problem('rate limit of this caller exceeded; see Retry-After') }),
  );
}

/** The handler needs at least `role`; the OpenAPI document says so (x-zonewise-role). */
export function RoleOf(role: Role): MethodDecorator {
  return applyDecorators(RequireRole(role), ApiExtension(ROLE_EXTENSION, role));
}

/** The handler changes what only admins manage: keys, clusters, members, channels, schedules, SSO. */
export function AdminOnly(): MethodDecorator {
  return RoleOf('admin');
}

/** The handler runs reports or changes traffic sources, prices, traffic values or alert rules. */
export function OperatorOnly(): MethodDecorator {
  return RoleOf('operator');
}
