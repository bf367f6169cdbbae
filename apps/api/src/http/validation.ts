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
