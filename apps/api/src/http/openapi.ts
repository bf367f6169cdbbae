import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiParam, ApiQuery, ApiResponse, type SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';
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
