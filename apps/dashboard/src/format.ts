/** How figures read on every page: money in USD per month, fractions as percentages, sizes grouped. */

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export function money(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : usd.format(value);
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${(value * 100).toFixed(1)} %`;
}

export function number(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : count.format(value);
}

export function gb(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${count.format(value)} GB`;
}

export function age(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} days ago`;
}

// What Date#toLocaleString('en-GB', { timeZone: 'UTC', hour12: false }) writes, with one formatter made
// once: toLocaleString builds a new one on every call (about half a millisecond here).
const utc = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  hour12: false,
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

export function when(iso: string | null | undefined): string {
  return iso ? `${utc.format(new Date(iso))} UTC` : '—';
}

const time = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  hour12: false,
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** A time of day in UTC, as every time on the dashboard is written. */
export function clock(at: number | string | Date): string {
  return `${time.format(new Date(at))} UTC`;
}

/** How long ago, from milliseconds. */
export function ago(ms: number): string {
  return age(Math.max(0, Math.round(ms / 1000)));
}
