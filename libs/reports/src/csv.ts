/**
 * The CSV rendering: one row per Service per cluster (RFC 4180: CRLF line ends, fields quoted when they
 * hold a comma, a quote or a line break). Figures are the period's integrals, as in the JSON document;
 * the `fix_` columns are the Service's best recommended fix as of the period's end, per month, and
 * `fix_rank` orders the top fixes. `cross_zone_source` says whether the share as routed was measured or
 * modelled, `fully_measured` whether the row's as-routed money is measured (volume and share), and
 * `contradiction` why a measured share contradicts populated hints. Each money column is in cents that add up to the document's total for
 * it (rounded once): `cost_without_hints_usd` and `cost_with_hints_usd` sum to the headline figures.
 */
import { roundCents } from '@zw/core';
import type { ReportDocument, ServiceLine } from './report-document.js';

export const CSV_COLUMNS = [
  'period_start',
  'period_end',
  'cluster_id',
  'cluster',
  'namespace',
  'service',
  'routing',
  'hint_state',
  'hint_reason',
  'service_months',
  'traffic_gb',
  'traffic_source',
  'estimate',
  'cross_zone_source',
  'model_cross_zone',
  'measured_cross_zone',
  'fully_measured',
  'contradiction',
  'cross_zone_gb_without_hints',
  'cost_without_hints_usd',
  'cross_zone_gb_with_hints',
  'cost_with_hints_usd',
  'realized_savings_gb',
  'realized_savings_usd',
  'missed_savings_gb',
  'missed_savings_usd',
  'missed_reason',
  'missed_basis',
  'hint_state_changes',
  'flapping',
  'fix_rank',
  'fix_kind',
  'fix_summary',
  'fix_resulting_state',
  'fix_savings_gb_per_month',
  'fix_savings_usd_per_month',
] as const;

/**
 * Decision: numbers keep 9 significant digits (fractions of a cent stay visible; the JSON keeps every
 * digit). Text fields that a spreadsheet would run as a formula (leading = + - @, tab or CR) get a
 * leading apostrophe; numbers are never changed.
 */
/** USD to the cent, as every answer shows money. */
function moneyCell(value: number): string {
  return Number.isFinite(value) ? String(roundCents(value)) : '';
}

/** Whole cents as a USD cell. */
function centsCell(cents: number | null): string {
  return cents === null ? '' : String(cents / 100 || 0);
}

/**
 * One money column in whole cents that add up to its total rounded once (largest remainder): rounding
 * every cell on its own would let the column's sum drift from the headline by a cent per few rows.
 */
export function apportionCents(values: readonly number[]): (number | null)[] {
  const finite = values.filter(Number.isFinite);
  const target = Math.round(roundCents(finite.reduce((sum, value) => sum + value, 0)) * 100);
  // 12 significant digits: 0.29 * 100 is 28.999999999999996 in floating point, not 29.
  const scaled = values.map((value) => (Number.isFinite(value) ? Number((value * 100).toPrecision(12)) : null));
  const cents = scaled.map((value) => (value === null ? null : Math.floor(value)));
  let short = target - cents.reduce<number>((sum, value) => sum + (value ?? 0), 0);
  const byRemainder = scaled
    .map((value, index) => ({ index, remainder: value === null ? -1 : value - cents[index]! }))
    .filter((entry) => entry.remainder >= 0)
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const entry of byRemainder) {
    if (short <= 0) break;
    cents[entry.index]! += 1;
    short--;
  }
  return cents;
}

/** The money columns of every row, each apportioned so it sums to its total to the cent. */
interface MoneyColumns {
  withoutHints: (number | null)[];
  withHints: (number | null)[];
  realized: (number | null)[];
  missed: (number | null)[];
}

function moneyColumnsOf(lines: readonly ServiceLine[]): MoneyColumns {
  return {
    withoutHints: apportionCents(lines.map((line) => line.withoutHints.cost)),
    withHints: apportionCents(lines.map((line) => line.withHints.cost)),
    realized: apportionCents(lines.map((line) => line.realizedSavings.cost)),
    missed: apportionCents(lines.map((line) => line.missedSavings.cost)),
  };
}

function numberCell(value: number): string {
  return Number.isFinite(value) ? String(Number(value.toPrecision(9))) : '';
}

function textCell(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function row(document: ReportDocument, line: ServiceLine, money: MoneyColumns, index: number): string {
  return [
    textCell(document.period.start),
    textCell(document.period.end),
    textCell(line.cluster.id),
    textCell(line.cluster.name),
    textCell(line.namespace),
    textCell(line.name),
    textCell(line.routing),
    textCell(line.hintState),
    textCell(line.hintReason),
    numberCell(line.months),
    numberCell(line.trafficGb),
    textCell(line.trafficSource),
    line.estimate ? 'true' : 'false',
    textCell(line.crossZoneSource),
    numberCell(line.modelCrossZone),
    line.measuredCrossZone === null ? '' : numberCell(line.measuredCrossZone),
    line.fullyMeasured ? 'true' : 'false',
    textCell(line.contradiction?.reason ?? null),
    numberCell(line.withoutHints.crossZoneGb),
    centsCell(money.withoutHints[index]),
    numberCell(line.withHints.crossZoneGb),
    centsCell(money.withHints[index]),
    numberCell(line.realizedSavings.crossZoneGb),
    centsCell(money.realized[index]),
    numberCell(line.missedSavings.crossZoneGb),
    centsCell(money.missed[index]),
    textCell(line.missedReason),
    textCell(line.missedBasis),
    String(line.hintStateChanges),
    line.flapping ? 'true' : 'false',
    ...fixCells(line),
  ].join(',');
}

/** The Service's best recommended fix (its rank among all Services' best fixes), empty when it has none. */
function fixCells(line: ServiceLine): string[] {
  const fix = line.bestFix;
  if (fix === null) return ['', '', '', '', '', ''];
  return [
    String(fix.rank),
    textCell(fix.kind),
    textCell(fix.summary),
    textCell(fix.resultingState),
    numberCell(fix.monthlySavings.crossZoneGb),
    moneyCell(fix.monthlySavings.cost),
  ];
}

export function renderCsv(document: ReportDocument): string {
  const money = moneyColumnsOf(document.services);
  const rows = document.services.map((line, index) => row(document, line, money, index));
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}

/** Parses one CSV record set as written by renderCsv (for tests and tools): rows of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let field = '';
  let fields: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const character = text[i];
    if (quoted) {
      if (character === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (character === '"') quoted = false;
      else field += character;
    } else if (character === '"') quoted = true;
    else if (character === ',') {
      fields.push(field);
      field = '';
    } else if (character === '\r' && text[i + 1] === '\n') {
      fields.push(field);
      rows.push(fields);
      fields = [];
      field = '';
      i++;
    } else field += character;
  }
  if (field !== '' || fields.length > 0) rows.push([...fields, field]);
  return rows;
}
