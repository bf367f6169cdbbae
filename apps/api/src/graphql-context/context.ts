import { validationProblem } from '../problem.js';
import type { GraphQLLoaders } from './loaders.js';

/** What every GraphQL request carries: its own DataLoaders and one instant for default windows. */
export interface GraphQLContext {
  loaders: GraphQLLoaders;
  now: Date;
}

/** A timestamp argument, or `fallback` when it is absent; anything but RFC 3339 is a validation problem. */
export function timestampArg(field: string, text: string | undefined | null, fallback: Date): Date {
  if (text === undefined || text === null) return fallback;
  const value = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(value.getTime())) {
    throw validationProblem([{ location: 'query', field, message: 'expected an RFC 3339 timestamp' }]);
  }
  return value;
}
