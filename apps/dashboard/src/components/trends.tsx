import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { get, query } from '../api';
import { when } from '../format';
import { useUrlState } from '../url-state';
import { Chart } from './chart';
import { Empty, ErrorBox, Loading } from './states';
import type { Trends } from '../types';
import { hintStateWord } from '../vocabulary';

const HOUR_MS = 3_600_000;

const BUCKET_MS = { hour: HOUR_MS, day: 24 * HOUR_MS, week: 7 * 24 * HOUR_MS };

/**
 * A time axis in UTC (the API's buckets are UTC hours, days and Monday-weeks), over the answer's range,
 * with a tick and a grid line at least a bucket apart.
 */
function timeAxis(trends: Trends) {
  return {
    type: 'time',
    min: trends.from,
    max: trends.to,
    minInterval: BUCKET_MS[trends.bucket],
    name: 'UTC',
    nameLocation: 'end',
    nameGap: 4,
    axisTick: { show: true },
    axisLabel: { hideOverlap: true },
    splitLine: { show: true, lineStyle: { type: 'dashed', opacity: 0.5 } },
  };
}

/**
 * Cost without hints, as routed and if enabled, and Services by hint state, over a range: by default
 * the range the API fits to the data (from the first snapshot of the last 90 days), or a chosen one.
 * The fleet's (`/v1/fleet/trends`) or one cluster's (`/v1/clusters/{id}/trends`).
 */
export function TrendCharts({ path }: { path: string }) {
  const [param, setParams] = useUrlState();
  const chosen = param('trendDays');
  const days = Number(chosen);
  // Whole hours, so the query (and its cache entry) holds for a while; the API floors it to its bucket.
  const from = useMemo(
    () => (days > 0 ? new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - days * 24 * HOUR_MS).toISOString() : null),
    [days],
  );
  const url = `${path}${query(from ? { from, bucket: days <= 2 ? 'hour' : 'day' } : {})}`;
  const trends = useQuery({ queryKey: ['trends', url], queryFn: () => get<Trends>(url) });
  const picker = (
    <label>
      Trend range{' '}
      <select value={chosen} onChange={(event) => setParams({ trendDays: event.target.value })} name="trendDays">
        <option value="">fitted to the data</option>
        <option value="1">1 day (hourly)</option>
        <option value="7">7 days (daily)</option>
        <option value="30">30 days (daily)</option>
        <option value="90">90 days (daily)</option>
      </select>
    </label>
  );
  if (!trends.data) {
    return trends.isError ? (
      <ErrorBox error={trends.error} title="Trends could not be loaded" retry={() => trends.refetch()} />
    ) : (
      <Loading what="trends" />
    );
  }
  const points = trends.data.points;
  const times = points.map((point) => point.start);
  const line = (name: string, values: number[]) => ({
    name,
    type: 'line',
    // Filled and large enough to see: a range holding one bucket draws these points and nothing else.
    showSymbol: points.length < 40,
    symbol: 'circle',
    symbolSize: 7,
    data: values.map((v, i) => [times[i], v]),
  });
  // The answer's range, not one fitted around the points: a lone bucket sits where it falls in it.
  const xAxis = timeAxis(trends.data);
  const area = (name: string, values: number[]) => ({
    ...line(name, values),
    stack: 'services',
    areaStyle: {},
    // A zero band's point would sit on the band below it and hide that band's point.
    data: values.map((v, i) => ({ value: [times[i], v], symbol: v === 0 ? 'none' : 'circle' })),
  });
  return (
    <>
      <div className="controls">
        {picker}
        <span className="muted small" data-testid="trend-range">
          {trends.data.fitted ? 'fitted: ' : ''}
          {when(trends.data.from)} → {when(trends.data.to)},{' '}
          {trends.data.bucket === 'hour'
            ? 'hourly'
            : trends.data.bucket === 'day'
              ? 'daily (UTC days)'
              : 'weekly (from Monday, UTC)'}
        </span>
      </div>
      {points.length === 0 ? (
        <Empty>No snapshot recorded in this range: choose a longer one, or wait for the agents.</Empty>
      ) : (
        <div className="grid2" data-testid="trends">
          <Chart
            label="monthly cross-zone cost over time: without hints, as routed, if enabled"
            option={{
              useUTC: true,
              tooltip: { trigger: 'axis' },
              legend: { bottom: 0 },
              grid: { left: 60, right: 10, top: 20, bottom: 60 },
              xAxis,
              yAxis: { type: 'value', name: 'USD / month' },
              series: [
                line(
                  'without hints',
                  points.map((p) => p.monthly.withoutHints.cost),
                ),
                line(
                  'as routed',
                  points.map((p) => p.monthly.withHints.cost),
                ),
                line(
                  'if enabled',
                  points.map((p) => p.monthly.ifEnabled.cost),
                ),
              ],
            }}
          />
          <Chart
            label="Services by hint state over time"
            option={{
              useUTC: true,
              tooltip: { trigger: 'axis' },
              legend: { bottom: 0 },
              grid: { left: 60, right: 10, top: 20, bottom: 60 },
              xAxis,
              yAxis: { type: 'value', name: 'Services' },
              color: ['#1a7f37', '#cf222e', '#8c959f'],
              series: [
                area(
                  hintStateWord('populated'),
                  points.map((p) => p.services.populated),
                ),
                area(
                  hintStateWord('removed'),
                  points.map((p) => p.services.removed),
                ),
                area(
                  hintStateWord('none'),
                  points.map((p) => p.services.none),
                ),
              ],
            }}
          />
        </div>
      )}
    </>
  );
}
