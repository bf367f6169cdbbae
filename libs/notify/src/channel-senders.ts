/**
 * Sends one alert event to one channel. Chat and webhook channels go through postWebhook (the SSRF policy
 * on the very addresses dialled, no redirects, a timeout); email goes through the deployment's SMTP
 * server (SMTP_URL, set by the operator, never by a tenant) with nodemailer.
 */
import { randomBytes } from 'node:crypto';
import { createTransport } from 'nodemailer';
import {
  signWebhook,
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from '@zw/reports';
import { Webhook } from 'standardwebhooks';
import { type AlertEvent, alertMessage, type ChannelKind } from './alert-messages.js';
import type { ChannelMessage } from './channel-message.js';
import { postWebhook, type WebhookPostResult } from './outbound-http.js';

export const SIGNATURE_SCHEMES = ['standard', 'zonewise', 'both'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export interface ChannelTarget {
  kind: ChannelKind;
  /** The incoming-webhook URL, or comma-separated email addresses. */
  target: string;
  /** webhook only: the signing secret (`whsec_<base64>`). */
  secret: string | null;
  signature: SignatureScheme | null;
}

export interface SmtpSettings {
  /** e.g. `smtp://user:pass@mail.example.com:587` or `smtps://…:465`. */
  url: string;
  from: string;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  smtp: SmtpSettings | null;
}

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The headers of a signed webhook: Standard Webhooks' `webhook-id` (the delivery id, the same on every
 * retry, so receivers deduplicate by it), `webhook-timestamp` and `webhook-signature` (signed with the
 * `standardwebhooks` library), and/or zonewise's own `Zonewise-Signature` over the same secret.
 */
export function signedWebhookHeaders(
  scheme: SignatureScheme,
  secret: string,
  deliveryId: string,
  eventType: string,
  body: string,
  now: Date,
): Record<string, string> {
  const seconds = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'zonewise-webhooks/1',
  };
  if (scheme === 'standard' || scheme === 'both') {
    headers['webhook-id'] = deliveryId;
    headers['webhook-timestamp'] = String(seconds);
    headers['webhook-signature'] = new Webhook(secret).sign(deliveryId, new Date(seconds * 1000), body);
  }
  if (scheme === 'zonewise' || scheme === 'both') {
    headers[WEBHOOK_EVENT_HEADER] = eventType;
    headers[WEBHOOK_DELIVERY_HEADER] = deliveryId;
    headers[WEBHOOK_TIMESTAMP_HEADER] = String(seconds);
    headers[WEBHOOK_SIGNATURE_HEADER] = signWebhook(secret, seconds, body);
  }
  return headers;
}

/** Sends an alert event; never throws (the result says what happened). */
export function sendAlertEvent(
  channel: ChannelTarget,
  event: AlertEvent,
  options: SendOptions,
  now = new Date(),
): Promise<WebhookPostResult> {
  return sendChannelMessage(channel, alertMessage(event), options, now);
}

/** Sends a message (an alert's, a report's) in the channel's format; never throws. */
export async function sendChannelMessage(
  channel: ChannelTarget,
  message: ChannelMessage,
  options: SendOptions,
  now = new Date(),
): Promise<WebhookPostResult> {
  const post = { timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivate };
  switch (channel.kind) {
    case 'slack':
      return postWebhook(channel.target, JSON.stringify(message.slack), json, post);
    case 'teams':
      return postWebhook(channel.target, JSON.stringify(message.teams), json, post);
    case 'webhook': {
      if (!channel.secret) return failed('the webhook channel has no signing secret');
      const headers = signedWebhookHeaders(
        channel.signature ?? 'standard',
        channel.secret,
        message.deliveryId,
        message.webhook.type,
        message.webhook.body,
        now,
      );
      return postWebhook(channel.target, message.webhook.body, headers, post);
    }
    case 'email':
      return sendEmail(channel.target, message, options);
  }
}

const json = { 'content-type': 'application/json', 'user-agent': 'zonewise-alerts/1' };

function failed(error: string): WebhookPostResult {
  return { ok: false, statusCode: null, error, durationMs: 0 };
}

async function sendEmail(to: string, message: ChannelMessage, options: SendOptions): Promise<WebhookPostResult> {
  if (!options.smtp) return failed('this deployment sends no email: its operator must set SMTP_URL');
  const started = performance.now();
  const smtpUrl = new URL(options.smtp.url);
  const transport = createTransport({
    host: smtpUrl.hostname,
    port: smtpUrl.port ? Number(smtpUrl.port) : undefined,
    secure: smtpUrl.protocol === 'smtps:',
    auth: smtpUrl.username
      ? { user: decodeURIComponent(smtpUrl.username), pass: decodeURIComponent(smtpUrl.password) }
      : undefined,
    // Plain SMTP (a local relay, a test sink) when the URL says so; STARTTLS whenever the server offers it.
    ignoreTLS: smtpUrl.searchParams.get('tls') === 'off',
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  const content = message.email;
  try {
    const info = await transport.sendMail({
      from: options.smtp.from,
      to,
      subject: content.subject,
      text: content.text,
      html: content.html,
      attachments: content.attachments,
      // The delivery id: a retry after an uncertain send carries the same Message-ID (mail clients show one).
      messageId: `<${message.deliveryId}@zonewise>`,
      headers: { 'X-Zonewise-Delivery': message.deliveryId },
    });
    const rejected = (info.rejected as unknown[]).length;
    return {
      ok: rejected === 0,
      statusCode: null,
      error: rejected === 0 ? null : `the SMTP server refused ${rejected} recipient(s)`,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return {
      ok: false,
      statusCode: null,
      error: `SMTP: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300),
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    transport.close();
  }
}

/** Why an email target is refused (a comma-separated list of 1–20 plain addresses), or null. */
export function emailTargetProblem(target: string): string | null {
  const addresses = target.split(',').map((part) => part.trim());
  if (addresses.length === 0 || addresses.length > 20) return 'between 1 and 20 comma-separated addresses';
  const bad = addresses.find((address) => !/^[^\s@<>(),;:"[\]]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/.test(address));
  return bad === undefined ? null : `"${bad.slice(0, 80)}" is not an email address`;
}
