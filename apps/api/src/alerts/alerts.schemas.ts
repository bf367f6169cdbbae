import { ALERT_KINDS, CHANNEL_KINDS, isClockTime, isTimeZone, SIGNATURE_SCHEMES } from '@zw/notify';
import { z } from 'zod';

const name = z.string().trim().min(1).max(100).describe('unique in the organization');
const uuidList = (what: string) =>
  z
    .array(z.uuid({ message: 'must be a UUID' }))
    .max(200)
    .describe(what);

export const CreateChannelBody = z
  .object({
    name,
    kind: z.enum(CHANNEL_KINDS).describe('slack | teams (incoming webhooks), email (SMTP), webhook (signed)'),
    target: z
      .string()
      .trim()
      .min(3)
      .max(2048)
      .describe(
        'slack/teams/webhook: the https URL; email: 1–20 comma-separated addresses. Write-only, stored encrypted',
      ),
    signature: z
      .enum(SIGNATURE_SCHEMES)
      .optional()
      .describe(
        'webhook only: standard (webhook-id, webhook-timestamp, webhook-signature; the default), zonewise (Zonewise-Signature) or both',
      ),
    enabled: z.boolean().default(true),
  })
  .strict();

export const UpdateChannelBody = z
  .object({
    name: name.optional(),
    target: CreateChannelBody.shape.target.optional(),
    signature: CreateChannelBody.shape.signature,
    enabled: z.boolean().optional(),
  })
  .strict();

export const ChannelSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  /** The URL's host, or the addresses: never the URL itself (Slack's and Teams' URLs are credentials). */
  targetHint: z.string(),
  signature: z.enum(SIGNATURE_SCHEMES).nullable(),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const CreatedChannelSchema = ChannelSchema.extend({
  secret: z
    .string()
    .nullable()
    .describe('webhook only: the signing secret (whsec_…), shown this once; verify with any Standard Webhooks library'),
});

const clock = z.string().refine(isClockTime, 'a time HH:MM (00:00–23:59)');

const ruleFields = {
  name,
  kind: z
    .enum(ALERT_KINDS)
    .describe(
      'hints-lost: a Service lost its hints; drift: hints differ from what the controller computes; savings-missed: estimated monthly missed savings above threshold; agent-stale; traffic-source-failing',
    ),
  threshold: z
    .number()
    .min(0)
    .max(1e12)
    .nullable()
    .default(null)
    .describe('savings-missed only: the estimated monthly amount (the cluster price currency) above which it fires'),
  clusterIds: uuidList('the clusters watched; empty: every cluster of the organization').default([]),
  channelIds: uuidList('the channels notified').min(1, 'at least one channel'),
  quietHours: z
    .object({ start: clock, end: clock, timeZone: z.string().refine(isTimeZone, 'an IANA time zone').default('UTC') })
    .strict()
    .nullable()
    .default(null)
    .describe('messages wait until the end of this daily window'),
  enabled: z.boolean().default(true),
};

const needsThreshold = (rule: { kind?: string; threshold?: number | null }) =>
  rule.kind !== 'savings-missed' || (rule.threshold !== null && rule.threshold !== undefined);

export const CreateRuleBody = z
  .object(ruleFields)
  .strict()
  .refine(needsThreshold, { message: 'savings-missed needs a threshold', path: ['threshold'] });

export const UpdateRuleBody = z
  .object({
    name: name.optional(),
    threshold: z.number().min(0).max(1e12).nullable().optional(),
    clusterIds: uuidList('the clusters watched; empty: every cluster of the organization').optional(),
    channelIds: uuidList('the channels notified').min(1, 'at least one channel').optional(),
    quietHours: z
      .object({ start: clock, end: clock, timeZone: z.string().refine(isTimeZone, 'an IANA time zone').default('UTC') })
      .strict()
      .nullable()
      .optional()
      .describe('null removes the quiet hours'),
    enabled: z.boolean().optional(),
  })
  .strict();

export const RuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(ALERT_KINDS),
  threshold: z.number().nullable(),
  clusterIds: z.array(z.string()),
  channelIds: z.array(z.string()),
  quietHours: z.object({ start: z.string(), end: z.string(), timeZone: z.string() }).nullable(),
  enabled: z.boolean(),
  openAlerts: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const AlertSchema = z.object({
  id: z.string(),
  ruleId: z.string().nullable(),
  kind: z.string(),
  subject: z.string(),
  clusterId: z.string().nullable(),
  summary: z.string(),
  path: z.string().describe('the dashboard page of the subject'),
  details: z.record(z.string(), z.unknown()),
  openedAt: z.string(),
  resolvedAt: z.string().nullable(),
});

export const DeliverySchema = z.object({
  id: z.string().describe('the idempotency key: webhook-id of a webhook, the Message-ID of an email'),
  channelId: z.string(),
  channelName: z.string(),
  alertId: z.string().nullable(),
  reportId: z.string().nullable().describe('the scheduled report this delivery sends (event `report`)'),
  alertIds: z.array(z.string()).describe('a grouped message: the alerts of one rule that opened or resolved together'),
  event: z.enum(['opened', 'resolved', 'test', 'report']),
  status: z.enum(['pending', 'sending', 'succeeded', 'failed', 'skipped']),
  attempts: z.number().int(),
  notBefore: z.string().nullable().describe('held until then (quiet hours)'),
  lastAttemptAt: z.string().nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
});

const limit = z.coerce.number().int().min(1).max(500).default(100).describe('newest first, at most this many');

export const AlertsQuery = z.object({ limit, state: z.enum(['open', 'resolved', 'all']).default('all') }).strict();

export const DeliveriesQuery = z
  .object({ limit, channelId: z.uuid({ message: 'must be a UUID' }).optional().describe('one channel only') })
  .strict();

export type ListQuery = { limit: number; state?: 'open' | 'resolved' | 'all'; channelId?: string };

export const ListOf = <T extends z.ZodType>(item: T): z.ZodObject<{ items: z.ZodArray<T> }> =>
  z.object({ items: z.array(item) });

/** The answer of a `ListOf(schema)` route. */
export type ListView<T> = { items: T[] };

export type ChannelView = z.output<typeof ChannelSchema>;
export type CreatedChannelView = z.output<typeof CreatedChannelSchema>;
export type RuleView = z.output<typeof RuleSchema>;
export type AlertView = z.output<typeof AlertSchema>;
export type DeliveryView = z.output<typeof DeliverySchema>;
