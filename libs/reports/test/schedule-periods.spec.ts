import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CADENCE_CRON,
  cronOfCadence,
  currentPeriod,
  duePeriods,
  nextOccurrence,
  periodEndingAt,
  previousPeriod,
  ScheduleError,
  timingProblems,
} from '../src/schedule-periods.js';

const HOUR = 3_600_000;
const utcDaily = { cron: CADENCE_CRON.daily, timeZone: 'UTC' };
const parisDaily = { cron: CADENCE_CRON.daily, timeZone: 'Europe/Paris' };

describe('cadences', () => {
  it('fires daily at local midnight, weekly on Monday, monthly on the 1st', () => {
    const after = new Date('2026-11-18T12:00:00Z'); // a Wednesday
    expect(nextOccurrence(utcDaily, after)?.toISOString()).toBe('2026-11-19T00:00:00.000Z');
    expect(nextOccurrence({ cron: CADENCE_CRON.weekly, timeZone: 'UTC' }, after)?.toISOString()).toBe(
      '2026-11-23T00:00:00.000Z',
    );
    expect(nextOccurrence({ cron: CADENCE_CRON.monthly, timeZone: 'UTC' }, after)?.toISOString()).toBe(
      '2026-12-01T00:00:00.000Z',
    );
    expect(nextOccurrence(parisDaily, after)?.toISOString()).toBe('2026-11-18T23:00:00.000Z');
  });

  it('takes the caller’s cron expression only for the cron cadence', () => {
    expect(cronOfCadence('cron', '  0   6 * * 1-5 ')).toBe('0 6 * * 1-5');
    expect(cronOfCadence('weekly', undefined)).toBe('0 0 * * 1');
    expect(() => cronOfCadence('cron', undefined)).toThrow(ScheduleError);
  });

  it('makes a daily period 23 or 25 hours long on the days daylight saving time changes', () => {
    const spring = periodEndingAt(parisDaily, new Date('2026-03-29T22:00:00Z'));
    expect(spring.start.toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(spring.end.getTime() - spring.start.getTime()).toBe(23 * HOUR);
    const autumn = periodEndingAt(parisDaily, new Date('2026-10-25T23:00:00Z'));
    expect(autumn.end.getTime() - autumn.start.getTime()).toBe(25 * HOUR);
  });
});

describe('timingProblems', () => {
  const now = new Date('2026-11-20T10:00:00Z');

  it('accepts the fixed cadences and a valid cron expression in a known zone', () => {
    expect(timingProblems(parisDaily, now, HOUR)).toEqual([]);
    expect(timingProblems({ cron: '30 6 * * 1-5', timeZone: 'America/New_York' }, now, HOUR)).toEqual([]);
  });

  it('refuses unknown zones, malformed expressions and schedules firing more often than allowed', () => {
    expect(timingProblems({ cron: '0 0 * * *', timeZone: 'Mars/Olympus' }, now, HOUR)[0]).toMatch(/unknown time zone/);
    expect(timingProblems({ cron: '0 0 * *', timeZone: 'UTC' }, now, HOUR)[0]).toMatch(/5 fields/);
    expect(timingProblems({ cron: '61 0 * * *', timeZone: 'UTC' }, now, HOUR)[0]).toMatch(/invalid cron expression/);
    expect(timingProblems({ cron: '*/5 * * * *', timeZone: 'UTC' }, now, HOUR)[0]).toMatch(
      /every 5 minutes.*every 1 hour/,
    );
    // 6 fields (seconds first) are accepted when the deployment allows such short periods.
    expect(timingProblems({ cron: '*/10 * * * * *', timeZone: 'UTC' }, now, 1000)).toEqual([]);
  });

  it('measures the shortest gap, not the first one', () => {
    // 00:00 and 00:30 every day: the gaps are 30 minutes and 23.5 hours.
    expect(timingProblems({ cron: '0,30 0 * * *', timeZone: 'UTC' }, now, HOUR)[0]).toMatch(/every 30 minutes/);
  });
});

describe('duePeriods', () => {
  it('makes one period per occurrence after the last one made, up to now, tiling time', () => {
    const after = new Date('2026-11-17T00:00:00Z');
    const { periods, skipped } = duePeriods(utcDaily, after, new Date('2026-11-20T10:00:00Z'), 31);
    expect(skipped).toBe(0);
    expect(periods.map((p) => [p.start.toISOString().slice(0, 10), p.end.toISOString().slice(0, 10)])).toEqual([
      ['2026-11-17', '2026-11-18'],
      ['2026-11-18', '2026-11-19'],
      ['2026-11-19', '2026-11-20'],
    ]);
  });

  it('counts an occurrence at exactly `now` as due, and none once it was made', () => {
    const now = new Date('2026-11-20T00:00:00Z');
    expect(duePeriods(utcDaily, new Date('2026-11-19T12:00:00Z'), now, 31).periods).toHaveLength(1);
    expect(duePeriods(utcDaily, now, now, 31).periods).toHaveLength(0);
  });

  it('keeps the newest periods after a very long outage and says how many it left out', () => {
    const { periods, skipped } = duePeriods(
      utcDaily,
      new Date('2026-01-01T00:00:00Z'),
      new Date('2026-03-01T00:00:00Z'),
      7,
    );
    expect(periods).toHaveLength(7);
    expect(skipped).toBe(59 - 7);
    expect(periods[6].end.toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('property: due periods are contiguous, each ends at an occurrence after `after` and at or before `now`', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 * 24 }),
        fc.integer({ min: 0, max: 20 * 24 }),
        fc.constantFrom('0 0 * * *', '0 */6 * * *', '0 0 * * 1', '15 9 1 * *'),
        fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata'),
        (afterHours, spanHours, cron, timeZone) => {
          const after = new Date(Date.UTC(2026, 0, 1) + afterHours * HOUR);
          const now = new Date(after.getTime() + spanHours * HOUR);
          const { periods } = duePeriods({ cron, timeZone }, after, now, 1000);
          for (const [index, period] of periods.entries()) {
            expect(period.end.getTime()).toBeGreaterThan(after.getTime());
            expect(period.end.getTime()).toBeLessThanOrEqual(now.getTime());
            expect(period.start.getTime()).toBeLessThan(period.end.getTime());
            if (index > 0) expect(period.start.getTime()).toBe(periods[index - 1].end.getTime());
          }
          const next = nextOccurrence({ cron, timeZone }, periods.at(-1)?.end ?? after);
          expect(next === null || next.getTime() > now.getTime()).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('current and previous period', () => {
  it('the current period runs from the last occurrence up to now, partial', () => {
    const now = new Date('2026-11-20T10:30:00Z');
    expect(currentPeriod(utcDaily, now)).toEqual({ start: new Date('2026-11-20T00:00:00Z'), end: now, partial: true });
    expect(previousPeriod(utcDaily, now)).toEqual({
      start: new Date('2026-11-19T00:00:00Z'),
      end: new Date('2026-11-20T00:00:00Z'),
    });
  });

  it('at the very instant of an occurrence, the current period is the whole one that just ended', () => {
    const now = new Date('2026-11-20T00:00:00Z');
    expect(currentPeriod(utcDaily, now)).toEqual({ start: new Date('2026-11-19T00:00:00Z'), end: now, partial: false });
    expect(previousPeriod(utcDaily, now).end).toEqual(now);
  });
});
