/**
 * What an alert says on each channel: the same event rendered as a Slack incoming-webhook message (Block
 * Kit), a Microsoft Teams Workflows message (an Adaptive Card attachment), an email (text and HTML) and a
 * generic webhook body (the Standard Webhooks payload shape: `type`, `timestamp`, `data`). Pure: the
 * senders are in channel-senders.ts.
 */
import { escapeHtml } from '@zw/reports';
import type { ChannelMessage, EmailContent } from './channel-message.js';

export const ALERT_KINDS = ['hints-lost', 'drift', 'savings-missed', 'agent-stale', 'traffic-source-failing'] as const;
export type AlertRuleKind = (typeof ALERT_KINDS)[number];
/** The rules' kinds, and the alert zonewise raises by itself when a channel keeps failing. */
export type AlertKind = AlertRuleKind | 'channel-failing';
export type AlertEventType = 'opened' | 'resolved' | 'test';

export const CHANNEL_KINDS = ['slack', 'teams', 'email', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export interface AlertEvent {
  /** The delivery's id: the idempotency key receivers see (webhook-id, Message-ID). */
  deliveryId: string;
  type: AlertEventType;
  alert: {
    id: string | null;
    kind: AlertKind | 'test';
    /** `service:<cluster>/<namespace>/<name>`, `cluster:<id>`, `channel:<id>`. */
    subject: string;
    summary: string;
    ruleName: string | null;
    openedAt: string;
    resolvedAt: string | null;
    details: Record<string, unknown>;
  };
  organization: { slug: string; name: string };
  /** The dashboard page of the subject (PUBLIC_URL + the alert's path), where the fix is shown. */
  link: string;
  at: string;
}

const KIND_TITLES: Record<AlertKind | 'test', string> = {
  'hints-lost': 'Service lost its topology hints',
  drift: 'Hints drifted from what the controller computes',
  'savings-missed': 'Savings missed above the threshold',
  'agent-stale': "Cluster's agent went stale",
  'traffic-source-failing': 'Traffic source failing',
  'channel-failing': 'Alert channel failing',
  test: 'Test message',
};

/** The headline: `[RESOLVED] …` once the condition cleared. */
export function alertTitle(event: AlertEvent): string {
  const title = KIND_TITLES[event.alert.kind];
  if (event.type === 'resolved') return `[RESOLVED] ${title}`;
  if (event.type === 'test') return `[TEST] zonewise alerts reach this channel`;
  return `[ALERT] ${title}`;
}

/** One line of text, for chat fallbacks and the email subject. */
export function alertText(event: AlertEvent): string {
  const what = event.type === 'resolved' ? `cleared: ${event.alert.summary}` : event.alert.summary;
  return `${alertTitle(event)} (${event.organization.name}): ${what}`;
}

function linkLabel(event: AlertEvent): string {
  if (event.alert.subject.startsWith('service:')) return 'Open the Service and its fix';
  if (event.alert.subject.startsWith('cluster:')) return 'Open the cluster';
  return 'Open in zonewise';
}

/** Slack's `<url|label>` escapes: &, < and > in text (https://api.slack.com/reference/surfaces/formatting). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A Slack incoming-webhook message: `text` (the notification's fallback) and Block Kit blocks: a header,
 * the summary, the rule and times as context, and a button linking into the dashboard.
 */
export function slackMessage(event: AlertEvent): Record<string, unknown> {
  const context = [
    event.alert.ruleName ? `Rule: *${slackEscape(event.alert.ruleName)}*` : null,
    `Opened ${event.alert.openedAt}`,
    event.alert.resolvedAt ? `Resolved ${event.alert.resolvedAt}` : null,
  ].filter((part): part is string => part !== null);
  return {
    text: slackEscape(alertText(event)),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: alertTitle(event).slice(0, 150), emoji: false } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `${slackEscape(event.alert.summary)}\n<${event.link}|${linkLabel(event)}>` },
      },
      { type: 'context', elements: context.map((text) => ({ type: 'mrkdwn', text })) },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: linkLabel(event) },
            url: event.link,
            action_id: 'open-in-zonewise',
          },
        ],
      },
    ],
  };
}

