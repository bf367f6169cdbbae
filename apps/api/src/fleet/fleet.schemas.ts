import { z } from 'zod';
import { CloudSchema, isoDate } from '../http/schemas.js';

export const HintStateCountsSchema = z
  .object({ populated: z.number().int(), removed: z.number().int(), none: z.number().int() })
  .describe('Services by hint state (the `hints.state` of `zonewise analyze`)');

const AtStakeSchema = z
  .object({
    crossZoneGb: z.number(),
    cost: z.number(),
    services: z.number().int().describe('Services that ask for topology routing whose hints the controller refused'),
    trafficGb: z.number().describe("those Services' monthly traffic"),
    servicesWithEstimatedTraffic: z.number().int().describe('of them, on the per-endpoint default volume'),
    estimate: z
      .boolean()
      .describe('true when one of them has the per-endpoint default volume or the price is the unknown-cloud default'),
  })
  .describe(
    'cross-zone GB and USD a month that Services with refused hints still send across zones: the most that removing the cause could save (an upper bound; their hints.reason says the cause). Services whose data path ignores hints are left out',
  );

const MeasuredPartSchema = z
  .object({
    services: z.number().int().describe('Services whose volume and share crossing zones are both measured'),
    withHints: z
      .object({ crossZoneGb: z.number(), cost: z.number() })
      .describe('the part of withHints those Services make: measured, not estimated'),
    withHintsCostShare: z
      .number()
      .nullable()
      .describe('measured withHints ÷ withHints: how much of the as-routed cost is measured (null when it is 0)'),
  })
  .describe('how much of the figures is measured; the rest is estimated by the model');

export const FleetClusterSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  cloud: CloudSchema,
  region: z.string().nullable(),
  labels: z.record(z.string(), z.string()).describe("the cluster's own labels (set with PATCH /v1/clusters/{id})"),
  services: HintStateCountsSchema,
  servicesWithDrift: z
    .number()
    .int()
    .nullable()
    .describe('Services whose observed hints differ from the computed ones'),
  servicesWithIgnoredHints: z
    .number()
    .int()
    .nullable()
    .describe('Services whose slices carry hints that the data path ignores (hints written but ignored)'),
  nodeInfo: z.object({
    sufficient: z.boolean().nullable().describe('false: the controller sets no hints anywhere in this cluster'),
    reason: z.string().nullable(),
  }),
  crossZone: z
    .object({ withoutHints: z.number(), withHints: z.number() })
    .nullable()
    .describe('fractions of requests crossing zones over all Services, weighted by ready endpoints'),
  lastSnapshot: z
    .object({
      capturedAt: isoDate,
      receivedAt: isoDate,
      status: z.enum(['queued', 'processing', 'processed', 'failed']),
      ageSeconds: z.number().int().describe('seconds since it was captured'),
      stale: z.boolean().describe('no snapshot for longer than the stale threshold: is the agent running?'),
    })
    .nullable(),
  monthly: z
    .object({
      trafficGb: z.number(),
      withoutHints: z.object({ crossZoneGb: z.number(), cost: z.number() }),
      withHints: z.object({ crossZoneGb: z.number(), cost: z.number() }),
      realizedSavings: z.object({ crossZoneGb: z.number(), cost: z.number() }),
      missedSavings: z.object({ crossZoneGb: z.number(), cost: z.number() }),
      atStake: AtStakeSchema.nullable().describe(
        'as in the totals; null while the newest summary predates the at-stake roll-up (its next snapshot has it)',
      ),
      opportunities: z.number().int().describe('Services without routing whose hints would be populated if enabled'),
      servicesWithEstimatedTraffic: z.number().int(),
      servicesWithMeasuredTraffic: z
        .number()
        .int()
        .describe("Services whose volume the cluster's traffic source measured"),
      measuredTrafficGb: z.number().describe('the part of trafficGb that is measured'),
      measuredShare: z.number().nullable().describe('measuredTrafficGb ÷ trafficGb (null without traffic)'),
      measured: MeasuredPartSchema,
      pricing: z.object({ pricePerGb: z.number(), currency: z.literal('USD'), source: z.string(), note: z.string() }),
      estimate: z.boolean().describe('true when a figure rests on the per-endpoint default or an unknown-cloud price'),
    })
    .nullable()
    .describe('estimated cross-zone GB and USD per month, as of the newest processed snapshot'),
  trafficSource: z
    .object({
      preset: z.string(),
      status: z.string().describe('`ok`, `pending` or why the last measurement failed (see the traffic-source route)'),
      lastError: z.string().nullable(),
      lastSuccessAt: isoDate.nullable(),
    })
    .nullable()
    .describe("the cluster's Prometheus traffic source, null when it has none"),
  analysis: z
    .object({ snapshotId: z.uuid(), capturedAt: isoDate })
    .nullable()
    .describe('the processed snapshot these figures come from (null before the first one is processed)'),
});

export const FleetSchema = z.object({
  generatedAt: isoDate,
  staleAfterSeconds: z.number().int(),
  currency: z.literal('USD').describe('the currency of every cost in this answer'),
  clusters: z.array(FleetClusterSchema),
  totals: z.object({
    clusters: z.number().int(),
    staleClusters: z.number().int(),
    services: HintStateCountsSchema,
    servicesWithIgnoredHints: z
      .number()
      .int()
      .describe('Services whose slices carry hints the data path ignores, over all clusters'),
    monthly: z.object({
      withoutHints: z.object({ crossZoneGb: z.number(), cost: z.number() }),
      withHints: z.object({ crossZoneGb: z.number(), cost: z.number() }),
      realizedSavings: z.object({ crossZoneGb: z.number(), cost: z.number() }),
      missedSavings: z.object({ crossZoneGb: z.number(), cost: z.number() }),
      atStake: AtStakeSchema,
      trafficGb: z.number(),
      measuredTrafficGb: z.number(),
      measuredShare: z.number().nullable().describe("share of the fleet's monthly traffic that is measured"),
      measured: MeasuredPartSchema,
    }),
  }),
});

export type FleetView = z.output<typeof FleetSchema>;
export const FleetClusterAnswerSchema = z.object({
  generatedAt: isoDate,
  staleAfterSeconds: z.number().int(),
  cluster: FleetClusterSchema,
});

export type FleetClusterView = z.output<typeof FleetClusterSchema>;
export type FleetClusterAnswerView = z.output<typeof FleetClusterAnswerSchema>;
