import { z } from 'zod';
import { cursorSchema, limitSchema } from '../http/pagination.js';
import { HintStateSchema, isoDate, RoutingSchema } from '../http/schemas.js';
import { RecommendationSchema } from '../recommendations/recommendations.schemas.js';

const booleanParam = z.enum(['true', 'false']).transform((value) => value === 'true');

export const ListServicesQuery = z
  .object({
    namespace: z.string().min(1).max(253).optional().describe('only this namespace'),
    routing: RoutingSchema.optional().describe('only this routing mode'),
    hintState: HintStateSchema.optional().describe('only this hint state'),
    reason: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('only Services whose hint reason contains this text (case-insensitive)'),
    opportunity: booleanParam
      .optional()
      .describe('true: only Services without routing whose hints would be populated if enabled; false: all others'),
    sort: z
      .enum(['name', 'cost', 'savings'])
      .default('name')
      .describe(
        '`name` (namespace, then name); `cost`: monthly cross-zone cost today; `savings`: what topology routing saves or would save (realized + missed)',
      ),
    order: z.enum(['asc', 'desc']).optional().describe('default: asc for name, desc for cost and savings'),
    limit: limitSchema(50, 500),
    cursor: cursorSchema,
  })
  .strict();

/** The list's filters alone: what GET …/services/counts counts. */
export const ServiceCountsQuery = ListServicesQuery.pick({
  namespace: true,
  routing: true,
  hintState: true,
  reason: true,
  opportunity: true,
}).strict();

export const ServiceCountsSchema = z.object({
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  asOf: isoDate.nullable().describe('the instant counted: the newest processed snapshot'),
  total: z.number().int().describe('Services matching the filters'),
  byHintState: z
    .object({ populated: z.number().int(), removed: z.number().int(), none: z.number().int() })
    .describe('the same Services by hint state (`removed`: the controller refused their hints)'),
});

export const ServiceParams = z.object({
  namespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes namespace name')
    .max(63),
  name: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a Kubernetes Service name')
    .max(253),
});

export const ServiceDetailQuery = z
  .object({
    from: z.iso.datetime({ offset: true }).optional().describe('timeline window start (default: 7 days before `to`)'),
    to: z.iso.datetime({ offset: true }).optional().describe('timeline window end (default: now)'),
  })
  .strict();

export const SetTrafficBody = z
  .object({
    monthlyTrafficGb: z
      .number()
      .min(0)
      .max(1e12)
      .nullable()
      .describe("the Service's monthly traffic in GB, overriding its annotation and the default; null to remove"),
  })
  .strict();

const CrossZoneCostSchema = z.object({ crossZoneGb: z.number(), cost: z.number() });

export const CostInputsSchema = z
  .object({
    trafficGb: z.number(),
    trafficSource: z.string().describe('`api`, `measured`, `annotation` or `default-per-endpoint`'),
    trafficEstimate: z.boolean(),
    trafficNote: z
      .string()
      .nullable()
      .describe(
        'where the volume came from; a measured one reads `measured: <preset>, query <PromQL>, window <s>s, at <time>`',
      ),
    pricePerGb: z.number(),
    currency: z.literal('USD'),
    priceSource: z.string(),
    priceNote: z.string().nullable(),
    estimate: z.boolean().describe('true when the traffic volume or the price is a zonewise default'),
    crossZoneSource: z
      .enum(['measured', 'model'])
      .describe("where today's cross-zone share came from: the traffic source's measurement, or the model"),
    modelCrossZone: z
      .number()
      .describe("the model's share crossing zones as routed today (kept beside a measured one)"),
    measuredCrossZone: z
      .number()
      .nullable()
      .describe('the measured share of the bytes that crossed zones; null if not measured'),
  })
  .describe('the inputs every figure came from');

export const MeasuredSchema = z.object({
  trafficGb: z.number().describe('GB per month, from the bytes measured over the window'),
  crossZone: z.number().nullable().describe('measured share of the bytes that crossed zones; null without zone labels'),
  measuredAt: isoDate,
  ageSeconds: z.number().int().describe('how old the measurement is (a failed query keeps the previous one)'),
  source: z.object({ preset: z.string(), query: z.string().nullable(), windowSeconds: z.number().int() }),
});

const estimatedFigures = z.object({
  trafficGb: z.number().describe('GB per month'),
  crossZone: z.number().describe('fraction of the bytes crossing zones today'),
  cost: z.number().describe('USD per month crossing zones'),
});
const measuredFigures = z.object({
  trafficGb: z.number().nullable().describe('GB per month'),
  crossZone: z.number().nullable().describe('fraction of the bytes crossing zones (null without zone labels)'),
  cost: z.number().nullable().describe('USD per month crossing zones'),
});

export const ModelVsMeasuredSchema = z.object({
  estimated: estimatedFigures.describe(
    "the model alone: declared or default volume, the model's withHints fraction, their cost",
  ),
  measured: measuredFigures.describe('the measured volume and fraction, their cost (null where not measured)'),
  error: measuredFigures.describe('estimated − measured, field by field'),
});

export const ContradictionSchema = z.object({
  modelCrossZone: z.number(),
  measuredCrossZone: z.number(),
  reason: z.string(),
});

