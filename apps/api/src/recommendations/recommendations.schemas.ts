import { z } from 'zod';
import { cursorSchema, limitSchema } from '../http/pagination.js';
import { HintStateSchema, isoDate, RoutingSchema } from '../http/schemas.js';

export const ListRecommendationsQuery = z
  .object({
    limit: limitSchema(50, 500),
    cursor: cursorSchema,
  })
  .strict();

const WorkloadSchema = z.object({
  kind: z.string().describe('Deployment, StatefulSet, DaemonSet, or the kind of another controller'),
  namespace: z.string(),
  name: z.string(),
});

export const RecommendationSchema = z
  .object({
    kind: z.enum(['topologyMode', 'replicas', 'trafficDistribution', 'nodes', 'dataPlane']),
    summary: z.string().describe('one sentence for a person'),
    resultingState: HintStateSchema.describe('the hint state after the change'),
    reason: z.string().nullable().describe("the controller's reason when the result is not populated"),
    crossZone: z.object({ withHints: z.number() }).describe('fraction of requests crossing zones after the change'),
    expectedOverload: z.record(z.string(), z.number()).describe('per zone, after the change'),
    overloadAboveThreshold: z.boolean().describe("some zone above the controller's 20 % threshold"),
    savings: z
      .object({
        crossZoneFraction: z.number().describe('drop of the cross-zone fraction against today'),
        crossZoneGb: z.number().describe('GB per month no longer crossing zones'),
        cost: z.number().describe('USD per month, at the cluster’s price'),
      })
      .describe("per month, with the Service's effective traffic"),
    endpointsToAdd: z
      .record(z.string(), z.number().int())
      .optional()
      .describe('per zone; negative: fewer endpoints there (a move)'),
    trafficDistribution: z.enum(['PreferSameZone', 'PreferClose']).optional(),
    nodes: z.array(z.string()).optional().describe('kind nodes: the nodes to fix'),
    stability: z
      .object({
        countsSeen: z.array(z.number().int()),
        minReplicas: z.number().int(),
        covers: z.object({ from: z.number().int(), to: z.number().int() }),
      })
      .optional(),
    whatIf: z
      .object({ enableRouting: z.array(z.unknown()), scaleReplicas: z.array(z.unknown()) })
      .nullable()
      .describe('the change as a POST /v1/simulate what-if document'),
    patch: z.string().describe('kubectl commands or a manifest snippet'),
    workload: WorkloadSchema.nullable()
      .optional()
      .describe(
        'kind replicas (and a nodes fix that changes replicas): the workload the patch acts on, found through the Pods’ owner references (the one taking most of the change); null: the owner is unknown, and the patch names no guessed object',
      ),
    workloads: z
      .array(WorkloadSchema.extend({ endpointsToAdd: z.record(z.string(), z.number().int()) }))
      .optional()
      .describe('when the endpoints belong to several workloads: each, with the endpoints per zone it gets'),
  })
  .describe('a fix, as `zonewise analyze` prints it, with savings at the cluster’s traffic and price');

export const ServiceFixesSchema = z.object({
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  namespace: z.string(),
  name: z.string(),
  routing: RoutingSchema,
  hints: z.object({ state: HintStateSchema, reason: z.string().nullable() }),
  traffic: z.object({
    gb: z.number().describe('GB per month'),
    source: z.string().describe('`api`, `measured`, `annotation` or `default-per-endpoint`'),
    estimate: z.boolean(),
  }),
  bestSavings: z
    .object({ crossZoneGb: z.number(), cost: z.number() })
    .describe('what the first (best) fix saves per month; the ranking key'),
  recommendations: z.array(RecommendationSchema).describe('best first'),
});

export const NodeBlockersSchema = z
  .object({
    nodes: z.array(z.object({ name: z.string(), problem: z.string(), missingZone: z.boolean(), zeroCpu: z.boolean() })),
    services: z.number().int().describe('Services whose fix depends on these nodes'),
    savings: z.object({ crossZoneGb: z.number(), cost: z.number() }).describe('what those fixes save per month'),
    patch: z.string(),
  })
  .describe('ready worker nodes whose missing zone label or CPU disables hints for every Service');

export const ClusterRecommendationsSchema = z.object({
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  asOf: isoDate.nullable().describe('the newest processed snapshot'),
  nodeBlockers: NodeBlockersSchema.nullable(),
  services: z.array(ServiceFixesSchema).describe('Services with fixes, largest saving first'),
  nextCursor: z.string().nullable(),
});

export const FleetRecommendationsSchema = z.object({
  services: z
    .array(ServiceFixesSchema.extend({ asOf: isoDate }))
    .describe('Services with fixes over every cluster of the organization, largest saving first'),
  nextCursor: z.string().nullable(),
});

export type RecommendationView = z.output<typeof RecommendationSchema>;
export type ServiceFixesView = z.output<typeof ServiceFixesSchema>;
export type NodeBlockersView = z.output<typeof NodeBlockersSchema>;
export type ClusterRecommendationsView = z.output<typeof ClusterRecommendationsSchema>;
export type FleetRecommendationsView = z.output<typeof FleetRecommendationsSchema>;
