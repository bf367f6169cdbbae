import {
  type CanActivate,
  type CustomDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { type FieldError, validationProblem } from '../problem.js';

/**
 * Parses one part of a request against its schema; a failure is a 400 problem naming every bad field
 * (dotted path) and saying what was expected.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: FieldError['location'],
): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw validationProblem(
    result.error.issues.map((issue) => {
      const keys = 'keys' in issue && Array.isArray(issue.keys) ? issue.keys.map(String) : [];
      const field = [...issue.path.map(String), ...(keys.length ? [keys.join(',')] : [])].join('.');
      return { location, field, message: keys.length ? `unknown ${location} parameter` : issue.message };
    }),
  );
}

const clusterIdParam = z.object({ id: z.uuid({ message: 'must be a UUID' }) });

/** A cluster id from the path: 400 when it is no UUID (so it cannot be anybody's cluster). */
export function clusterIdOf(id: string): string {
  return parseInput(clusterIdParam, { id }, 'path').id;
}

export const QUERY_SCHEMA = 'zonewise:query-schema';

/** Declares the query parameters a handler takes (ApiQueryFrom does, beside documenting them). */
export const TakesQuery = (schema: z.ZodObject): CustomDecorator<string> => SetMetadata(QUERY_SCHEMA, schema);

/**
 * One rule for every REST route: a query parameter the route does not declare is a 400 naming it (and
 * the ones it takes), never silently ignored. Routes declare their parameters once, with
 * `@ApiQueryFrom(schema)` (which documents them too); a route that declares none takes none, so a new
 * route cannot escape the rule by forgetting it. Runs for every route (an APP_GUARD), before
 * authentication, and reads nothing but the URL.
 */
@Injectable()
export class QueryParametersGuard implements CanActivate {
  constructor(@Inject(Reflector) private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType<string>() !== 'http') return true;
    const request = context.switchToHttp().getRequest<IncomingMessage>();
    const names = [...new URL(request.url ?? '/', 'http://host').searchParams.keys()];
    if (names.length === 0) return true;
    const schema = this.reflector.getAllAndOverride<z.ZodObject | undefined>(QUERY_SCHEMA, [
      context.getHandler(),
      context.getClass(),
    ]);
    const allowed = Object.keys(schema?.shape ?? {});
    const unknown = [...new Set(names)].filter((name) => !allowed.includes(name));
    if (unknown.length === 0) return true;
    const takes = allowed.length ? `this route takes: ${allowed.join(', ')}` : 'this route takes no query parameters';
    throw validationProblem(
      unknown.map((name) => ({ location: 'query', field: name, message: `unknown query parameter; ${takes}` })),
    );
  }
}