export const ServiceSummarySchema = z.object({
  namespace: z.string(),
  name: z.string(),
  routing: RoutingSchema,
  hints: z.object({ state: HintStateSchema, reason: z.string().nullable() }),
  readyEndpoints: z.number().int(),
  since: isoDate.describe('captured-at of the snapshot that first showed this state'),
  crossZone: z
    .object({ withoutHints: z.number(), withHints: z.number() })
    .describe('fractions of requests; withHints equals withoutHints when the data path ignores the hints'),
  managedBy: z
    .string()
    .nullable()
    .describe(
      "who writes the Service's slices: endpointslice-controller, kube-apiserver, none, or another managed-by label value (null for states recorded before this was)",
    ),
  dataPath: z
    .object({
      honoursHints: z.boolean(),
      reason: z
        .string()
        .nullable()
        .describe('why the hints change nothing here (headless, ExternalName, the data plane…)'),
    })
    .nullable()
    .describe('whether the hints change where requests go on this cluster (null for states recorded before this was)'),
  monthly: z
    .object({
      withoutHints: CrossZoneCostSchema,
      withHints: CrossZoneCostSchema,
      realizedSavings: CrossZoneCostSchema,
      missedSavings: CrossZoneCostSchema.nullable(),
      inputs: CostInputsSchema,
    })
    .describe('per month, USD'),
  ifAutoEnabled: z
    .object({ wouldPopulate: z.boolean(), reason: z.string().nullable(), crossZoneWithHints: z.number() })
    .nullable(),
  opportunity: z.boolean(),
  measured: MeasuredSchema.nullable().describe("the newest measurement of the cluster's traffic source; null if none"),
  modelVsMeasured: ModelVsMeasuredSchema.nullable().describe(
    'the model (declared or default volume, modelled cross-zone fraction) against the measurement; errors are estimate − measured',
  ),
  contradiction: ContradictionSchema.nullable().describe(
    'set when the hints are populated yet the measured share crossing zones is more than 10 points above the model’s',
  ),
});

export const ServiceListSchema = z.object({
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  asOf: isoDate.nullable().describe('the instant listed (the newest processed snapshot when the listing started)'),
  services: z.array(ServiceSummarySchema),
  nextCursor: z.string().nullable(),
});

const ZoneAllocationSchema = z.object({
  zone: z.string(),
  minimum: z.number().nullable(),
  maximum: z.number().nullable(),
  desired: z.number().nullable(),
  allocated: z.number().nullable(),
  expectedOverload: z.number(),
});

const ProxyViewSchema = z.object({
  topologyFiltered: z.boolean(),
  topologyMode: z.string().nullable(),
  reason: z.string().nullable(),
  endpoints: z.number().int().nullable().describe('endpoints kube-proxy sends in-cluster traffic to'),
  endpointsByZone: z.record(z.string(), z.number().int()),
});

export const TimelineEntrySchema = z.object({
  from: isoDate,
  to: isoDate.nullable(),
  routing: RoutingSchema,
  hints: z.object({ state: HintStateSchema, reason: z.string().nullable() }),
  crossZone: z.object({ withoutHints: z.number(), withHints: z.number() }),
  readyEndpoints: z.number().int(),
});

export const ServiceDetailSchema = z.object({
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  namespace: z.string(),
  name: z.string(),
  asOf: isoDate.nullable(),
  current: ServiceSummarySchema.extend({
    hintStateSince: isoDate.describe(
      'captured-at of the first snapshot of the unbroken run of states with this hint state (`since` moves whenever any recorded field changes, such as the ready endpoints)',
    ),
    zones: z.array(ZoneAllocationSchema),
  })
    .nullable()
    .describe('null when the Service is not in the newest snapshot'),
  lastSeen: isoDate.nullable().describe('for a Service gone from the newest snapshot: when it was last seen'),
  kubeProxy: z.object({
    available: z.boolean(),
    reason: z.string().nullable(),
    snapshotId: z.uuid().nullable(),
    zones: z.array(
      z.object({
        zone: z.string(),
        node: z.string().describe('the node of the zone whose kube-proxy view is shown'),
        nodesInZone: z.number().int(),
        observed: ProxyViewSchema.describe('with the hints in the snapshot (what the real controller wrote)'),
        computed: ProxyViewSchema.describe('with the hints zonewise computes'),
      }),
    ),
  }),
  drift: z.object({
    available: z.boolean(),
    endpoints: z.number().int().nullable().describe('endpoints whose observed hints differ from the computed ones'),
    observedHints: z.boolean().nullable(),
    details: z.array(z.unknown()),
  }),
  recommendations: z
    .array(RecommendationSchema)
    .describe('the fixes that make the Service route in-zone, best first ([] when it does or cannot gain)'),
  timeline: z.object({
    from: isoDate,
    to: isoDate,
    entries: z.array(TimelineEntrySchema),
    truncated: z.boolean(),
    changes: z.number().int().describe('state changes inside the window'),
    hintStateChanges: z.number().int().describe('changes of the hint state inside the window (the flapping count)'),
    flapping: z.boolean(),
  }),
});

export type ServiceSummary = z.output<typeof ServiceSummarySchema>;
export type ServiceListView = z.output<typeof ServiceListSchema>;
export type ServiceCountsView = z.output<typeof ServiceCountsSchema>;
export type ServiceDetailView = z.output<typeof ServiceDetailSchema>;
export type TimelineView = ServiceDetailView['timeline'];
export type ZoneAllocationView = z.output<typeof ZoneAllocationSchema>;
