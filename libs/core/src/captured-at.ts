import { z } from 'zod';
import { DAY_MS } from './time-units.js';

/** When an agent took the snapshot (RFC 3339); the pipeline orders history by it. */
export const CAPTURED_AT_ANNOTATION = 'zonewise.io/captured-at';

/**
 * RFC 3339 `date-time` (section 5.6), with `Z` or a numeric offset, checked as a calendar: zod's check
 * refuses a day the month does not have (2026-02-30, 2026-04-31, 2026-02-29 outside leap years), hour 24
 * and minute or second 60, all of which `Date` would silently roll over into the next day or minute.
 */
const RFC3339_TIMESTAMP = z.iso.datetime({ offset: true });

/** The instant a strict RFC 3339 timestamp names, or null when the text is not one. */
export function parseTimestamp(text: string): Date | null {
  if (!RFC3339_TIMESTAMP.safeParse(text).success) return null;
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? null : time;
}

/**
 * Where a snapshot document states when it was captured, and what it says there (undefined: it does not
 * say): on a List the `zonewise.io/captured-at` annotation, on the grouped form a top-level `capturedAt`.
 *
 * Decision: in the body rather than a header, so it is covered by the content hash (a re-push of the
 * same capture is a duplicate; a new capture of an unchanged cluster is not). A snapshot without it is
 * taken to be captured when it arrived.
 */
export function capturedAtField(document: Record<string, unknown>): { value: unknown; path: string } {
  if (Array.isArray(document.items)) {
    const metadata = document.metadata as { annotations?: Record<string, unknown> | null } | null | undefined;
    return {
      value: metadata?.annotations?.[CAPTURED_AT_ANNOTATION],
      path: `metadata.annotations["${CAPTURED_AT_ANNOTATION}"]`,
    };
  }
  return { value: document.capturedAt, path: 'capturedAt' };
}

/**
 * Why a snapshot captured at `capturedAt` cannot enter a history kept for `retentionDays` as of `now`, or
 * null when it can. History older than the window is pruned, so such a snapshot could never be placed
 * among its neighbours: it is refused when it arrives rather than failed once accepted.
 */
export function capturedAtRetentionProblem(capturedAt: Date, now: Date, retentionDays: number): string | null {
  const cutoff = now.getTime() - retentionDays * DAY_MS;
  if (capturedAt.getTime() >= cutoff) return null;
  return (
    `captured at ${capturedAt.toISOString()}, before the ${retentionDays}-day history retention window ` +
    `(history is kept from ${new Date(cutoff).toISOString()}): a snapshot that old can no longer be placed in it`
  );
}
