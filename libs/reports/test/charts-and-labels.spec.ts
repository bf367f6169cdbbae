import { describe, expect, it } from 'vitest';
import { periodLabel } from '../src/period-label.js';
import { horizontalBars, lineChart, stackedColumns } from '../src/svg-charts.js';
import { trendBuckets } from '../src/trend-buckets.js';

const money = (value: number) => `$${value.toFixed(2)}`;

describe('periodLabel', () => {
  it('names days, weeks and months in the schedule’s time zone', () => {
    expect(
      periodLabel(
        { start: new Date('2026-11-18T23:00:00Z'), end: new Date('2026-11-19T23:00:00Z') },
        'Europe/Paris',
        false,
      ),
    ).toBe('2026-11-19');
    expect(
      periodLabel({ start: new Date('2026-11-16T00:00:00Z'), end: new Date('2026-11-23T00:00:00Z') }, 'UTC', false),
    ).toBe('2026-11-16 – 2026-11-22');
    expect(
      periodLabel(
        { start: new Date('2026-10-31T23:00:00Z'), end: new Date('2026-11-30T23:00:00Z') },
        'Europe/Paris',
        false,
      ),
    ).toBe('November 2026');
    expect(
      periodLabel({ start: new Date('2026-11-19T06:00:00Z'), end: new Date('2026-11-20T06:00:00Z') }, 'UTC', false),
    ).toBe('2026-11-19 06:00 – 2026-11-20 06:00');
    expect(
      periodLabel({ start: new Date('2026-11-20T00:00:00Z'), end: new Date('2026-11-20T10:30:15Z') }, 'UTC', true),
    ).toBe('2026-11-20 00:00 – 2026-11-20 10:30:15 (so far)');
  });
});

describe('trendBuckets', () => {
  it('cuts a day in hours, a week in quarter days, a month in days, the last bucket at the period’s end', () => {
    const day = trendBuckets({ start: new Date('2026-11-19T00:00:00Z'), end: new Date('2026-11-20T00:00:00Z') });
    expect(day).toHaveLength(24);
    expect(
      trendBuckets({ start: new Date('2026-11-16T00:00:00Z'), end: new Date('2026-11-23T00:00:00Z') }),
    ).toHaveLength(28);
    const month = trendBuckets({ start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z') });
    expect(month).toHaveLength(30);
    const odd = trendBuckets({ start: new Date('2026-11-19T00:00:00Z'), end: new Date('2026-11-19T10:30:00Z') });
    expect(odd.at(-1)!.end).toEqual(new Date('2026-11-19T10:30:00Z'));
    for (let i = 1; i < odd.length; i++) expect(odd[i].start).toEqual(odd[i - 1].end);
    expect(trendBuckets({ start: new Date(0), end: new Date(0) })).toEqual([]);
  });
});

describe('svg charts', () => {
  it('draw one self-contained, labelled svg element, escaping every text', () => {
    const charts = [
      lineChart({
        title: 'Cost <per> hour',
        labels: ['00:00', '01:00'],
        format: money,
        series: [{ name: 'a&b', color: '#000', values: [1, 2] }],
      }),
      stackedColumns({
        title: 'States',
        labels: ['x'],
        format: String,
        stacks: [{ name: 'populated', color: '#0f0', values: [3] }],
      }),
      horizontalBars({
        title: 'Bars',
        format: money,
        items: [{ label: '<script>', value: 2, color: '#00f', note: '3 Services' }],
      }),
    ];
    for (const svg of charts) {
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(svg.endsWith('</svg>')).toBe(true);
      expect(svg).toMatch(/<title>[^<]+<\/title>/);
      expect(svg).not.toMatch(/<script|href=|<image/);
    }
    expect(charts[0]).toContain('Cost &lt;per&gt; hour');
    expect(charts[0]).toContain('a&amp;b');
    expect(charts[0]).toMatch(/<polyline [^>]*points="[\d., ]+"/);
    expect(charts[2]).toContain('&lt;script&gt;');
  });

  it('keeps an empty or all-zero series drawable', () => {
    expect(
      lineChart({ title: 't', labels: [], format: money, series: [{ name: 's', color: '#000', values: [0, 0, 0] }] }),
    ).toContain('<polyline');
    expect(horizontalBars({ title: 't', format: money, items: [] })).toContain('nothing to show');
  });
});
