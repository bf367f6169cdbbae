import { z } from 'zod';
import { isoDate } from '../http/schemas.js';

export const AtQuery = z
  .object({
    at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('as of this instant (the newest snapshot captured at or before it); default: the newest'),
  })
  .strict();

export const ZoneStatsSchema = z.object({
  name: z.string(),
  cpuShare: z.number().nullable().describe("share of the cluster's allocatable CPU (the controller's ratio)"),
  allocatableCpuMillis: z.number().nullable(),
  readyNodes: z.number().int().nullable(),
  trafficShare: z.number().nullable().describe('share of requests assumed to originate in the zone'),
  readyEndpoints: z.number().int().describe('ready endpoints located in the zone'),
  hintedEndpoints: z.number().int().describe('endpoints hinted for the zone (Services with populated hints)'),
  expectedOverload: z.object({
    max: z.number(),
    maxService: z.string().nullable(),
    mean: z.number().nullable(),
    servicesAboveThreshold: z.number().int().describe("Services over the controller's 20 % overload threshold here"),
  }),
});

const snapshotRef = {
  cluster: z.object({ id: z.uuid(), name: z.string() }),
  asOf: isoDate.nullable().describe('captured-at of the snapshot described (null before the first one)'),
  snapshotId: z.uuid().nullable(),
};

export const ZonesSchema = z.object({
  ...snapshotRef,
  nodeInfo: z.object({ sufficient: z.boolean().nullable(), reason: z.string().nullable() }),
  zones: z.array(ZoneStatsSchema),
});

// The sub-objects of the core's `ServiceCidrReport` (cidr-bands.ts, cluster-ips.ts), typed for the document.
const AddressBandSchema = z
  .object({ first: z.string().describe('first address of the band'), last: z.string() })
  .nullable()
  .describe('null when the CIDR is too small to have this band');

const ConflictSchema = z.object({
  kind: z.enum(['duplicate-cluster-ip', 'outside-service-cidrs', 'invalid-cluster-ip']),
  ip: z.string(),
  services: z.array(z.string()).describe('`namespace/name` of every Service holding the address'),
  message: z.string(),
});

const RiskSchema = z.object({
  kind: z.enum(['static-ip-in-dynamic-band']),
  ip: z.string(),
  service: z.string().nullable().describe('`namespace/name`, or null for an address of `requestedStaticIPs`'),
  staticBecause: z.enum(['last-applied', 'annotation', 'cluster-dns', 'kubernetes-api', 'requested']),
  message: z.string(),
});

const WellKnownSchema = z.object({
  ip: z.string(),
  purpose: z.string(),
  band: z.enum(['static', 'dynamic']).nullable(),
  free: z.boolean().describe('a static request for this address would succeed now'),
  heldBy: z.array(z.string()),
  error: z.string().optional().describe("the apiserver's error for a static request of this address"),
});

export const ServiceCidrsSchema = z.object({
  ...snapshotRef,
  serviceCIDRs: z
    .array(
      z
        .object({
          cidr: z.string(),
          family: z.string(),
          staticBand: AddressBandSchema,
          dynamicBand: AddressBandSchema,
          allocated: z.object({ static: z.number(), dynamic: z.number(), total: z.number() }),
          free: z.object({ static: z.union([z.number(), z.string()]), dynamic: z.union([z.number(), z.string()]) }),
          utilization: z.number(),
          conflicts: z.array(ConflictSchema),
          risks: z.array(RiskSchema).describe('static ClusterIPs in the dynamic band'),
          wellKnown: z.array(WellKnownSchema).describe('well-known addresses (DNS, API) and whether each is free'),
        })
        .loose(),
    )
    .describe('the `serviceCIDRs` of `zonewise analyze`: bands, utilization, risks, free well-known IPs'),
});
