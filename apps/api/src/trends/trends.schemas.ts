import { z } from 'zod';
import { isoDate } from '../http/schemas.js';

export const BUCKETS = { hour: 3600, day: 86_400, week: 604_800 } as const;
export const MAX_BUCKETS = 2000;

export const TrendsQuery = z
  .object({
    from: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        'range start, floored to the start of its bucket (default: fitted to the data, from the first snapshot of the last 90 days; 7 days before `to` when there is none)',
      ),
    to: z.iso.datetime({ offset: true }).optional().describe('range end, exclusive (default: now)'),
    bucket: z
      .enum(['hour', 'day', 'week'])
      .optional()
      .describe(
        'bucket width (default: `hour` for ranges up to 2 days, else `day`); buckets are aligned to UTC: hours on the hour, days at 00:00 UTC, weeks on Monday 00:00 UTC',
      ),
  })
  .strict();

const Figure = z.object({ crossZoneGb: z.number(), cost: z.number().describe('USD per month') });

export const TrendPointSchema = z.object({
  start: isoDate.describe('bucket start (UTC-aligned: on the hour, at 00:00 UTC, or on Monday 00:00 UTC)'),
  clusters: z.number().int().describe('clusters with at least one snapshot recorded in the bucket'),
  snapshots: z.number().int(),
  services: z
    .object({ populated: z.number(), removed: z.number(), none: z.number() })
    .describe("Services by hint state: each cluster's average over its snapshots in the bucket, summed"),
  servicesWithDrift: z.number(),
  monthly: z.object({
    trafficGb: z.number(),
    withoutHints: Figure.describe('cross-zone GB and cost a month had no Service any hints'),
    withHints: Figure.describe('as routed'),
    ifEnabled: Figure.describe('as routed, less what enabling routing on the opportunities would save'),
    realizedSavings: Figure,
    missedSavings: Figure,
  }),
});

export const TrendsSchema = z.object({
  from: isoDate.describe("the range's start: the start of its first bucket (UTC-aligned)"),
  to: isoDate.describe("the range's end, exclusive"),
  bucket: z.enum(['hour', 'day', 'week']),
  fitted: z.boolean().describe('whether the range was fitted to the data (no `from` was asked for)'),
  points: z
    .array(TrendPointSchema)
    .describe('buckets holding at least one recorded snapshot, oldest first (a bucket without one is absent)'),
});

export const ClusterTrendsSchema = TrendsSchema.extend({ cluster: z.object({ id: z.uuid(), name: z.string() }) });

export type TrendsView = z.output<typeof TrendsSchema>;
export type ClusterTrendsView = z.output<typeof ClusterTrendsSchema>;
