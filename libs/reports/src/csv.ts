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
  let total = 0;
  for (const value of values) if (Number.isFinite(value)) total += value;
  const target = Math.round(roundCents(total) * 100);
  const scaled = values.map((value) => (Number.isFinite(value) ? centsToTwelveDigits(value) : null));
  const cents = scaled.map((value) => (value === null ? null : Math.floor(value)));
  let apportioned = 0;
  for (const value of cents) apportioned += value ?? 0;
  let short = target - apportioned;
  // NaN only when a figure overflows in cents (beyond 1e306 USD): every cell then gets a cent, as it always did.
  if (Number.isNaN(short)) short = Infinity;
  if (short > 0) addCentsToLargestRemainders(scaled, cents, short);
  return cents;
}

/** A USD value in cents, to 12 significant digits: 0.29 * 100 is 28.999999999999996 in floating point, not 29. */
function centsToTwelveDigits(value: number): number {
  const cents = value * 100;
  // Whole cents (0 above all) come back unchanged from the string round trip, which costs the most here.
  if (Number.isInteger(cents) && Math.abs(cents) < 1e12) return cents === 0 ? 0 : cents;
  return Number(cents.toPrecision(12));
}

/**
 * Adds a cent to the `short` cells with the largest remainders, the first rows first among equal ones.
 * Decision: it finds the smallest remainder that gets a cent by sorting the remainders alone, as numbers
 * (measured: an object per row, sorted by a comparator, was about 40 % of apportioning 200,000 rows).
 */
function addCentsToLargestRemainders(scaled: (number | null)[], cents: (number | null)[], short: number): void {
  const remainders = scaled.map((value, index) => (value === null ? -1 : value - cents[index]!));
  const sorted = Float64Array.from(remainders.filter((remainder) => remainder >= 0)).sort();
  if (sorted.length === 0) return;
  const lowest = sorted[Math.max(sorted.length - short, 0)]!;
  let atLowest = short - sorted.filter((remainder) => remainder > lowest).length;
  remainders.forEach((remainder, index) => {
    if (remainder > lowest || (remainder === lowest && atLowest-- > 0)) cents[index]! += 1;
  });
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
  if (!Number.isFinite(value)) return '';
  // Whole numbers (0 above all) come back unchanged from the string round trip, which costs the most here.
  if (Number.isInteger(value) && Math.abs(value) < 1e9) return String(value);
  return String(Number(value.toPrecision(9)));
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

/**
 * Decision: rows are joined a thousand at a time, so a row's string dies young (measured: holding all
 * 200,000 of them for one join kept them through collections, about a third of the CSV's time).
 */
const ROWS_PER_CHUNK = 1000;

export function renderCsv(document: ReportDocument): string {
  const money = moneyColumnsOf(document.services);
  const chunks = [`${CSV_COLUMNS.join(',')}\r\n`];
  const lines = document.services;
  for (let start = 0; start < lines.length; start += ROWS_PER_CHUNK) {
    const rows: string[] = [];
    for (let index = start; index < Math.min(start + ROWS_PER_CHUNK, lines.length); index++) {
      rows.push(row(document, lines[index]!, money, index));
    }
    chunks.push(`${rows.join('\r\n')}\r\n`);
  }
  return chunks.join('');
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
