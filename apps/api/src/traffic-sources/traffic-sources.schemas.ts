import {
  DEFAULT_CLUSTER_LABEL,
  describePresets,
  durationProblem,
  LABEL_NAME,
  parseDuration,
  TRAFFIC_PRESETS,
} from '@zw/core';
import { z } from 'zod';
import { isoDate } from '../http/schemas.js';

/** A duration (`90s`, `5m`, `1h`, `1d`; see parseDuration) as whole seconds. */
export function durationSeconds(text: string): number {
  const milliseconds = parseDuration(text);
  return milliseconds === null ? Number.NaN : milliseconds / 1000;
}

/** A duration of whole seconds between min and max (seconds), refused with a message naming `what`. */
const duration = (what: string, min: number, max: number) =>
  z.string().superRefine((text, context) => {
    const problem = durationProblem(what, text, { minMs: min * 1000, maxMs: max * 1000, wholeSeconds: true });
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

export const PutTrafficSourceBody = z
  .object({
    preset: z.enum(TRAFFIC_PRESETS).describe(`which metrics to read: ${describePresets()}`),
    url: z
      .string()
      .min(1)
      .max(2048)
      .describe('base URL of a Prometheus HTTP API (Prometheus, Thanos, Mimir…); /api/v1/query is appended'),
    window: duration('the measured window', 1, 30 * 86_400)
      .default('1h')
      .describe('how far back each measurement reaches (bytes over this window become GB per month)'),
    interval: duration('the interval', 1, 7 * 86_400)
      .default('5m')
      .describe('how often the worker measures (at least TRAFFIC_SOURCE_MIN_INTERVAL_SECONDS)'),
    queryTemplate: z
      .string()
      .min(1)
      .max(8192)
      .optional()
      .describe('custom preset only: PromQL with $window returning bytes grouped by (namespace, service)'),
    clusterLabel: z
      .string()
      .regex(LABEL_NAME, 'a Prometheus label name')
      .max(128)
      .default(DEFAULT_CLUSTER_LABEL)
      .describe(
        'the label that tells clusters apart in a shared Prometheus (Thanos, Mimir…): cluster, k8s_cluster_name (Beyla), cluster_id (Kubecost)…',
      ),
    clusterValue: z
      .string()
      .min(1)
      .max(1024)
      .nullable()
      .default(null)
      .describe(
        "this cluster's value of clusterLabel: only its series are read. Null: any; series of several values then make the answer `ambiguous`",
      ),
    caBundle: z
      .string()
      .min(1)
      .max(65_536)
      .nullable()
      .default(null)
      .describe('PEM certificates (a private CA) an https Prometheus must chain to; null: the public roots'),
    authHeader: z
      .string()
      .min(1)
      .max(8192)
      .nullable()
      .optional()
      .describe(
        'Authorization header sent to the Prometheus (e.g. "Bearer …"); write-only, stored encrypted. Omit to keep the stored one, null to remove it',
      ),
  })
  .strict();

export const TrafficSourceSchema = z.object({
  clusterId: z.uuid(),
  preset: z.enum(TRAFFIC_PRESETS),
  url: z.string(),
  window: z.string(),
  windowSeconds: z.number().int(),
  interval: z.string(),
  intervalSeconds: z.number().int(),
  queryTemplate: z.string().nullable(),
  clusterLabel: z.string(),
  clusterValue: z.string().nullable(),
  caBundle: z.string().nullable(),
  query: z.string().describe('the PromQL the worker sends (one instant query per interval)'),
  hasAuthHeader: z.boolean().describe('whether an Authorization header is stored (it is never returned)'),
  status: z
    .string()
    .describe(
      '`pending` (not queried yet), `ok`, `partial` (less history than the window: `coverage`), `empty`, `wrong-labels` (`lastError` lists the labels the series carry), `ambiguous` (series of several clusters, no clusterValue), `invalid-values` (a negative or non-finite increase), `unreachable`, `timeout`, `bad-response`, `refused-address`, `bad-credentials` or `no-snapshot`',
    ),
  lastError: z.string().nullable().describe('why the status is not ok (for `partial`: what the figures cover)'),
  coverage: z
    .number()
    .nullable()
    .describe('share of the window the last good measurement had data for (1: all; null: not known, custom)'),
  lastAttemptAt: isoDate.nullable(),
  lastSuccessAt: isoDate.nullable(),
  consecutiveFailures: z.number().int(),
  seriesCount: z.number().int().nullable().describe('series in the last answer'),
  servicesMeasured: z.number().int().nullable().describe('Services of the cluster the last good answer measured'),
  unmatchedSeries: z.number().int().nullable().describe('series naming no Service of the cluster'),
  createdAt: isoDate,
  updatedAt: isoDate,
});

const VOLUME = 'over the measured Services: GB per month';
const FRACTION = 'over the Services with measured zones: fraction crossing zones (weighted by measured volume)';
const CROSS_ZONE_GB = 'over the same Services: cross-zone GB per month';
const COST = 'crossZoneGb × the cluster price, USD per month';
const estimatedFigures = z.object({
  trafficGb: z.number().describe(VOLUME),
  crossZone: z.number().describe(FRACTION),
  crossZoneGb: z.number().describe(CROSS_ZONE_GB),
  cost: z.number().describe(COST),
});
const measuredFigures = z.object({
  trafficGb: z.number().nullable().describe(VOLUME),
  crossZone: z.number().nullable().describe(FRACTION),
  crossZoneGb: z.number().nullable().describe(CROSS_ZONE_GB),
  cost: z.number().nullable().describe(COST),
});

export const TrafficComparisonSchema = z.object({
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  source: TrafficSourceSchema.nullable(),
  services: z.number().int().describe('Services in the newest state'),
  servicesMeasured: z.number().int(),
  servicesWithMeasuredZones: z.number().int(),
  measuredShare: z
    .number()
    .nullable()
    .describe("share of the cluster's effective monthly traffic that is measured (the rest is declared or estimated)"),
  oldestMeasurementAt: isoDate.nullable(),
  estimated: estimatedFigures.describe('the model: declared or default volumes, modelled fractions'),
  measured: measuredFigures.describe('as measured (null where nothing is measured)'),
  error: measuredFigures.describe('estimated − measured, field by field'),
  pricePerGb: z.number(),
});

export type TrafficSourceView = z.output<typeof TrafficSourceSchema>;
export type TrafficComparisonView = z.output<typeof TrafficComparisonSchema>;
