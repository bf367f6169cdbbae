/**
 * The HTML rendering: one self-contained page (inline CSS and inline SVG charts; no script, font, image
 * or stylesheet from anywhere), readable in a browser, a mail client or printed. Every text that came
 * from users or clusters is escaped.
 */
import { MISSED_REASON_TITLES, type MissedReason } from './missed-reasons.js';
import { escapeHtml } from './html-escape.js';
import { formatCount, formatGb, formatMoney, formatPercent } from './number-format.js';
import { localDateTime } from './period-label.js';
import type { Figure, ReportDocument } from './report-document.js';
import { horizontalBars, lineChart, stackedColumns } from './svg-charts.js';

const COLORS = {
  without: '#9ca3af',
  with: '#2563eb',
  ifEnabled: '#16a34a',
  populated: '#16a34a',
  // The dashboard's colour and word for the `removed` hint state (apps/dashboard/src/vocabulary.ts).
  removed: '#cf222e',
  none: '#cbd5e1',
};

const REASON_COLORS: Readonly<Record<MissedReason, string>> = {
  'not-enabled': '#2563eb',
  'too-few-endpoints': '#f59e0b',
  'overload-threshold': '#dc2626',
  'node-info': '#7c3aed',
  other: '#6b7280',
};

const STYLE = `
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; margin: 0; background: #f5f6f8; }
  main { max-width: 980px; margin: 0 auto; padding: 28px 24px 48px; background: #fff; }
  h1 { font-size: 24px; margin: 0 0 4px; }
  h2 { font-size: 17px; margin: 32px 0 10px; border-bottom: 1px solid #e5e7eb; padding-bottom: 6px; }
  .subtitle { color: #4b5563; margin: 0 0 20px; }
  .cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; }
  .card { border: 1px solid #e5e7eb; border-radius: 8px; padding: 12px 14px; }
  .card .label { font-size: 12px; color: #6b7280; text-transform: uppercase; letter-spacing: .03em; }
  .card .value { font-size: 22px; font-weight: 650; margin-top: 4px; }
  .card .detail { font-size: 12px; color: #6b7280; margin-top: 2px; }
  .good { color: #15803d; } .warn { color: #b45309; } .bad { color: #b91c1c; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #eef0f3; vertical-align: top; }
  th { color: #6b7280; font-weight: 600; font-size: 12px; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  .chart { margin: 8px 0 4px; overflow-x: auto; }
  .muted { color: #6b7280; font-size: 12px; }
  ul.notes { color: #4b5563; font-size: 13px; padding-left: 18px; }
  code { font-size: 12px; background: #f3f4f6; padding: 1px 4px; border-radius: 3px; }
  pre { font-size: 12px; background: #f3f4f6; padding: 8px 10px; border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; }
`;

const money = (figure: Figure) => formatMoney(figure.cost);

function card(label: string, value: string, detail: string, tone = ''): string {
  return `<div class="card"><div class="label">${escapeHtml(label)}</div><div class="value ${tone}">${escapeHtml(value)}</div><div class="detail">${escapeHtml(detail)}</div></div>`;
}

