import { ROUTING_MODES, WHAT_IF_LIMITS } from '@zw/core';
import { z } from 'zod';
import { isoDate } from '../http/schemas.js';
import { HintStateSchema } from '../http/schemas.js';

/**
 * The `POST /v1/simulate` body, for the OpenAPI document. The core parses snapshots and what-ifs by hand
 * (its errors name JSON paths); these schemas say the same shape, with the core's own mode list and
 * limits, and a test checks that the core accepts what they describe.
 */

const kubernetesObject = z
  .object({ apiVersion: z.string(), kind: z.string(), metadata: z.object({}).loose() })
  .loose()
  .describe('a Kubernetes object as `kubectl get -o json` prints it');

const ListSnapshot = z
  .object({
    apiVersion: z.string().optional(),
    kind: z.literal('List'),
    items: z.array(kubernetesObject).describe('Nodes, Services, EndpointSlices and ServiceCIDRs, in any order'),
  })
  .loose()
  .describe('`kubectl get nodes,services,endpointslices,servicecidrs -A -o json`');

const ObjectSnapshot = z
  .object({
    nodes: z.array(kubernetesObject),
    services: z.array(kubernetesObject),
    endpointSlices: z.array(kubernetesObject),
    serviceCIDRs: z.array(kubernetesObject).optional(),
  })
  .loose()
  .describe("the same objects grouped by kind (the agent's form)");

export const SnapshotSchema = z.union([ListSnapshot, ObjectSnapshot]);

const serviceRef = { namespace: z.string().min(1), name: z.string().min(1) };
const entries = <T extends z.ZodType>(entry: T) => z.array(entry).max(WHAT_IF_LIMITS.entries).optional();

export const WhatIfSchema = z
  .object({
    enableRouting: entries(z.object({ ...serviceRef, mode: z.enum(ROUTING_MODES) }).strict()).describe(
      "set a Service's traffic distribution / topology mode",
    ),
    scaleReplicas: entries(
      z
        .object({
          ...serviceRef,
          zone: z.string().min(1),
          delta: z.number().int().describe('ready endpoints to add (positive) or remove (negative) in the zone'),
        })
        .strict(),
    ).describe(`change a Service's ready endpoints in a zone (at most ${WHAT_IF_LIMITS.addedEndpoints} added in all)`),
    removeZoneNodes: entries(
      z
        .object({
          zone: z.string().min(1),
          reschedule: z
            .boolean()
            .optional()
            .describe("move the zone's endpoints to the remaining zones' nodes instead of dropping them"),
        })
        .strict(),
    ).describe('a zone loses its nodes'),
  })
  .strict()
  .describe('changes applied to a copy of the snapshot before it is analyzed');

export const SimulateBodySchema = z.union([
  SnapshotSchema,
  z.object({ snapshot: SnapshotSchema, whatIf: WhatIfSchema.optional() }).strict(),
]);

const ServiceRef = z.object({ namespace: z.string().min(1).max(63), name: z.string().min(1).max(253) }).strict();

/** The body of `POST /v1/clusters/{id}/simulate` (and the arguments of GraphQL `clusterSimulation`). */
export const ClusterSimulateBody = z
  .object({
    whatIf: WhatIfSchema.optional(),
    services: z
      .array(ServiceRef)
      .min(1)
      .max(100)
      .optional()
      .describe("only these Services in the answer's `services` (default: every Service of the cluster)"),
  })
  .strict();

const SimulatedZoneSchema = z.object({
  minimum: z.number().nullable(),
  maximum: z.number().nullable(),
  desired: z.number().nullable(),
  allocated: z.number().nullable(),
  expectedOverload: z.number(),
});

/** A Service of the analysis: the fields a what-if is read for; the others are as `zonewise analyze` gives them. */
const SimulatedServiceSchema = z
  .object({
    namespace: z.string(),
    name: z.string(),
    routing: z.string().describe('the routing mode the analysis used (`None` without one)'),
    hints: z.object({ state: HintStateSchema, reason: z.string().nullable() }),
    zones: z.record(z.string(), SimulatedZoneSchema).describe('by zone name'),
    crossZone: z.object({ withoutHints: z.number(), withHints: z.number() }),
    readyEndpoints: z.number().int(),
  })
  .loose();

/** The answer of `POST /v1/clusters/{id}/simulate`. */
export const ClusterSimulationSchema = z.object({
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  snapshotId: z.uuid(),
  capturedAt: isoDate,
  analysis: z
    .object({ services: z.array(SimulatedServiceSchema) })
    .loose()
    .describe('the `zonewise analyze` JSON (docs/cli.md) of the snapshot with the what-ifs applied'),
});
