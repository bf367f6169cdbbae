import { z } from 'zod';
import { isoDate } from '../http/schemas.js';
import { limitSchema } from '../http/pagination.js';

export const SavingsQuerySchema = z
  .object({
    from: z.iso.datetime({ offset: true }).optional().describe('range start (default: 30 days before `to`)'),
    to: z.iso.datetime({ offset: true }).optional().describe('range end (default: now; a later end counts up to now)'),
    groupBy: z.enum(['cluster', 'namespace', 'service']).default('cluster'),
    clusterId: z.uuid({ message: 'must be a UUID' }).optional().describe('only this cluster'),
    namespace: z.string().min(1).max(253).optional().describe('only this namespace'),
    limit: limitSchema(100, 1000).describe('groups and opportunities returned, largest first (default 100)'),
  })
  .strict();

const Figure = z.object({ crossZoneGb: z.number(), cost: z.number() });

const Figures = {
  months: z.number().describe('service-months covered: Σ over Services of the time their state held / 730 h'),
  trafficGb: z.number(),
  withoutHints: Figure.describe('cross-zone GB and USD had no Service any hints'),
  withHints: Figure.describe('cross-zone GB and USD with the hints as they were'),
  realizedSavings: Figure.describe('withoutHints − withHints'),
  missedSavings: Figure.describe('what enabling topology routing on the opportunities would have saved'),
  services: z.number().int(),
  opportunities: z.number().int(),
  inputs: z.object({
    trafficSources: z
      .object({
        api: z.number().int(),
        measured: z.number().int(),
        annotation: z.number().int(),
        'default-per-endpoint': z.number().int(),
      })
      .describe('Services by where their traffic volume came from'),
    measuredTrafficGb: z.number().describe("traffic (GB) whose volume the clusters' traffic sources measured"),
    measuredShare: z
      .number()
      .nullable()
      .describe('measuredTrafficGb ÷ trafficGb: the share of the traffic that is measured, not estimated'),
    servicesWithMeasuredCrossZone: z
      .number()
      .int()
      .describe("Services whose share crossing zones was measured (it replaces the model's as routed)"),
    estimate: z.boolean().describe('true when any figure rests on the per-endpoint default or an unknown-cloud price'),
  }),
  measured: z
    .object({
      services: z.number().int().describe('Services whose volume and share crossing zones are both measured'),
      withHints: Figure.describe('the part of withHints those Services make: measured, not estimated'),
      realizedSavings: z
        .object({ cost: z.number() })
        .describe("their part of realizedSavings (their measured cost against the model's without hints)"),
      missedSavings: z
        .object({ cost: z.number() })
        .describe("their part of missedSavings (their measured cost against the model's with topology-mode Auto)"),
      withHintsCostShare: z
        .number()
        .nullable()
        .describe('measured withHints cost ÷ withHints cost: how much of the as-routed cost is measured'),
    })
    .describe('how much of each figure is measured; the rest is estimated by the model'),
};

export const SavingsGroupSchema = z.object({
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  namespace: z.string().nullable(),
  name: z.string().nullable(),
  ...Figures,
});

export const SavingsSchema = z.object({
  from: isoDate,
  to: isoDate,
  groupBy: z.enum(['cluster', 'namespace', 'service']),
  currency: z.literal('USD'),
  hoursPerMonth: z.number(),
  pricing: z
    .array(
      z.object({
        cluster: z.object({ id: z.uuid(), name: z.string() }),
        pricePerGb: z.number(),
        source: z.string(),
        note: z.string(),
      }),
    )
    .describe('the price each cluster is costed at, and where it comes from'),
  totals: z.object(Figures),
  groups: z.array(SavingsGroupSchema),
  truncated: z.boolean().describe('more groups than `limit`; the totals still cover everything'),
  opportunities: z
    .array(
      z.object({
        cluster: z.object({ id: z.uuid(), name: z.string() }),
        namespace: z.string(),
        name: z.string(),
        trafficGb: z.number(),
        missedSavings: Figure,
        estimate: z.boolean(),
      }),
    )
    .describe(
      'Services without topology routing for which enabling it would populate hints, largest estimated saving first',
    ),
  model: z.object({
    formulas: z.array(z.string()),
    traffic: z.array(z.string()),
    defaultMonthlyGbPerEndpoint: z.number(),
  }),
});

export type SavingsView = z.output<typeof SavingsSchema>;
