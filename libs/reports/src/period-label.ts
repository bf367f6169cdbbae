/**
 * A report period as people name it, in the schedule's time zone: `2026-11-20` for a day,
 * `2026-11-16 – 2026-11-22` for a week, `November 2026` for a month, times when the period does not
 * start and end at local midnight.
 */
import type { ReportPeriod } from './schedule-periods.js';

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function localParts(at: Date, timeZone: string): LocalParts {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return {
    year: field('year'),
    month: field('month'),
    day: field('day'),
    hour: field('hour'),
    minute: field('minute'),
    second: field('second'),
  };
}

const pad = (value: number) => String(value).padStart(2, '0');

function dateText(parts: LocalParts): string {
  return `${parts.year}-${pad(parts.month)}-${pad(parts.day)}`;
}

/** `2026-11-20 06:00` (seconds shown only when not zero), in the time zone given. */
export function localDateTime(at: Date, timeZone: string): string {
  const parts = localParts(at, timeZone);
  const seconds = parts.second === 0 ? '' : `:${pad(parts.second)}`;
  return `${dateText(parts)} ${pad(parts.hour)}:${pad(parts.minute)}${seconds}`;
}

const isMidnight = (parts: LocalParts) => parts.hour === 0 && parts.minute === 0 && parts.second === 0;

/** The last calendar day a period ending at local midnight `end` includes. */
function dayBefore(end: LocalParts): LocalParts {
  const utc = new Date(Date.UTC(end.year, end.month - 1, end.day) - 86_400_000);
  return {
    year: utc.getUTCFullYear(),
    month: utc.getUTCMonth() + 1,
    day: utc.getUTCDate(),
    hour: 0,
    minute: 0,
    second: 0,
  };
}

export function periodLabel(period: ReportPeriod, timeZone: string, partial: boolean): string {
  const start = localParts(period.start, timeZone);
  const end = localParts(period.end, timeZone);
  const soFar = partial ? ' (so far)' : '';
  if (!partial && isMidnight(start) && isMidnight(end)) {
    const last = dayBefore(end);
    if (dateText(start) === dateText(last)) return `${dateText(start)}${soFar}`;
    const wholeMonth =
      start.day === 1 && end.day === 1 && end.year * 12 + end.month - (start.year * 12 + start.month) === 1;
    if (wholeMonth) return `${MONTHS[start.month - 1]} ${start.year}`;
    return `${dateText(start)} – ${dateText(last)}`;
  }
  return `${localDateTime(period.start, timeZone)} – ${localDateTime(period.end, timeZone)}${soFar}`;
}
