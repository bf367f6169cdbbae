import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
import { ProblemSchema } from '../http/schemas.js';
import { openApiSchema } from '../http/openapi.js';
import { ApiKeyGuard, RequireScope } from './api-key.guard.js';
import { ApiKeyRateLimitGuard } from './rate-limit.guard.js';

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: openApiSchema(ProblemSchema) } },
});

/** Every route of a controller needs an API key (read scope unless a handler says otherwise) and is rate-limited. */
export function ApiKeyAuth(): ClassDecorator {
  return applyDecorators(
    UseGuards(ApiKeyGuard, ApiKeyRateLimitGuard),
    ApiBearerAuth('apiKey'),
    ApiResponse({ status: 401, ...problem('no API key, or an unknown, revoked or expired one') }),
    ApiResponse({ status: 403, ...problem('an agent token, or a key without the scope this operation needs') }),
    ApiResponse({ status: 429, ...problem('rate limit of this API key exceeded; see Retry-After') }),
  );
}

/** The handler changes data: it needs a key with the `admin` scope. */
export function AdminOnly(): MethodDecorator {
  return applyDecorators(RequireScope('admin'));
}
