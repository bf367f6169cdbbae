import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiParam, ApiQuery, ApiResponse, type OpenAPIObject, type SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';
import { ProblemSchema } from './schemas.js';
import { TakesQuery } from './validation.js';

/**
 * The OpenAPI document is generated from the same zod schemas that validate requests (and describe
 * responses), so the spec cannot drift from what the code accepts.
 */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): SchemaObject {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json as SchemaObject;
}

/**
 * The query parameters a handler takes: one `ApiQuery` per field of the schema, and the declaration the
 * unknown-parameter rule (QueryParametersGuard) checks every request against.
 */
export function ApiQueryFrom(schema: z.ZodObject): MethodDecorator {
  const json = openApiSchema(schema, 'input');
  const required = new Set(json.required ?? []);
  return applyDecorators(
    TakesQuery(schema),
    ...Object.entries(json.properties ?? {}).map(([name, property]) =>
      ApiQuery({
        name,
        required: required.has(name),
        schema: property as SchemaObject,
        description: (property as SchemaObject).description,
      }),
    ),
  );
}

export function ApiPathParams(params: Record<string, string>): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...Object.entries(params).map(([name, description]) => ApiParam({ name, description, type: String })),
  );
}

export function ApiBodyFrom(schema: z.ZodType, description?: string): MethodDecorator {
  return ApiBody({ schema: openApiSchema(schema, 'input'), description });
}

export function ApiResponseFrom(status: number, schema: z.ZodType, description: string): MethodDecorator {
  return ApiResponse({ status, description, schema: openApiSchema(schema, 'output') });
}

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };
const problemContent = { 'application/problem+json': { schema: PROBLEM_REF } };

/** The answers global layers give any route of a given shape, whatever its handler does. */
const SHARED_ANSWERS: {
  status: string;
  applies: (path: string, operation: OperationObject) => boolean;
  description: string;
}[] = [
  {
    status: '400',
    applies: () => true,
    description: 'invalid input: an unknown query parameter, a malformed value or body; `errors` names every field',
  },
  {
    status: '404',
    applies: (path) => path.includes('{'),
    description: 'no such resource in your organization',
  },
  {
    status: '413',
    applies: (_, operation) => operation.requestBody !== undefined,
    description: 'request body too large',
  },
  {
    status: '415',
    applies: (_, operation) => operation.requestBody !== undefined,
    description: 'the body is not `application/json`',
  },
];

type OperationObject = { requestBody?: unknown; responses?: Record<string, Record<string, unknown>> } & Record<
  string,
  unknown
>;

const ROLE_EXTENSION = 'x-zonewise-role';
const ROLE_MEANING: Record<string, string> = {
  viewer: 'any caller of the organization (viewer, operator or admin)',
  operator: 'an operator or an admin',
  admin: 'an admin',
};

/**
 * An operation callers authenticate for names the least role it needs, in `x-zonewise-role` and in its
 * description: the role its handler's decorator set, else `viewer` (the guard's default).
 */
function describeRole(operation: OperationObject): void {
  const security = operation.security as Record<string, unknown>[] | undefined;
  if (!security?.some((scheme) => 'apiKey' in scheme)) return;
  const role = (operation[ROLE_EXTENSION] as string | undefined) ?? 'viewer';
  operation[ROLE_EXTENSION] = role;
  const line = `Role: \`${role}\` — ${ROLE_MEANING[role]}.`;
  operation.description = operation.description ? `${String(operation.description)}\n\n${line}` : line;
}

/**
 * Finishes the generated document: one `Problem` schema every error answer refers to, and the answers
 * the global layers give every route of a shape (400 for any route, since unknown query parameters are
 * refused everywhere; 404 with path ids; 413 and 415 with a body), and the role each operation needs
 * (`x-zonewise-role`, repeated in its description). Security stays per operation, as its
 * decorators say: a route that declares none is a lint error, not silently public.
 */
export function completeDocument(document: OpenAPIObject): OpenAPIObject {
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, Problem: openApiSchema(ProblemSchema) };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
      const operation = item[method] as OperationObject | undefined;
      if (!operation) continue;
      operation.responses ??= {};
      describeRole(operation);
      for (const answer of SHARED_ANSWERS) {
        if (answer.applies(path, operation) && !operation.responses[answer.status]) {
          operation.responses[answer.status] = { description: answer.description };
        }
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) >= 400) response.content = problemContent;
      }
    }
  }
  return document;
}
