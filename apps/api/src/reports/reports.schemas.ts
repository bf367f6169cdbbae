import { z } from 'zod';
import { cursorSchema, limitSchema } from '../http/pagination.js';
import { isoDate } from '../http/schemas.js';

/** Request and response shapes of the report schedules and reports, documented in the OpenAPI spec. */

export const CadenceSchema = z
  .enum(['daily', 'weekly', 'monthly', 'cron'])
  .describe(
    '`daily`: at local midnight; `weekly`: Monday at local midnight; `monthly`: the 1st at local midnight; `cron`: your own `cron` expression. Each report covers the time since the previous firing.',
  );
export const FormatSchema = z.enum(['json', 'csv', 'html']);

const scheduleName = z.string().trim().min(1).max(100);
const cronExpression = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe('5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, read in `timeZone`');
const timeZone = z.string().min(1).max(64).describe('IANA time zone, e.g. Europe/Paris (default UTC)');
const clusterIds = z
  .array(z.uuid({ message: 'must be a UUID' }))
  .min(1)
  .max(500);

export const ScopeSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('fleet') }).strict(),
    z.object({ kind: z.literal('clusters'), clusterIds }).strict(),
  ])
  .describe('`fleet`: every cluster of the organization when the report is made; `clusters`: the ones listed');

const formats = z
  .array(FormatSchema)
  .min(1)
  .max(3)
  .refine((list) => new Set(list).size === list.length, { message: 'each format once' })
  .describe('formats made, downloadable and sent to the webhook');

const webhook = z
  .object({ url: z.string().max(2000).describe('https URL the report is POSTed to when made') })
  .strict()
  .nullable()
  .describe('where each report is POSTed, signed with the schedule’s webhook secret; null for none');

const channelIds = z
  .array(z.uuid({ message: 'must be a UUID' }))
  .max(20)
  .describe('alert channels (Slack, Teams, email, signed webhook) each report is also sent to');

export const CreateScheduleBody = z
  .object({
    name: scheduleName,
    cadence: CadenceSchema,
    cron: cronExpression.optional(),
    timeZone: timeZone.default('UTC'),
    scope: ScopeSchema.default({ kind: 'fleet' }),
    formats: formats.default(['json', 'csv', 'html']),
    webhook: webhook.optional(),
    channelIds: channelIds.default([]),
    enabled: z.boolean().default(true),
  })
  .strict();

export const UpdateScheduleBody = z
  .object({
    name: scheduleName.optional(),
    cadence: CadenceSchema.optional(),
    cron: cronExpression.nullable().optional(),
    timeZone: timeZone.optional(),
    scope: ScopeSchema.optional(),
    formats: formats.optional(),
    webhook: webhook.optional(),
    rotateWebhookSecret: z.boolean().optional().describe('issue a new webhook secret (shown once in this answer)'),
    channelIds: channelIds.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'nothing to change: send at least one field' });

export const ListSchedulesQuery = z.object({ limit: limitSchema(50, 500), cursor: cursorSchema }).strict();

export const RunScheduleBody = z
  .object({
    period: z
      .enum(['current', 'previous'])
      .default('current')
      .describe(
        '`current`: the period in progress, up to now (a partial report; the full one is still made when it ends); `previous`: the newest period that has ended (made once: an existing report is answered as it is, a failed one is made again)',
      ),
  })
  .strict();

export const ListReportsQuery = z
  .object({
    scheduleId: z.uuid({ message: 'must be a UUID' }).optional().describe("only this schedule's reports"),
    status: z.enum(['pending', 'ready', 'failed']).optional(),
    limit: limitSchema(50, 500),
    cursor: cursorSchema,
  })
  .strict();

export const DownloadQuery = z.object({ format: FormatSchema.default('json') }).strict();

const Figure = z.object({ crossZoneGb: z.number(), cost: z.number().describe('USD') });