function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: ReadonlySet<number>,
  empty: string,
) {
  if (rows.length === 0) return `<p class="muted">${escapeHtml(empty)}</p>`;
  const head = headers
    .map((header, index) => `<th${numeric.has(index) ? ' class="num"' : ''}>${escapeHtml(header)}</th>`)
    .join('');
  const body = rows
    .map(
      (cells) =>
        `<tr>${cells.map((cell, index) => `<td${numeric.has(index) ? ' class="num"' : ''}>${escapeHtml(cell)}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function bucketLabel(document: ReportDocument, iso: string): string {
  const text = localDateTime(new Date(iso), document.period.timeZone);
  return document.period.hours <= 48 ? text.slice(11) : text.slice(5, 10);
}

function headline(document: ReportDocument): string {
  const totals = document.totals;
  return `<section class="cards">
    ${card('Cross-zone cost', money(totals.withHints), `${formatGb(totals.withHints.crossZoneGb)} crossed zones`)}
    ${card('Saved by topology routing', money(totals.realizedSavings), `${formatGb(totals.realizedSavings.crossZoneGb)} kept in-zone`, 'good')}
    ${card('Missed: not enabled', money(totals.missedSavings), `${formatCount(totals.opportunities)} Services would route in-zone`, totals.missedSavings.cost > 0 ? 'warn' : '')}
    ${card('At stake: refused hints', money(totals.blockedAtStake), 'too few endpoints, overload, node info', totals.blockedAtStake.cost > 0 ? 'bad' : '')}
    ${card('Traffic measured', totals.measuredShare === null ? '–' : `${(totals.measuredShare * 100).toFixed(1)}%`, `${formatGb(totals.measuredTrafficGb)} measured by traffic sources, the rest declared or estimated`)}
  </section>`;
}

function trendSection(document: ReportDocument): string {
  const points = document.trend.points;
  if (points.length === 0) return '';
  const labels = points.map((point) => bucketLabel(document, point.start));
  const cost = lineChart({
    title: 'Cross-zone cost per interval',
    labels,
    format: formatMoney,
    series: [
      { name: 'without hints', color: COLORS.without, values: points.map((p) => p.withoutHints.cost), dashed: true },
      { name: 'as routed', color: COLORS.with, values: points.map((p) => p.withHints.cost) },
      { name: 'if enabled', color: COLORS.ifEnabled, values: points.map((p) => p.ifEnabled.cost), dashed: true },
    ],
  });
  const states = stackedColumns({
    title: 'Services by hint state',
    labels,
    format: (value) => formatCount(Math.round(value)),
    stacks: [
      { name: 'populated', color: COLORS.populated, values: points.map((p) => p.hintStates.populated) },
      { name: 'refused', color: COLORS.removed, values: points.map((p) => p.hintStates.removed) },
      { name: 'none', color: COLORS.none, values: points.map((p) => p.hintStates.none) },
    ],
  });
  return `<h2>Trends</h2>
    <p class="muted">The gap between “without hints” and “as routed” is what topology routing saved; the gap down to “if enabled” is what enabling it where it would work would have saved.</p>
    <div class="chart">${cost}</div><div class="chart">${states}</div>`;
}

function missedSection(document: ReportDocument): string {
  const chart = horizontalBars({
    title: 'Missed savings by reason',
    format: formatMoney,
    items: document.missedSavings.byReason.map((entry) => ({
      label: entry.title,
      value: entry.cost,
      color: REASON_COLORS[entry.reason],
      note: `${formatCount(entry.services)} Service${entry.services === 1 ? '' : 's'} mainly${entry.basis === 'at-stake' ? ', at stake' : ''}`,
    })),
  });
  return `<h2>Savings missed, and why</h2>
    <div class="chart">${chart}</div>
    <p class="muted">“Not enabled” is what enabling <code>topology-mode: Auto</code> would have saved. For the other reasons the controller refuses hints, so the figure is the cross-zone traffic those Services still made: the most that fixing the cause could save.</p>`;
}

function opportunitiesSection(document: ReportDocument): string {
  const items = document.topOpportunities;
  const chart = horizontalBars({
    title: 'Top Services by opportunity',
    format: formatMoney,
    items: items.map((line) => ({
      label: `${line.namespace}/${line.name}`,
      value: line.missedSavings.cost,
      color: REASON_COLORS['not-enabled'],
      note: `${line.cluster.name}${line.estimate ? ', estimate' : ''}`,
    })),
  });
  const rows = items.map((line) => [
    line.cluster.name,
    `${line.namespace}/${line.name}`,
    formatGb(line.trafficGb),
    formatGb(line.missedSavings.crossZoneGb),
    formatMoney(line.missedSavings.cost),
    line.estimate ? 'estimate' : '',
  ]);
  return `<h2>Top Services by opportunity</h2><div class="chart">${chart}</div>
    ${table(['Cluster', 'Service', 'Traffic', 'Cross-zone GB saved', 'Saved', ''], rows, new Set([2, 3, 4]), 'No Service would gain from enabling topology routing in this period.')}`;
}

function fixesSection(document: ReportDocument): string {
  const rows = document.topFixes.map((fix) => [
    String(fix.rank),
    fix.cluster.name,
    `${fix.namespace}/${fix.name}`,
    fix.kind,
    fix.summary,
    `${fix.resultingState}, ${formatPercent(fix.crossZoneAfter)} cross-zone${fix.overloadAboveThreshold ? ', overload above 20 %' : ''}`,
    formatMoney(fix.monthlySavings.cost),
    fix.estimate ? 'estimate' : '',
  ]);
  const patches = document.topFixes
    .map(
      (fix) =>
        `<h3>${escapeHtml(`${fix.rank}. ${fix.cluster.name}: ${fix.namespace}/${fix.name}`)}</h3><pre>${escapeHtml(fix.patch)}</pre>`,
    )
    .join('');
  return `<h2>Top fixes</h2>
    <p>The changes that would make Services route in-zone, as of the end of the period: each Service's best fix, largest monthly saving first. Each was checked by running the EndpointSlice controller model with the change applied.</p>
    ${table(['#', 'Cluster', 'Service', 'Fix', 'What to change', 'After', 'Saves/month', ''], rows, new Set([0, 6]), 'No Service needs a fix: every one routes in-zone or cannot gain.')}
    ${patches}`;
}

function clustersSection(document: ReportDocument): string {
  const rows = document.clusters.map((cluster) => [
    cluster.name,
    `${cluster.cloud}${cluster.region ? ` ${cluster.region}` : ''}`,
    `$${cluster.pricing.pricePerGb}/GB`,
    formatCount(cluster.totals.services),
    formatMoney(cluster.totals.withoutHints.cost),
    formatMoney(cluster.totals.withHints.cost),
    formatMoney(cluster.totals.realizedSavings.cost),
    formatMoney(cluster.totals.missedSavings.cost),
    formatCount(cluster.coverage.snapshots),
  ]);
  return `<h2>Clusters</h2>${table(
    ['Cluster', 'Cloud', 'Price', 'Services', 'Without hints', 'As routed', 'Saved', 'Missed', 'Snapshots'],
    rows,
    new Set([3, 4, 5, 6, 7, 8]),
    'No cluster in scope.',
  )}`;
}

function measuredSection(document: ReportDocument): string {
  if (document.measuredTraffic.length === 0) return '';
  const share = (value: number | null) => (value === null ? '–' : formatPercent(value));
  const usd = (value: number | null) => (value === null ? '–' : formatMoney(value));
  const rows = document.measuredTraffic.map((line) => [
    line.cluster.name,
    share(line.measuredShare),
    formatCount(line.servicesMeasured),
    share(line.estimated.crossZone),
    share(line.measured.crossZone),
    usd(line.estimated.cost),
    usd(line.measured.cost),
    usd(line.error.cost),
  ]);
  return `<h2>Model against measurement</h2>
    <p>Clusters with a traffic source, as of when this report was made: the share of their traffic that is measured, and over the Services whose source gives zones, the modelled cross-zone share and monthly cost against the measured ones (error = model − measured).</p>
    ${table(
      [
        'Cluster',
        'Traffic measured',
        'Services',
        'Cross-zone (model)',
        'Cross-zone (measured)',
        'Cost/month (model)',
        'Cost/month (measured)',
        'Error',
      ],
      rows,
      new Set([1, 2, 3, 4, 5, 6, 7]),
      'No cluster has measured traffic.',
    )}`;
}

function hintStatesSection(document: ReportDocument): string {
  const states = document.hintStates;
  const transitions = states.transitions.map((entry) => [`${entry.from} → ${entry.to}`, formatCount(entry.count)]);
  const flapping = states.flapping.map((entry) => [
    entry.cluster.name,
    `${entry.namespace}/${entry.name}`,
    formatCount(entry.changes),
    entry.hintState,
  ]);
  return `<h2>Hint-state changes and flapping</h2>
    <p>${formatCount(states.changes)} hint-state change${states.changes === 1 ? '' : 's'} across ${formatCount(states.servicesChanged)} Service${states.servicesChanged === 1 ? '' : 's'}; a Service flaps when it changed ${states.flappingThreshold} times or more.</p>
    ${table(['Transition', 'Count'], transitions, new Set([1]), 'No hint state changed in this period.')}
    <h3>Flapping Services</h3>
    ${table(['Cluster', 'Service', 'Changes', 'State at the end'], flapping, new Set([2]), 'No Service flapped.')}`;
}

function risksSection(document: ReportDocument): string {
  const zones = document.zonesAtRisk.map((zone) => [
    zone.cluster.name,
    zone.zone,
    zone.cpuShare === null ? '–' : formatPercent(zone.cpuShare),
    formatPercent(zone.maxExpectedOverload),
    zone.maxService ?? '–',
    formatCount(zone.servicesAboveThreshold),
  ]);
  const cidrs = document.serviceCidrRisks.map((risk) => [
    risk.cluster.name,
    risk.cidr,
    formatPercent(risk.utilization),
    formatCount(risk.risks.length),
    formatCount(risk.conflicts.length),
    [...risk.risks, ...risk.conflicts]
      .map((entry) => (typeof entry === 'object' && entry !== null && 'message' in entry ? String(entry.message) : ''))
      .filter(Boolean)
      .slice(0, 3)
      .join('; '),
  ]);
  return `<h2>Zones at risk of overload</h2>
    ${table(['Cluster', 'Zone', 'CPU share', 'Highest expected overload', 'Service', 'Services over 20 %'], zones, new Set([2, 3, 5]), 'No zone is at risk of overload.')}
    <h2>Service CIDR risks</h2>
    ${table(['Cluster', 'CIDR', 'Utilization', 'Static IPs in dynamic band', 'Conflicts', 'Details'], cidrs, new Set([2, 3, 4]), 'No Service CIDR risk.')}`;
}

function notesSection(document: ReportDocument): string {
  const notes = [...document.notes, ...document.model.missedSavings, ...document.model.formulas];
  return `<h2>How these figures are made</h2><ul class="notes">${notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`;
}

export function renderHtml(document: ReportDocument): string {
  const scope =
    document.scope.kind === 'fleet'
      ? `whole fleet (${document.scope.clusters.length} cluster${document.scope.clusters.length === 1 ? '' : 's'})`
      : document.scope.clusters.map((cluster) => cluster.name).join(', ') || 'no cluster';
  const title = `${document.schedule.name}: ${document.period.label}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head><body><main>
<h1>${escapeHtml(title)}</h1>
<p class="subtitle">zonewise cost-savings report · ${escapeHtml(scope)} · ${escapeHtml(document.period.timeZone)} · generated ${escapeHtml(document.generatedAt)}${document.totals.estimate ? ' · includes estimates' : ''}</p>
${headline(document)}
${trendSection(document)}
${missedSection(document)}
${opportunitiesSection(document)}
${fixesSection(document)}
${clustersSection(document)}
${measuredSection(document)}
${hintStatesSection(document)}
${risksSection(document)}
${notesSection(document)}
<p class="muted">Missed-saving reasons: ${Object.values(MISSED_REASON_TITLES).map(escapeHtml).join(', ')}. All amounts in USD.</p>
</main></body></html>
`;
}
