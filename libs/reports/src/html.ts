/**
 * The HTML rendering: one self-contained page (inline CSS and inline SVG charts; no script, font, image
 * or stylesheet from anywhere), readable in a browser, a mail client or printed. The markup is in
 * html-templates.ts, whose engine escapes every text printed into it; this file builds what they show.
 */
import { renderPage, type TableView } from './html-templates.js';
import { MISSED_REASON_TITLES, type MissedReason } from './missed-reasons.js';
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
  .cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 12px; }
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

function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: readonly number[],
  empty: string,
): TableView {
  return { headers, rows, numeric, empty };
}

function bucketLabel(document: ReportDocument, iso: string): string {
  const text = localDateTime(new Date(iso), document.period.timeZone);
  return document.period.hours <= 48 ? text.slice(11) : text.slice(5, 10);
}

function headline(document: ReportDocument) {
  const totals = document.totals;
  return {
    cards: [
      {
        label: 'Cross-zone cost',
        value: money(totals.withHints),
        detail: `${formatGb(totals.withHints.crossZoneGb)} crossed zones`,
        tone: '',
      },
      {
        label: 'Saved by topology routing',
        value: money(totals.realizedSavings),
        detail: `${formatGb(totals.realizedSavings.crossZoneGb)} kept in-zone`,
        tone: 'good',
      },
      {
        label: 'Missed: not enabled',
        value: money(totals.missedSavings),
        detail: `${formatCount(totals.opportunities)} Services would route in-zone`,
        tone: totals.missedSavings.cost > 0 ? 'warn' : '',
      },
      {
        label: 'At stake: refused hints',
        value: money(totals.blockedAtStake),
        detail: 'too few endpoints, overload, node info',
        tone: totals.blockedAtStake.cost > 0 ? 'bad' : '',
      },
      {
        label: 'Cost measured',
        value: money(totals.measured.withHints),
        detail: `${measuredShareText(totals.measured.withHintsCostShare)} of the cross-zone cost, from ${formatCount(totals.measured.services)} Services measured; the rest estimated`,
        tone: '',
      },
      {
        label: 'Traffic measured',
        value: totals.measuredShare === null ? '–' : `${(totals.measuredShare * 100).toFixed(1)}%`,
        detail: `${formatGb(totals.measuredTrafficGb)} measured by traffic sources, the rest declared or estimated`,
        tone: '',
      },
    ],
  };
}

function measuredShareText(share: number | null): string {
  return share === null ? '–' : formatPercent(share);
}

function trendView(document: ReportDocument) {
  const points = document.trend.points;
  if (points.length === 0) return null;
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
  return { cost, states };
}

function missedView(document: ReportDocument) {
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
  return { chart };
}

function opportunitiesView(document: ReportDocument) {
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
  return {
    chart,
    table: table(
      ['Cluster', 'Service', 'Traffic', 'Cross-zone GB saved', 'Saved', ''],
      rows,
      [2, 3, 4],
      'No Service would gain from enabling topology routing in this period.',
    ),
  };
}

function fixesView(document: ReportDocument) {
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
  return {
    table: table(
      ['#', 'Cluster', 'Service', 'Fix', 'What to change', 'After', 'Saves/month', ''],
      rows,
      [0, 6],
      'No Service needs a fix: every one routes in-zone or cannot gain.',
    ),
    patches: document.topFixes.map((fix) => ({
      title: `${fix.rank}. ${fix.cluster.name}: ${fix.namespace}/${fix.name}`,
      patch: fix.patch,
    })),
  };
}

