/**
 * Durations as operators write them in flags and Helm values: `1500ms`, `30s`, `5m`, `1h`, or a bare
 * number of seconds. Returns milliseconds, or null when the text is not a duration.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] ?? 's'];
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
