/**
 * Webhook deliveries of reports: the body POSTed, and its signature.
 *
 * Signature: `Zonewise-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` with
 * `Zonewise-Timestamp: <unix seconds>`. The timestamp is part of the signed bytes, so a receiver that
 * rejects timestamps outside a few minutes of its clock cannot be fed an old delivery again, and one
 * that remembers `Zonewise-Delivery` ids within that window rejects exact replays too. docs/reports.md
 * shows the receiver side.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { moneyReplacer } from '@zw/core';
import type { ReportDocument } from './report-document.js';
import type { ReportFormat } from './report-bodies.js';

export const WEBHOOK_SIGNATURE_HEADER = 'zonewise-signature';
export const WEBHOOK_TIMESTAMP_HEADER = 'zonewise-timestamp';
export const WEBHOOK_DELIVERY_HEADER = 'zonewise-delivery';
export const WEBHOOK_EVENT_HEADER = 'zonewise-event';
export const WEBHOOK_ATTEMPT_HEADER = 'zonewise-delivery-attempt';
export const WEBHOOK_EVENT = 'report.ready';
/** What receivers should accept between their clock and the timestamp. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
const SIGNATURE_VERSION = 'v1';

/** `v1=<hex>`: HMAC-SHA256 with the schedule's secret over `<timestamp>.<body>`. */
export function signWebhook(secret: string, timestampSeconds: number, body: string | Uint8Array): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestampSeconds}.`);
  hmac.update(body);
  return `${SIGNATURE_VERSION}=${hmac.digest('hex')}`;
}

export type WebhookVerification = { ok: true } | { ok: false; reason: string };

export interface WebhookVerificationInput {
  secret: string;
  /** The raw request body, exactly as received (not re-serialized JSON). */
  body: string | Uint8Array;
  timestampHeader: string | undefined | null;
  signatureHeader: string | undefined | null;
  /** The receiver's clock. */
  now: Date;
  toleranceSeconds?: number;
}

/**
 * What a receiver does: the timestamp must be a whole number of seconds within the tolerance of its clock,
 * and one of the `v1=` signatures (several may be sent, comma-separated) must match, compared in
 * constant time.
 */
export function verifyWebhook(input: WebhookVerificationInput): WebhookVerification {
  const timestampText = input.timestampHeader ?? '';
  if (!/^\d{1,12}$/.test(timestampText)) return { ok: false, reason: 'missing or malformed timestamp header' };
  const timestamp = Number(timestampText);
  const skew = Math.abs(input.now.getTime() / 1000 - timestamp);
  if (skew > (input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) {
    return { ok: false, reason: `timestamp is ${Math.round(skew)} s away from now: possible replay` };
  }
  const expected = Buffer.from(signWebhook(input.secret, timestamp, input.body));
  const candidates = (input.signatureHeader ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${SIGNATURE_VERSION}=`));
  if (candidates.length === 0) return { ok: false, reason: 'missing signature header' };
  const matches = candidates.some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { ok: true } : { ok: false, reason: 'signature does not match' };
}

export interface WebhookReportRef {
  id: string;
  /** The API path the report (and its downloads) can be read at with an API key. */
  url: string;
}

export interface WebhookPayloadInput {
  deliveryId: string;
  report: WebhookReportRef;
  /** The report's JSON document as stored and downloaded (reportDocumentJson). */
  documentJson: string;
  /** The formats the schedule asks for, as made: the JSON document, the CSV and HTML text. */
  formats: readonly ReportFormat[];
  csv: string | null;
  html: string | null;
}

/**
 * The body of a delivery: what happened, the headline figures, and every format the schedule asks for
 * inline (so a receiver needs no API key to forward the report), `attachments` last.
 *
 * Decision: the JSON attachment is the stored text as it is, not the document serialised again: the same
 * bytes (it was serialised by reportDocumentJson), without a second 174 MB string for an organization of
 * 200,000 Services (the body built in 2.0-3.1 s instead of 2.8-3.3 s; bench/RESULTS.md, reportstore24).
 */
export function webhookPayload(input: WebhookPayloadInput): string {
  const document = JSON.parse(input.documentJson) as ReportDocument;
  const head = JSON.stringify(
    {
      event: WEBHOOK_EVENT,
      deliveryId: input.deliveryId,
      report: {
        id: input.report.id,
        url: input.report.url,
        schedule: { id: document.schedule.id, name: document.schedule.name },
        period: document.period,
        trigger: document.trigger,
        generatedAt: document.generatedAt,
        currency: document.currency,
        totals: document.totals,
      },
    },
    moneyReplacer,
  );
  const attachments = [
    input.formats.includes('json') ? `"json":${input.documentJson}` : null,
    input.formats.includes('csv') && input.csv !== null ? `"csv":${JSON.stringify(input.csv)}` : null,
    input.formats.includes('html') && input.html !== null ? `"html":${JSON.stringify(input.html)}` : null,
  ].filter((attachment) => attachment !== null);
  return `${head.slice(0, -1)},"attachments":{${attachments.join(',')}}}`;
}
