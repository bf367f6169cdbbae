/**
 * Small inline SVG charts for the HTML report: a line chart, stacked columns and horizontal bars. Each
 * returns one self-contained `<svg>` element (no scripts, no external fonts or images), so the report
 * opens anywhere, offline and in mail clients that strip scripts.
 */
import { escapeHtml } from './html-escape.js';

export interface LineSeries {
  name: string;
  color: string;
  values: readonly number[];
  dashed?: boolean;
}

export interface ChartFrame {
  title: string;
  width?: number;
  height?: number;
  /** Formats an axis value (e.g. dollars). */
  format: (value: number) => string;
}

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif"';
const AXIS_COLOR = '#8a94a6';
const GRID_COLOR = '#e6e9ef';
const MARGIN = { top: 28, right: 16, bottom: 34, left: 64 };

function svgOpen(frame: ChartFrame, width: number, height: number, description: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ` +
    `role="img" aria-label="${escapeHtml(frame.title)}" ${FONT} font-size="11">` +
    `<title>${escapeHtml(frame.title)}</title><desc>${escapeHtml(description)}</desc>` +
    `<text x="${MARGIN.left}" y="16" font-size="13" font-weight="600" fill="#1f2937">${escapeHtml(frame.title)}</text>`
  );
}

/** 0 and four round steps up to at least `max`. */
function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= rough)!;
  const ticks: number[] = [];
  for (let value = 0; value < max + step * 0.999; value += step) ticks.push(Number(value.toPrecision(12)));
  return ticks;
}

function yAxis(ticks: readonly number[], scale: (v: number) => number, width: number, format: (v: number) => string) {
  return ticks
    .map((tick) => {
      const y = scale(tick).toFixed(1);
      return (
        `<line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${y}" y2="${y}" stroke="${GRID_COLOR}"/>` +
        `<text x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle" fill="${AXIS_COLOR}">${escapeHtml(format(tick))}</text>`
      );
    })
    .join('');
}

/** At most `count` evenly spread labels under the x axis. */
function xLabels(labels: readonly string[], x: (index: number) => number, height: number, count = 6): string {
  if (labels.length === 0) return '';
  const every = Math.max(1, Math.ceil(labels.length / count));
  return labels
    .map((label, index) =>
      index % every === 0
        ? `<text x="${x(index).toFixed(1)}" y="${height - MARGIN.bottom + 16}" text-anchor="middle" fill="${AXIS_COLOR}">${escapeHtml(label)}</text>`
        : '',
    )
    .join('');
}

function legend(items: readonly { name: string; color: string; dashed?: boolean }[], width: number): string {
  let x = width - MARGIN.right;
  const parts: string[] = [];
  for (const item of [...items].reverse()) {
    const textWidth = item.name.length * 6.2;
    x -= textWidth;
    parts.push(`<text x="${x.toFixed(1)}" y="16" fill="#374151">${escapeHtml(item.name)}</text>`);
    x -= 22;
    parts.push(
      `<line x1="${x.toFixed(1)}" x2="${(x + 16).toFixed(1)}" y1="12" y2="12" stroke="${item.color}" stroke-width="3"${item.dashed ? ' stroke-dasharray="4 3"' : ''}/>`,
    );
    x -= 14;
  }
  return parts.join('');
}

export function lineChart(frame: ChartFrame & { labels: readonly string[]; series: readonly LineSeries[] }): string {
  const width = frame.width ?? 720;
  const height = frame.height ?? 260;
  const count = Math.max(1, ...frame.series.map((series) => series.values.length));
  const max = Math.max(0, ...frame.series.flatMap((series) => series.values.filter(Number.isFinite)));
  const ticks = niceTicks(max);
  const top = ticks[ticks.length - 1];
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const x = (index: number) => MARGIN.left + (count === 1 ? plotWidth / 2 : (index / (count - 1)) * plotWidth);
  const y = (value: number) => MARGIN.top + plotHeight - (top > 0 ? (value / top) * plotHeight : 0);
  const lines = frame.series
    .map((series) => {
      const points = series.values.map(
        (value, index) => `${x(index).toFixed(1)},${y(Number.isFinite(value) ? value : 0).toFixed(1)}`,
      );
      const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
      if (points.length === 1) {
        const [cx, cy] = points[0].split(',');
        return `<circle cx="${cx}" cy="${cy}" r="4" fill="${series.color}"/>`;
      }
      return `<polyline fill="none" stroke="${series.color}" stroke-width="2.5" stroke-linejoin="round"${dash} points="${points.join(' ')}"/>`;
    })
    .join('');
  const description = frame.series
    .map((series) => `${series.name}: ${series.values.map((value) => frame.format(value)).join(', ')}`)
    .join('; ');
  return (
    svgOpen(frame, width, height, description) +
    yAxis(ticks, y, width, frame.format) +
    xLabels(frame.labels, x, height) +
    lines +
    legend(frame.series, width) +
    '</svg>'
  );
}

