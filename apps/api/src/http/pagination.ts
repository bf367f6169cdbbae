import { createHash } from 'node:crypto';
import { z } from 'zod';
import { validationProblem } from '../problem.js';

/**
 * Opaque cursors: base64url JSON of where the previous page stopped (its last sort key), what it was
 * sorted and filtered by (a fingerprint: a cursor is refused with other filters, rather than silently
 * skipping rows), and any instant the listing is pinned to.
 */
export interface CursorPayload {
  /** Fingerprint of the sort and filters the cursor was issued for. */
  f: string;
  /** The last row's sort key. */
  k: unknown[];
  /** Instant the listing is pinned to (ISO), when it is. */
  t?: string;
}

export const limitSchema = (defaultLimit: number, max: number): z.ZodDefault<z.ZodCoercedNumber> =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(defaultLimit)
    .describe(`page size, 1 to ${max} (default ${defaultLimit})`);

export const cursorSchema = z
  .string()
  .max(2000)
  .optional()
  .describe('`nextCursor` of the previous page; omit for the first page');

export function fingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 12);
}

export function encodeCursor(payload: CursorPayload): string {
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

export function decodeCursor(cursor: string | undefined, expectedFingerprint: string): CursorPayload | null {
  if (cursor === undefined) return null;
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw validationProblem([{ location: 'query', field: 'cursor', message: 'not a cursor this API issued' }]);
  }
  if (typeof payload !== 'object' || payload === null || !Array.isArray(payload.k) || typeof payload.f !== 'string') {
    throw validationProblem([{ location: 'query', field: 'cursor', message: 'not a cursor this API issued' }]);
  }
  if (payload.f !== expectedFingerprint) {
    throw validationProblem([
      {
        location: 'query',
        field: 'cursor',
        message: 'this cursor was issued for other sort or filter parameters; repeat them unchanged, or start over',
      },
    ]);
  }
  return payload;
}
