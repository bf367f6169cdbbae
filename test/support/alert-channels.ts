import { expect } from 'vitest';
import type { SmtpSink } from './alert-receivers.js';
import { apiClient } from './query-api.js';

/**
 * The set-up the alert and report-channel suites share: a deployment that delivers to local receivers
 * (test/support/alert-receivers.ts), and one alert channel of each kind created through the API.
 */

/** The dashboard's address in every message's link. */
export const PUBLIC_URL = 'https://zonewise.example.com';

/**
 * Settings of a deployment delivering to local receivers: a test-only keyring for channel secrets,
 * private addresses allowed, quick retries (three tries), the SMTP sink as mail server.
 */
export function alertDeliverySettings(smtp: SmtpSink, from: string): Record<string, string> {
  return {
    SECRET_ENCRYPTION_KEYS: 'test-1:a-test-only-secret-encryption-key',
    ALERT_ALLOW_PRIVATE: 'true',
    ALERT_DELIVERY_ATTEMPTS: '3',
    ALERT_DELIVERY_BACKOFF_MS: '200',
    SMTP_URL: smtp.url,
    SMTP_FROM: from,
    PUBLIC_URL,
  };
}

export const CHANNEL_KINDS = ['slack', 'teams', 'email', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/**
 * One channel of each kind (in CHANNEL_KINDS order), created with the operator key: their ids by kind, and
 * the signed webhook's secret (answered once, at creation).
 */
export async function createChannelOfEachKind(
  url: string,
  operatorKey: string,
  targets: Record<ChannelKind, string>,
  name: (kind: ChannelKind) => string,
): Promise<{ channelIds: Record<ChannelKind, string>; webhookSecret: string }> {
  const operator = apiClient(url, operatorKey);
  const channelIds = {} as Record<ChannelKind, string>;
  let webhookSecret = '';
  for (const kind of CHANNEL_KINDS) {
    const created = await operator.post<{ id: string; secret: string | null }>('/v1/alert-channels', {
      name: name(kind),
      kind,
      target: targets[kind],
    });
    expect(created.status).toBe(201);
    // The answer names a URL's host at most (an email channel shows its addresses), never its path.
    if (kind !== 'email') expect(JSON.stringify(created.body)).not.toContain(new URL(targets[kind]).pathname);
    channelIds[kind] = created.body.id;
    if (kind === 'webhook') webhookSecret = created.body.secret!;
  }
  return { channelIds, webhookSecret };
}