/**
 * A Microsoft Teams message for an incoming webhook (the Workflows "post to a channel when a webhook
 * request is received" template, and the retired Office 365 connectors): one Adaptive Card attachment.
 */
export function teamsMessage(event: AlertEvent): Record<string, unknown> {
  const facts = [
    event.alert.ruleName ? { title: 'Rule', value: event.alert.ruleName } : null,
    { title: 'Organization', value: event.organization.name },
    { title: 'Opened', value: event.alert.openedAt },
    event.alert.resolvedAt ? { title: 'Resolved', value: event.alert.resolvedAt } : null,
  ].filter((fact) => fact !== null);
  return teamsCard(
    [
      {
        type: 'TextBlock',
        size: 'Medium',
        weight: 'Bolder',
        text: alertTitle(event),
        wrap: true,
        color: event.type === 'opened' ? 'Attention' : event.type === 'resolved' ? 'Good' : 'Default',
      },
      { type: 'TextBlock', text: event.alert.summary, wrap: true },
      { type: 'FactSet', facts },
    ],
    { title: linkLabel(event), url: event.link },
  );
}

/** One Adaptive Card attachment with `body` and one button opening `link`, as Teams' incoming webhooks take it. */
export function teamsCard(body: unknown[], link: { title: string; url: string }): Record<string, unknown> {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: [{ type: 'Action.OpenUrl', title: link.title, url: link.url }],
        },
      },
    ],
  };
}

export function emailMessage(event: AlertEvent): EmailContent {
  const lines = [
    alertTitle(event),
    '',
    event.alert.summary,
    '',
    ...(event.alert.ruleName ? [`Rule: ${event.alert.ruleName}`] : []),
    `Organization: ${event.organization.name}`,
    `Opened: ${event.alert.openedAt}`,
    ...(event.alert.resolvedAt ? [`Resolved: ${event.alert.resolvedAt}`] : []),
    '',
    `${linkLabel(event)}: ${event.link}`,
  ];
  const html = `<!doctype html><html><body>
<h2>${escapeHtml(alertTitle(event))}</h2>
<p>${escapeHtml(event.alert.summary)}</p>
<p>${event.alert.ruleName ? `Rule: ${escapeHtml(event.alert.ruleName)}<br>` : ''}Organization: ${escapeHtml(event.organization.name)}<br>Opened: ${escapeHtml(event.alert.openedAt)}${event.alert.resolvedAt ? `<br>Resolved: ${escapeHtml(event.alert.resolvedAt)}` : ''}</p>
<p><a href="${escapeHtml(event.link)}">${escapeHtml(linkLabel(event))}</a></p>
</body></html>`;
  return { subject: alertText(event).slice(0, 250), text: lines.join('\n'), html };
}

/** `alert.opened`, `alert.resolved`, `alert.test`: the webhook body's `type`. */
export function webhookEventType(event: AlertEvent): string {
  return `alert.${event.type}`;
}

/** The generic webhook body, in the payload shape Standard Webhooks recommends (`type`, `timestamp`, `data`). */
export function webhookAlertBody(event: AlertEvent): string {
  return JSON.stringify({
    type: webhookEventType(event),
    timestamp: event.at,
    data: {
      deliveryId: event.deliveryId,
      organization: event.organization,
      alert: event.alert,
      link: event.link,
    },
  });
}

export function alertMessage(event: AlertEvent): ChannelMessage {
  return {
    deliveryId: event.deliveryId,
    slack: slackMessage(event),
    teams: teamsMessage(event),
    email: emailMessage(event),
    webhook: { type: webhookEventType(event), body: webhookAlertBody(event) },
  };
}
