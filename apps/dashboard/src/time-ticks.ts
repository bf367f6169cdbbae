/** Ticks for a time axis drawn by hand (the Service timeline), at UTC boundaries a person reads easily. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEPS = [
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY,
];

const dayLabel = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' });
const hourLabel = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

export interface Tick {
  at: number;
  label: string;
}

/**
 * At most `most` ticks over [start, end], each on a multiple of the step since the epoch (UTC midnight
 * for whole days): the hour (with the date at midnight) below a day, the date from a day up.
 */
export function timeTicks(start: number, end: number, most = 8): Tick[] {
  const span = Math.max(1, end - start);
  const step = STEPS.find((candidate) => span / candidate <= most) ?? STEPS[STEPS.length - 1];
  const ticks: Tick[] = [];
  for (let at = Math.ceil(start / step) * step; at <= end; at += step) {
    const date = new Date(at);
    const label = step >= DAY || at % DAY === 0 ? dayLabel.format(date) : `${hourLabel.format(date)}`;
    ticks.push({ at, label });
  }
  return ticks;
}

/** The hour (UTC) holding `at`: where a range fitted to the data starts. */
export function hourOf(at: number): number {
  return Math.floor(at / HOUR) * HOUR;
}