export interface StackedSeries {
  name: string;
  color: string;
  values: readonly number[];
}

export function stackedColumns(
  frame: ChartFrame & { labels: readonly string[]; stacks: readonly StackedSeries[] },
): string {
  const width = frame.width ?? 720;
  const height = frame.height ?? 240;
  const count = Math.max(1, frame.labels.length);
  const totals = Array.from({ length: count }, (_, index) =>
    frame.stacks.reduce((sum, stack) => sum + Math.max(0, stack.values[index] ?? 0), 0),
  );
  const ticks = niceTicks(Math.max(0, ...totals));
  const top = ticks[ticks.length - 1];
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const slot = plotWidth / count;
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => MARGIN.top + plotHeight - (top > 0 ? (value / top) * plotHeight : 0);
  const bars: string[] = [];
  for (let index = 0; index < count; index++) {
    let base = 0;
    for (const stack of frame.stacks) {
      const value = Math.max(0, stack.values[index] ?? 0);
      if (value === 0) continue;
      const y0 = y(base + value);
      const h = y(base) - y0;
      bars.push(
        `<rect x="${(MARGIN.left + index * slot + (slot - barWidth) / 2).toFixed(1)}" y="${y0.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${h.toFixed(1)}" fill="${stack.color}"/>`,
      );
      base += value;
    }
  }
  const description = frame.stacks.map((stack) => `${stack.name}: ${stack.values.join(', ')}`).join('; ');
  return (
    svgOpen(frame, width, height, description) +
    yAxis(ticks, y, width, frame.format) +
    xLabels(frame.labels, (index) => MARGIN.left + index * slot + slot / 2, height) +
    bars.join('') +
    legend(frame.stacks, width) +
    '</svg>'
  );
}

export interface BarItem {
  label: string;
  value: number;
  color: string;
  /** Text after the value (e.g. "3 Services"). */
  note?: string;
}

export function horizontalBars(frame: ChartFrame & { items: readonly BarItem[] }): string {
  const width = frame.width ?? 720;
  const rowHeight = 24;
  const labelWidth = 230;
  const height = MARGIN.top + Math.max(1, frame.items.length) * rowHeight + 12;
  const max = Math.max(0, ...frame.items.map((item) => item.value));
  const plotWidth = width - labelWidth - 190;
  const rows = frame.items
    .map((item, index) => {
      const y = MARGIN.top + index * rowHeight;
      const barLength = max > 0 ? Math.max(item.value > 0 ? 2 : 0, (item.value / max) * plotWidth) : 0;
      const label = item.label.length > 36 ? `${item.label.slice(0, 35)}…` : item.label;
      const note = item.note ? ` · ${item.note}` : '';
      return (
        `<text x="${labelWidth - 8}" y="${y + 12}" text-anchor="end" dominant-baseline="middle" fill="#374151">${escapeHtml(label)}</text>` +
        `<rect x="${labelWidth}" y="${y + 3}" width="${barLength.toFixed(1)}" height="${rowHeight - 8}" rx="3" fill="${item.color}"/>` +
        `<text x="${(labelWidth + barLength + 6).toFixed(1)}" y="${y + 12}" dominant-baseline="middle" fill="#374151">${escapeHtml(frame.format(item.value) + note)}</text>`
      );
    })
    .join('');
  const description = frame.items.map((item) => `${item.label}: ${frame.format(item.value)}`).join('; ');
  const empty =
    frame.items.length === 0
      ? `<text x="${labelWidth}" y="${MARGIN.top + 12}" fill="${AXIS_COLOR}">nothing to show for this period</text>`
      : '';
  return svgOpen(frame, width, height, description) + rows + empty + '</svg>';
}
