/**
 * Many alerts of one rule that opened (or resolved) in one evaluation, told in one message per channel:
 * how many, the first few summaries (all of them in an email and a webhook), and a link to the alerts
 * page. Pure: channel-senders.ts sends it.
 */
import { escapeHtml } from '@zw/reports';
import { type AlertEvent, alertTitle, slackEscape, teamsCard } from './alert-messages.js';
import type { ChannelMessage } from './channel-message.js';

export interface AlertGroupEvent {
  deliveryId: string;
  type: 'opened' | 'resolved';
  ruleName: string | null;
  /** Every alert of the group (AlertEvent's alert shape). */
  alerts: AlertEvent['alert'][];
  organization: { slug: string; name: string };
  /** The dashboard's alerts page. */
  link: string;
  at: string;
}

/** What a chat message lists; the rest is counted. */
const CHAT_LINES = 10;
const LINK_LABEL = 'Open the alerts';

function groupTitle(event: AlertGroupEvent): string {
  const [first] = event.alerts;
  const base = alertTitle({ type: event.type, alert: first } as AlertEvent);
  return `${base} × ${event.alerts.length}`;
}

function groupText(event: AlertGroupEvent): string {
  const what = event.type === 'resolved' ? 'cleared' : 'opened';
  const rule = event.ruleName ? ` (rule ${event.ruleName})` : '';
  return `${groupTitle(event)} (${event.organization.name}): ${event.alerts.length} alerts ${what} at once${rule}`;
}

function listed(event: AlertGroupEvent, limit: number): string[] {
  const lines = event.alerts.slice(0, limit).map((alert) => alert.summary);
  const more = event.alerts.length - lines.length;
  return more > 0 ? [...lines, `… and ${more} more`] : lines;
}

function slackGroup(event: AlertGroupEvent): Record<string, unknown> {
  return {
    text: slackEscape(groupText(event)),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: groupTitle(event).slice(0, 150), emoji: false } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: listed(event, CHAT_LINES)
            .map((line) => `• ${slackEscape(line)}`)
            .join('\n')
            .slice(0, 2900),
        },
      },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: LINK_LABEL },
            url: event.link,
            action_id: 'open-alerts-in-zonewise',
          },
        ],
      },
    ],
  };
}

function teamsGroup(event: AlertGroupEvent): Record<string, unknown> {
  return teamsCard(
    [
      {
        type: 'TextBlock',
        size: 'Medium',
        weight: 'Bolder',
        text: groupTitle(event),
        wrap: true,
        color: event.type === 'opened' ? 'Attention' : 'Good',
      },
      ...listed(event, CHAT_LINES).map((line) => ({ type: 'TextBlock', text: `- ${line}`, wrap: true })),
    ],
    { title: LINK_LABEL, url: event.link },
  );
}

export function alertGroupMessage(event: AlertGroupEvent): ChannelMessage {
  const lines = listed(event, event.alerts.length);
  const type = `alerts.${event.type}`;
  return {
    deliveryId: event.deliveryId,
    slack: slackGroup(event),
    teams: teamsGroup(event),
    email: {
      subject: groupText(event).slice(0, 250),
      text: [groupTitle(event), '', ...lines, '', `${LINK_LABEL}: ${event.link}`].join('\n'),
      html: `<!doctype html><html><body>
<h2>${escapeHtml(groupTitle(event))}</h2>
<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
<p><a href="${escapeHtml(event.link)}">${LINK_LABEL}</a></p>
</body></html>`,
    },
    webhook: {
      type,
      body: JSON.stringify({
        type,
        timestamp: event.at,
        data: {
          deliveryId: event.deliveryId,
          organization: event.organization,
          ruleName: event.ruleName,
          alerts: event.alerts,
          link: event.link,
        },
      }),
    },
  };
}