function clustersView(document: ReportDocument) {
  const rows = document.clusters.map((cluster) => [
    cluster.name,
    `${cluster.cloud}${cluster.region ? ` ${cluster.region}` : ''}`,
    `$${cluster.pricing.pricePerGb}/GB`,
    formatCount(cluster.totals.services),
    formatMoney(cluster.totals.withoutHints.cost),
    formatMoney(cluster.totals.withHints.cost),
    measuredShareText(cluster.totals.measured.withHintsCostShare),
    formatMoney(cluster.totals.realizedSavings.cost),
    formatMoney(cluster.totals.missedSavings.cost),
    formatCount(cluster.coverage.snapshots),
  ]);
  return {
    table: table(
      [
        'Cluster',
        'Cloud',
        'Price',
        'Services',
        'Without hints',
        'As routed',
        'Measured',
        'Saved',
        'Missed',
        'Snapshots',
      ],
      rows,
      [3, 4, 5, 6, 7, 8, 9],
      'No cluster in scope.',
    ),
  };
}

function measuredView(document: ReportDocument) {
  if (document.measuredTraffic.length === 0) return null;
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
  return {
    table: table(
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
      [1, 2, 3, 4, 5, 6, 7],
      'No cluster has measured traffic.',
    ),
  };
}

/** Services whose measured share contradicts their populated hints (null when none). */
function contradictionsView(document: ReportDocument) {
  if (document.contradictions.length === 0) return null;
  const rows = document.contradictions.map((line) => [
    line.cluster.name,
    `${line.namespace}/${line.name}`,
    formatPercent(line.modelCrossZone),
    formatPercent(line.measuredCrossZone),
    money(line.withHints),
  ]);
  return {
    table: table(
      ['Cluster', 'Service', 'Cross-zone (model)', 'Cross-zone (measured)', 'As routed (measured)'],
      rows,
      [2, 3, 4],
      '',
    ),
  };
}

function hintStatesView(document: ReportDocument) {
  const states = document.hintStates;
  const plural = (count: number) => (count === 1 ? '' : 's');
  return {
    summary: `${formatCount(states.changes)} hint-state change${plural(states.changes)} across ${formatCount(states.servicesChanged)} Service${plural(states.servicesChanged)}; a Service flaps when it changed ${states.flappingThreshold} times or more.`,
    transitions: table(
      ['Transition', 'Count'],
      states.transitions.map((entry) => [`${entry.from} → ${entry.to}`, formatCount(entry.count)]),
      [1],
      'No hint state changed in this period.',
    ),
    flapping: table(
      ['Cluster', 'Service', 'Changes', 'State at the end'],
      states.flapping.map((entry) => [
        entry.cluster.name,
        `${entry.namespace}/${entry.name}`,
        formatCount(entry.changes),
        entry.hintState,
      ]),
      [2],
      'No Service flapped.',
    ),
  };
}

function risksView(document: ReportDocument) {
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
  return {
    zones: table(
      ['Cluster', 'Zone', 'CPU share', 'Highest expected overload', 'Service', 'Services over 20 %'],
      zones,
      [2, 3, 5],
      'No zone is at risk of overload.',
    ),
    cidrs: table(
      ['Cluster', 'CIDR', 'Utilization', 'Static IPs in dynamic band', 'Conflicts', 'Details'],
      cidrs,
      [2, 3, 4],
      'No Service CIDR risk.',
    ),
  };
}

export function renderHtml(document: ReportDocument): string {
  const scope =
    document.scope.kind === 'fleet'
      ? `whole fleet (${document.scope.clusters.length} cluster${document.scope.clusters.length === 1 ? '' : 's'})`
      : document.scope.clusters.map((cluster) => cluster.name).join(', ') || 'no cluster';
  return renderPage({
    title: `${document.schedule.name}: ${document.period.label}`,
    style: STYLE,
    scope,
    timeZone: document.period.timeZone,
    generatedAt: document.generatedAt,
    estimate: document.totals.estimate,
    headline: headline(document),
    trend: trendView(document),
    missed: missedView(document),
    opportunities: opportunitiesView(document),
    fixes: fixesView(document),
    clusters: clustersView(document),
    measured: measuredView(document),
    contradictions: contradictionsView(document),
    hintStates: hintStatesView(document),
    risks: risksView(document),
    notes: [...document.notes, ...document.model.missedSavings, ...document.model.formulas],
    reasons: Object.values(MISSED_REASON_TITLES),
    currency: document.currency,
  });
}
