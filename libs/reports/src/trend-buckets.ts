/**
 * Where the trend charts sample a period: equal buckets of a round size, so a day is drawn hour by hour,
 * a week in quarter days and a month day by day.
 */
import type { ReportPeriod } from './schedule-periods.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Bucket sizes tried in turn: the first that cuts the period into at most MAX_BUCKETS wins. */
const BUCKET_SIZES_MS = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 7 * DAY, 30 * DAY];
const MAX_BUCKETS = 48;

export interface TrendBucket {
  start: Date;
  end: Date;
}

/**
 * Decision: buckets are equal lengths of elapsed time counted from the period's start, the last one cut
 * at the period's end. Around a daylight-saving change a day-sized bucket is then an hour off local
 * midnight; drawing a 23- or 25-hour bucket instead would make the day look cheaper or dearer than it was.
 */
export function trendBuckets(period: ReportPeriod): TrendBucket[] {
  const start = period.start.getTime();
  const length = period.end.getTime() - start;
  if (length <= 0) return [];
  const size =
    BUCKET_SIZES_MS.find((candidate) => length / candidate <= MAX_BUCKETS) ?? Math.ceil(length / MAX_BUCKETS);
  const buckets: TrendBucket[] = [];
  for (let at = start; at < period.end.getTime(); at += size) {
    buckets.push({ start: new Date(at), end: new Date(Math.min(at + size, period.end.getTime())) });
  }
  return buckets;
}
