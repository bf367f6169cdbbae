/**
 * A scheduled report on an alert channel: its headline figures and a link into the dashboard as a Slack
 * or Teams message, the report itself in an email (the HTML inline, the CSV and HTML attached), and a
 * Standard Webhooks body (`type: report.ready`). Pure: channel-senders.ts sends them.
 */
import { escapeHtml, formatMoney } from '@zw/reports';
import { slackEscape, teamsCard } from './alert-messages.js';
import type { ChannelMessage, EmailContent } from './channel-message.js';

export interface ReportFigure {
  crossZoneGb: number;
  cost: number;
}

export interface ReportEvent {
  /** The delivery's id: the idempotency key receivers see (webhook-id, Message-ID). */
  deliveryId: string;
  report: {
    id: string;
    scheduleName: string;
    /** The period as people name it (`November 2026`). */
    periodLabel: string;
    periodStart: string;
    periodEnd: string;
    partial: boolean;
    generatedAt: string;
  };
  /** The report document's headline totals. */
  totals: {
    withHints: ReportFigure;
    realizedSavings: ReportFigure;
    missedSavings: ReportFigure;
    blockedAtStake: ReportFigure;
    services: number;
    opportunities: number;
    estimate: boolean;
  };
  organization: { slug: string; name: string };
  /** The report's page in the dashboard (PUBLIC_URL + /reports?report=<id>). */
  link: string;
  /** The rendered formats the schedule asked for (null when not made). */
  html: string | null;
  csv: string | null;
  at: string;
}

export const REPORT_EVENT_TYPE = 'report.ready';

function reportTitle(event: ReportEvent): string {
  const partial = event.report.partial ? ' (so far)' : '';
  return `[REPORT] ${event.report.scheduleName}: ${event.report.periodLabel}${partial}`;
}

/** The headline figures as label/value pairs, in the order the HTML report's cards show them. */
export function reportFacts(event: ReportEvent): { title: string; value: string }[] {
  const { totals } = event;
  const estimated = totals.estimate ? ' (estimated)' : '';
  return [
    { title: 'Cross-zone cost', value: formatMoney(totals.withHints.cost) + estimated },
    { title: 'Saved by topology routing', value: formatMoney(totals.realizedSavings.cost) },
    {
      title: 'Missed: not enabled',
      value: `${formatMoney(totals.missedSavings.cost)} (${totals.opportunities} Services)`,
    },
    { title: 'At stake: refused hints', value: formatMoney(totals.blockedAtStake.cost) },
    { title: 'Services', value: String(totals.services) },
  ];
}

function reportText(event: ReportEvent): string {
  const figures = reportFacts(event)
    .slice(0, 3)
    .map((fact) => `${fact.title} ${fact.value}`)
    .join(' · ');
  return `${reportTitle(event)} (${event.organization.name}): ${figures}`;
}

const LINK_LABEL = 'Open the report';

function slackReport(event: ReportEvent): Record<string, unknown> {
  return {
    text: slackEscape(reportText(event)),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: reportTitle(event).slice(0, 150), emoji: false } },
      {
        type: 'section',
        fields: reportFacts(event).map((fact) => ({
          type: 'mrkdwn',
          text: `*${slackEscape(fact.title)}*\n${slackEscape(fact.value)}`,
        })),
      },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: LINK_LABEL },
            url: event.link,
            action_id: 'open-report-in-zonewise',
          },
        ],
      },
    ],
  };
}

function teamsReport(event: ReportEvent): Record<string, unknown> {
  return teamsCard(
    [
      { type: 'TextBlock', size: 'Medium', weight: 'Bolder', text: reportTitle(event), wrap: true },
      { type: 'TextBlock', text: event.organization.name, wrap: true, isSubtle: true },
      { type: 'FactSet', facts: reportFacts(event) },
    ],
    { title: LINK_LABEL, url: event.link },
  );
}

function fileStem(event: ReportEvent): string {
  return `zonewise-report-${event.report.periodStart.slice(0, 10)}`;
}

function emailReport(event: ReportEvent): EmailContent {
  const facts = reportFacts(event);
  const text = [
    reportTitle(event),
    '',
    ...facts.map((fact) => `${fact.title}: ${fact.value}`),
    '',
    `${LINK_LABEL}: ${event.link}`,
  ].join('\n');
  const html =
    event.html ??
    `<!doctype html><html><body>
<h2>${escapeHtml(reportTitle(event))}</h2>
<ul>${facts.map((fact) => `<li>${escapeHtml(fact.title)}: ${escapeHtml(fact.value)}</li>`).join('')}</ul>
<p><a href="${escapeHtml(event.link)}">${LINK_LABEL}</a></p>
</body></html>`;
  const attachments = [
    ...(event.csv === null
      ? []
      : [{ filename: `${fileStem(event)}.csv`, content: event.csv, contentType: 'text/csv' }]),
    ...(event.html === null
      ? []
      : [{ filename: `${fileStem(event)}.html`, content: event.html, contentType: 'text/html' }]),
  ];
  return { subject: reportText(event).slice(0, 250), text, html, attachments };
}

/** The Standard Webhooks body: the headline totals and links; the formats are read from the API. */
function webhookReport(event: ReportEvent): string {
  return JSON.stringify({
    type: REPORT_EVENT_TYPE,
    timestamp: event.at,
    data: {
      deliveryId: event.deliveryId,
      organization: event.organization,
      report: { ...event.report, url: `/v1/reports/${event.report.id}` },
      totals: event.totals,
      link: event.link,
    },
  });
}

export function reportMessage(event: ReportEvent): ChannelMessage {
  return {
    deliveryId: event.deliveryId,
    slack: slackReport(event),
    teams: teamsReport(event),
    email: emailReport(event),
    webhook: { type: REPORT_EVENT_TYPE, body: webhookReport(event) },
  };
}
