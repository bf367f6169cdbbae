import ms from 'ms';
import { DAY_MS, HOUR_MS } from './time-units.js';

/** A number alone is seconds, as Kubernetes and Prometheus operators expect (`ms` would read milliseconds). */
const BARE_SECONDS = /^\d+(\.\d+)?$/;

/** The examples every duration problem names. */
const EXAMPLES = '500ms, 30s, 5m, 1h or 30d';

/**
 * The one reading of durations operators write, in flags, settings and API bodies: what `ms` reads
 * (`1500ms`, `30s`, `5m`, `1.5h`, `30d`, `1w`, `2 days`…) or a bare number of seconds. Whole
 * milliseconds, or null when the text is not a non-negative duration.
 */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = BARE_SECONDS.test(trimmed) ? Number(trimmed) * 1000 : ms(trimmed as ms.StringValue);
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
}

export interface DurationBounds {
  minMs?: number;
  maxMs?: number;
  /** Refuse fractions of a second (a duration stored or sent as whole seconds). */
  wholeSeconds?: boolean;
}

/** What is wrong with `text` as the duration `setting` (a flag, variable or field it names), or null. */
export function durationProblem(setting: string, text: string, bounds: DurationBounds = {}): string | null {
  const value = parseDuration(text);
  if (value === null) return `${setting}: "${text}" is not a duration (e.g. ${EXAMPLES})`;
  if (bounds.minMs !== undefined && value < bounds.minMs) {
    return `${setting}: must be at least ${formatDuration(bounds.minMs)}, got "${text}"`;
  }
  if (bounds.maxMs !== undefined && value > bounds.maxMs) {
    return `${setting}: must be at most ${formatDuration(bounds.maxMs)}, got "${text}"`;
  }
  if (bounds.wholeSeconds && value % 1000 !== 0) return `${setting}: must be whole seconds, got "${text}"`;
  return null;
}

/** `3_600_000` → `1h`: the largest unit that divides the duration. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds > 0) {
    for (const [unit, size] of [
      ['d', DAY_MS],
      ['h', HOUR_MS],
      ['m', 60_000],
    ] as const) {
      if (milliseconds % size === 0) return `${milliseconds / size}${unit}`;
    }
  }
  return milliseconds % 1000 === 0 ? `${milliseconds / 1000}s` : `${milliseconds}ms`;
}