export const ScheduleSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  cadence: CadenceSchema,
  cron: z.string().describe('the cron expression the schedule fires on (derived for daily, weekly and monthly)'),
  timeZone: z.string(),
  scope: z.object({ kind: z.enum(['fleet', 'clusters']), clusterIds: z.array(z.uuid()) }),
  formats: z.array(FormatSchema),
  webhook: z
    .object({
      url: z.string(),
      secretPrefix: z.string().describe("the secret's first characters (the secret is shown only when issued)"),
    })
    .nullable(),
  channelIds: z.array(z.uuid()).describe('alert channels each report is sent to (see GET /v1/alert-deliveries)'),
  enabled: z.boolean(),
  nextRunAt: isoDate.nullable().describe('when the schedule fires next (null when disabled)'),
  lastReport: z
    .object({ id: z.uuid(), periodStart: isoDate, periodEnd: isoDate, status: z.enum(['pending', 'ready', 'failed']) })
    .nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});

export const ScheduleAnswerSchema = z.object({
  schedule: ScheduleSchema,
  webhookSecret: z
    .string()
    .nullable()
    .describe('the webhook signing secret, only in the answer that issued it (creation with a webhook, rotation)'),
});

export const ScheduleListSchema = z.object({ schedules: z.array(ScheduleSchema), nextCursor: z.string().nullable() });

export const DeliverySchema = z.object({
  id: z.uuid(),
  url: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  lastAttemptAt: isoDate.nullable(),
  lastStatusCode: z
    .number()
    .int()
    .nullable()
    .describe('HTTP status of the last answer (null: none, e.g. refused or timed out)'),
  lastError: z.string().nullable(),
  nextAttemptAt: isoDate.nullable(),
  deliveredAt: isoDate.nullable(),
  log: z.array(
    z.object({
      attempt: z.number().int(),
      at: isoDate,
      statusCode: z.number().int().nullable(),
      error: z.string().nullable(),
      durationMs: z.number(),
    }),
  ),
});

export const ReportSchema = z.object({
  id: z.uuid(),
  schedule: z.object({ id: z.uuid(), name: z.string() }),
  period: z.object({ start: isoDate, end: isoDate, timeZone: z.string(), label: z.string() }),
  partial: z.boolean().describe('made on demand before its period ended'),
  trigger: z.enum(['schedule', 'manual']),
  status: z.enum(['pending', 'ready', 'failed']),
  error: z.string().nullable(),
  attempts: z.number().int(),
  formats: z.array(FormatSchema),
  createdAt: isoDate,
  generatedAt: isoDate.nullable(),
  summary: z
    .object({
      totals: z
        .object({
          services: z.number().int(),
          trafficGb: z.number(),
          withoutHints: Figure,
          withHints: Figure,
          realizedSavings: Figure,
          missedSavings: Figure,
          blockedAtStake: Figure,
          opportunities: z.number().int(),
          estimate: z.boolean(),
          measured: z
            .object({
              services: z.number().int().describe('Services whose volume and share crossing zones are both measured'),
              withHints: Figure.describe('their part of withHints: measured, not estimated'),
              realizedSavings: z.object({ cost: z.number() }),
              missedSavings: z.object({ cost: z.number() }),
              withHintsCostShare: z.number().nullable().describe('measured ÷ all of the as-routed cost'),
            })
            .optional()
            .describe('how much of the totals is measured, the rest estimated (absent in reports made before it)'),
          contradictions: z
            .number()
            .int()
            .optional()
            .describe('Services whose measured share contradicts their populated hints'),
        })
        .loose(),
      missedByReason: z.array(
        z
          .object({
            reason: z.string(),
            basis: z.string(),
            services: z.number().int(),
            crossZoneGb: z.number(),
            cost: z.number(),
          })
          .loose(),
      ),
    })
    .nullable()
    .describe('headline figures, once the report is ready'),
  downloads: z.record(z.string(), z.string()).describe('download path of each format made'),
  delivery: DeliverySchema.nullable().describe('the webhook delivery of this report, when the schedule has a webhook'),
});

export const ReportListSchema = z.object({ reports: z.array(ReportSchema), nextCursor: z.string().nullable() });

export const RunAnswerSchema = z.object({ report: ReportSchema });

export type ScheduleView = z.output<typeof ScheduleSchema>;
export type ScheduleAnswerView = z.output<typeof ScheduleAnswerSchema>;
export type ScheduleListView = z.output<typeof ScheduleListSchema>;
export type ReportView = z.output<typeof ReportSchema>;
export type ReportListView = z.output<typeof ReportListSchema>;
export type RunAnswerView = z.output<typeof RunAnswerSchema>;
/** A run's report, and whether this call has it made (`accepted`) or found it made. */
export type RunView = RunAnswerView & { accepted: boolean };
