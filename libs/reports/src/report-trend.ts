/** The report's trend: its figures per interval, as the dashboard draws them. */
import type { ReportInput } from './report-input.js';
import type { TrendPoint } from './report-model.js';
import { subtract } from './report-figures.js';

export function trendPoints(input: ReportInput): TrendPoint[] {
  const rows = new Map(input.trend.rows.map((row) => [row.index, row]));
  const states = new Map(input.trend.states.map((row) => [row.index, row]));
  return input.trend.buckets.map((bucket, index) => {
    const row = rows.get(index);
    const withHints = { crossZoneGb: row?.withHintsGb ?? 0, cost: row?.withHintsCost ?? 0 };
    const notEnabled = { crossZoneGb: row?.notEnabledGb ?? 0, cost: row?.notEnabledCost ?? 0 };
    const counts = states.get(index);
    return {
      start: bucket.start.toISOString(),
      end: bucket.end.toISOString(),
      withoutHints: { crossZoneGb: row?.withoutHintsGb ?? 0, cost: row?.withoutHintsCost ?? 0 },
      withHints,
      ifEnabled: subtract(withHints, notEnabled),
      hintStates: { populated: counts?.populated ?? 0, removed: counts?.removed ?? 0, none: counts?.none ?? 0 },
    };
  });
}
