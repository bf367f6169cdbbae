import { DATA_PLANE_NAMES, KUBERNETES_VERSION_PATTERN } from '@zw/core';
import { z } from 'zod';
import { CloudSchema, isoDate } from '../http/schemas.js';
import { cursorSchema, limitSchema } from '../http/pagination.js';

const clusterName = z
  .string()
  .min(1)
  .max(100)
  .regex(
    /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/,
    'letters, digits, ".", "_" and "-", starting and ending alphanumeric',
  );
const region = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9-]+$/, 'letters, digits and "-" (e.g. eu-west-1)');
const price = z
  .number()
  .min(0)
  .max(10)
  .describe('USD per GB of cross-zone traffic, overriding the cloud list price; null to use the list price');

const kubernetesVersion = z
  .string()
  .regex(KUBERNETES_VERSION_PATTERN, 'MAJOR.MINOR of the control plane, e.g. "1.31"')
  .describe(
    'the Kubernetes version (MAJOR.MINOR) the analysis uses for this cluster, overriding what its agent reports; null: what the agent reports',
  );
const dataPlane = z
  .enum(DATA_PLANE_NAMES, { message: `one of ${DATA_PLANE_NAMES.join(', ')}` })
  .describe(
    "what routes the cluster's Service traffic, overriding what its agent detects; null: what the agent detects",
  );

/** Kubernetes' label syntax (an optional DNS-subdomain prefix and `/`, a name of up to 63 characters). */
const LABEL_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
export const MAX_CLUSTER_LABELS = 20;
const labels = z
  .record(
    z.string().max(253).regex(LABEL_NAME, 'a label key as Kubernetes writes them (e.g. env, team, example.com/tier)'),
    z.string().max(63).regex(LABEL_VALUE, 'a label value as Kubernetes writes them: letters, digits, "-", "_", "."'),
  )
  .refine((value) => Object.keys(value).length <= MAX_CLUSTER_LABELS, {
    message: `at most ${MAX_CLUSTER_LABELS} labels`,
  })
  .describe('your own labels for the cluster (env, team, tier…): the dashboard groups the fleet by them');

export const CreateClusterBody = z
  .object({
    name: clusterName.describe('unique within the organization'),
    cloud: CloudSchema.default('other'),
    region: region.nullable().optional(),
    kubernetesVersion: kubernetesVersion.nullable().optional(),
    dataPlane: dataPlane.nullable().optional(),
    crossZonePricePerGb: price.nullable().optional(),
    labels: labels.optional(),
  })
  .strict();

export const UpdateClusterBody = z
  .object({
    name: clusterName.optional(),
    cloud: CloudSchema.optional(),
    region: region.nullable().optional(),
    kubernetesVersion: kubernetesVersion.nullable().optional(),
    dataPlane: dataPlane.nullable().optional(),
    crossZonePricePerGb: price.nullable().optional(),
    labels: labels.optional().describe('replaces every label of the cluster ({} removes them all)'),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'nothing to change: send at least one field' });

export const ListClustersQuery = z
  .object({
    limit: limitSchema(100, 1000),
    cursor: cursorSchema,
  })
  .strict();

export const PricingSchema = z
  .object({
    pricePerGb: z.number().describe('USD per cross-zone GB used for every cost of this cluster'),
    currency: z.literal('USD'),
    source: z
      .enum([
        'cluster-override',
        'organization-override',
        'provider-region',
        'provider-default',
        'unknown-cloud-default',
      ])
      .describe(
        "`cluster-override`: set for this cluster; `organization-override`: set for the organization (PUT /v1/pricing); `provider-region`: the catalogue's price for this cloud and region; `provider-default`: the cloud's catalogue price, region not in the catalogue (on-prem: 0); `unknown-cloud-default`: no known cloud, priced like AWS (an estimate)",
      ),
    note: z.string().describe('how the price was chosen'),
    overridePerGb: z.number().nullable().describe("the cluster's own price, when set"),
  })
  .describe('the price per cross-zone GB and where it comes from');

const SettingSource = z
  .enum(['override', 'snapshot', 'default'])
  .describe(
    "`override`: the cluster's, set through the API; `snapshot`: what the agent reported in the snapshot; `default`: neither, the analysis' own default",
  );

export const AnalysisSettingsSchema = z
  .object({
    asOf: isoDate.describe('captured-at of the snapshot'),
    kubernetesVersion: z
      .string()
      .nullable()
      .describe('MAJOR.MINOR the analysis modelled; null when the analysis took its default without naming it'),
    kubernetesVersionSource: SettingSource,
    dataPlane: z.string().nullable().describe('the data plane the analysis modelled; null as for the version'),
    dataPlaneSource: SettingSource,
  })
  .nullable()
  .describe('the Kubernetes version and data plane the newest recorded analysis used, and where each came from');

export const ClusterSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  cloud: CloudSchema,
  region: z.string().nullable(),
  kubernetesVersion: z
    .string()
    .nullable()
    .describe("override of the Kubernetes version (MAJOR.MINOR); null: the agent's report is used"),
  dataPlane: z.string().nullable().describe("override of the data plane; null: the agent's detection is used"),
  labels: z.record(z.string(), z.string()).describe('your own labels for the cluster'),
  analysisSettings: AnalysisSettingsSchema,
  pricing: PricingSchema,
  agentToken: z
    .object({ prefix: z.string(), createdAt: isoDate, rotatedAt: isoDate.nullable() })
    .nullable()
    .describe('the agent token, identified by its first characters (the secret is shown only when issued)'),
  trafficSource: z
    .object({
      preset: z.string(),
      status: z.string(),
      lastError: z.string().nullable(),
      lastSuccessAt: isoDate.nullable(),
    })
    .nullable()
    .describe('the Prometheus traffic source and its status (details: GET /v1/clusters/{id}/traffic-source)'),
  createdAt: isoDate,
  updatedAt: isoDate,
});

export const CreatedClusterSchema = z.object({
  cluster: ClusterSchema,
  agentToken: z.string().describe('the agent token, shown only in this answer: configure the cluster agent with it'),
});

export const ClusterListSchema = z.object({
  clusters: z.array(ClusterSchema),
  nextCursor: z.string().nullable(),
});

export const RotatedTokenSchema = z.object({
  agentToken: z.string().describe('the new agent token; the previous one stops working now'),
  prefix: z.string(),
  rotatedAt: isoDate,
});

export type ClusterView = z.output<typeof ClusterSchema>;
export type CreatedClusterView = z.output<typeof CreatedClusterSchema>;
export type ClusterListView = z.output<typeof ClusterListSchema>;
export type RotatedTokenView = z.output<typeof RotatedTokenSchema>;
