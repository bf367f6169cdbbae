/**
 * When a report schedule fires and which stretch of time each report covers.
 *
 * Every cadence is a cron expression read in the schedule's time zone: `daily` fires at local midnight,
 * `weekly` at midnight between Sunday and Monday, `monthly` at midnight on the 1st; `cron` is the
 * caller's own expression. The report made when the schedule fires at occurrence t covers the period
 * [previous occurrence, t), so consecutive reports tile time without gaps or overlaps, and a daily
 * period in a time zone with daylight saving time is 23 or 25 hours long on the days the clocks change.
 *
 * All functions take `now` (and every other instant) as arguments: nothing here reads the clock.
 */
import { CronExpressionParser } from 'cron-parser';

export type ReportCadence = 'daily' | 'weekly' | 'monthly' | 'cron';

/** The cron expression behind each fixed cadence. */
export const CADENCE_CRON: Readonly<Record<Exclude<ReportCadence, 'cron'>, string>> = {
  daily: '0 0 * * *',
  weekly: '0 0 * * 1',
  monthly: '0 0 1 * *',
};

export interface ScheduleTiming {
  /** A 5-field cron expression (minute hour day-of-month month day-of-week), or 6 fields with seconds first. */
  cron: string;
  /** IANA time zone name, e.g. `Europe/Paris` or `UTC`. */
  timeZone: string;
}

export interface ReportPeriod {
  start: Date;
  end: Date;
}

export class ScheduleError extends Error {
  override name = 'ScheduleError';
}

/** The cron expression a cadence fires on: the caller's for `cron`, the fixed one otherwise. */
export function cronOfCadence(cadence: ReportCadence, cron: string | null | undefined): string {
  if (cadence !== 'cron') return CADENCE_CRON[cadence];
  if (!cron) throw new ScheduleError('a `cron` cadence needs a cron expression');
  return cron.trim().replace(/\s+/g, ' ');
}

/** Whether the runtime knows the IANA time zone (`UTC` included). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone }).format(0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a timing: a known time zone, a cron expression of 5 or 6 fields that parses and fires, and
 * occurrences never closer together than `minIntervalMs`, over the next `sample` occurrences from `now`.
 * The second, minute and hour fields repeat on every day the expression matches, so the shortest gap
 * shows within the first two such days; a sample is enough (and a full year would cost ~100 ms).
 * Returns the problems found, empty when the timing is valid.
 */
export function timingProblems(timing: ScheduleTiming, now: Date, minIntervalMs: number, sample = 30): string[] {
  if (!isKnownTimeZone(timing.timeZone))
    return [`unknown time zone "${timing.timeZone}" (use an IANA name such as Europe/Paris or UTC)`];
  const fields = timing.cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    return [
      `a cron expression has 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first; got ${fields.length}`,
    ];
  }
  let occurrences: Date[];
  try {
    occurrences = nextOccurrences(timing, now, sample);
  } catch (error) {
    return [`invalid cron expression "${timing.cron}": ${error instanceof Error ? error.message : String(error)}`];
  }
  if (occurrences.length === 0) return [`cron expression "${timing.cron}" never fires`];
  let shortest = Infinity;
  for (let i = 1; i < occurrences.length; i++) {
    shortest = Math.min(shortest, occurrences[i].getTime() - occurrences[i - 1].getTime());
  }
  if (shortest < minIntervalMs) {
    return [
      `cron expression "${timing.cron}" fires every ${describeDuration(shortest)}; reports may be made at most every ${describeDuration(minIntervalMs)}`,
    ];
  }
  return [];
}

/** The next `count` occurrences strictly after `after`. */
export function nextOccurrences(timing: ScheduleTiming, after: Date, count: number): Date[] {
  const expression = parse(timing, after);
  const occurrences: Date[] = [];
  while (occurrences.length < count && expression.hasNext()) occurrences.push(expression.next().toDate());
  return occurrences;
}

/** The first occurrence strictly after `after`, or null when the expression never fires again. */
export function nextOccurrence(timing: ScheduleTiming, after: Date): Date | null {
  return nextOccurrences(timing, after, 1)[0] ?? null;
}

/** The last occurrence strictly before `before`, or null when there is none. */
export function previousOccurrence(timing: ScheduleTiming, before: Date): Date | null {
  const expression = parse(timing, before);
  return expression.hasPrev() ? expression.prev().toDate() : null;
}

/** The period a report made at occurrence `end` covers: from the occurrence before it. */
export function periodEndingAt(timing: ScheduleTiming, end: Date): ReportPeriod {
  const start = previousOccurrence(timing, end);
  if (start === null)
    throw new ScheduleError(`cron expression "${timing.cron}" has no occurrence before ${end.toISOString()}`);
  return { start, end };
}

export interface DuePeriods {
  /** Periods to make, oldest first. */
  periods: ReportPeriod[];
  /** Periods that were due but left out, older than the newest `maxPeriods`. */
  skipped: number;
}

/**
 * The periods whose reports are due at `now`: one per occurrence t with `after` < t ≤ `now`, where
 * `after` is the end of the newest period already made (or the schedule's anchor when none was made,
 * or when the cadence changed since). This is computed from what Postgres says was made, never from
 * what the queue remembers, so after downtime every missed period is found again, and a period made
 * once is never due again.
 *
 * Decision: after a very long outage only the newest `maxPeriods` periods are made (the rest are
 * counted in `skipped` and logged): a schedule firing every hour that was down for a month should not
 * flood its webhook with 720 reports.
 */
export function duePeriods(timing: ScheduleTiming, after: Date, now: Date, maxPeriods: number): DuePeriods {
  const ends: Date[] = [];
  let skipped = 0;
  const expression = parse(timing, after);
  while (expression.hasNext()) {
    const occurrence = expression.next().toDate();
    if (occurrence.getTime() > now.getTime()) break;
    ends.push(occurrence);
    if (ends.length > maxPeriods) {
      ends.shift();
      skipped++;
    }
  }
  return { periods: ends.map((end) => periodEndingAt(timing, end)), skipped };
}

/**
 * The period in progress at `now`, up to `now` (`partial`): what a report asked for now covers. At the
 * very instant of an occurrence the period in progress has just begun and is empty: the one that has
 * just ended is meant, whole.
 */
export function currentPeriod(timing: ScheduleTiming, now: Date): ReportPeriod & { partial: boolean } {
  const start = previousOccurrence(timing, new Date(now.getTime() + 1));
  if (start === null)
    throw new ScheduleError(`cron expression "${timing.cron}" has no occurrence before ${now.toISOString()}`);
  if (start.getTime() === now.getTime()) return { ...periodEndingAt(timing, now), partial: false };
  return { start, end: now, partial: true };
}

/** The newest period that has ended by `now`. */
export function previousPeriod(timing: ScheduleTiming, now: Date): ReportPeriod {
  const end = previousOccurrence(timing, new Date(now.getTime() + 1));
  if (end === null)
    throw new ScheduleError(`cron expression "${timing.cron}" has no occurrence before ${now.toISOString()}`);
  return periodEndingAt(timing, end);
}

function parse(timing: ScheduleTiming, currentDate: Date) {
  return CronExpressionParser.parse(timing.cron, { tz: timing.timeZone, currentDate });
}

function describeDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`;
  }
  return `${ms} ms`;
}
