import { issueAgentToken } from './agent-tokens.js';
import { type AuditActor, recordAudit } from './audit-log.js';
import type { Db } from './db-client.js';
import type { Cloud, Cluster, Prisma, PrismaClient } from './generated/prisma/client.js';
import type { ReadDb } from './read-db.js';

export interface RegisterClusterInput {
  organizationSlug: string;
  /** Used when the organization does not exist yet; defaults to the slug. */
  organizationName?: string;
  name: string;
  cloud?: Cloud;
  region?: string | null;
  kubernetesVersion?: string | null;
  /** Decimal string or number, e.g. "0.01". */
  crossZonePricePerGb?: string | number | null;
}

export interface RegisteredCluster {
  cluster: Cluster;
  /** Plaintext agent token: shown once. */
  agentToken: string;
}

/**
 * Creates a cluster (and its organization if new) with its agent token, in one transaction; with an
 * actor, the audit entry (`cluster.create`) is written in it too.
 */
export async function registerCluster(
  prisma: PrismaClient,
  input: RegisterClusterInput,
  actor?: AuditActor,
): Promise<RegisteredCluster> {
  return prisma.$transaction(async (tx) => {
    const organization = await tx.organization.upsert({
      where: { slug: input.organizationSlug },
      create: { slug: input.organizationSlug, name: input.organizationName ?? input.organizationSlug },
      update: {},
    });
    const cluster = await tx.cluster.create({
      data: {
        organizationId: organization.id,
        name: input.name,
        cloud: input.cloud,
        region: input.region ?? null,
        kubernetesVersion: input.kubernetesVersion ?? null,
        crossZonePricePerGb: input.crossZonePricePerGb ?? null,
      },
    });
    const agentToken = await issueAgentToken(tx, cluster.id);
    if (actor) {
      await recordAudit(tx, actor, {
        organizationId: organization.id,
        action: 'cluster.create',
        targetType: 'cluster',
        targetId: cluster.id,
        details: {
          name: cluster.name,
          cloud: cluster.cloud,
          region: cluster.region,
          crossZonePricePerGb: cluster.crossZonePricePerGb === null ? null : Number(cluster.crossZonePricePerGb),
        },
      });
    }
    return { cluster, agentToken };
  });
}

export async function findCluster(db: Db, organizationSlug: string, name: string): Promise<Cluster | null> {
  return db.cluster.findFirst({ where: { name, organization: { slug: organizationSlug } } });
}

/** The settings a cluster's newest recorded analysis used (its snapshot summary's columns). */
export interface AnalysisSettingsRow {
  capturedAt: Date | null;
  kubernetesVersion: string | null;
  kubernetesVersionSource: string | null;
  dataPlane: string | null;
  dataPlaneSource: string | null;
}

/** The settings of each cluster's newest recorded analysis: one index probe per cluster, one statement. */
export async function newestAnalysisSettings(db: Db, clusterIds: string[]): Promise<Map<string, AnalysisSettingsRow>> {
  if (clusterIds.length === 0) return new Map();
  const rows = await db.$queryRaw<(AnalysisSettingsRow & { clusterId: string })[]>`
    SELECT c.id::text AS "clusterId", m.captured_at AS "capturedAt", m.kubernetes_version AS "kubernetesVersion",
           m.kubernetes_version_source AS "kubernetesVersionSource", m.data_plane AS "dataPlane",
           m.data_plane_source AS "dataPlaneSource"
      FROM unnest(${clusterIds}::uuid[]) AS c(id)
      JOIN LATERAL (SELECT * FROM snapshot_summaries s WHERE s.cluster_id = c.id
                     ORDER BY s.captured_at DESC LIMIT 1) m ON true`;
  return new Map(rows.map(({ clusterId, ...settings }) => [clusterId, settings]));
}

/** What a cluster's price per cross-zone GB is made of: its cloud and region, its and its organization's price. */
export interface ClusterPriceRow {
  id: string;
  name: string;
  cloud: Cloud;
  region: string | null;
  price_override: number | null;
  org_price_override: number | null;
}

/** An organization's clusters (or the one named, when it is the organization's) by name, with their prices. */
export async function clusterPriceRows(
  db: ReadDb,
  organizationId: string,
  clusterId?: string,
): Promise<ClusterPriceRow[]> {
  return db.query<ClusterPriceRow>(
    `SELECT id::text, name, cloud::text, region, cross_zone_price_per_gb::float8 AS price_override,
            (SELECT o.cross_zone_price_per_gb FROM organizations o WHERE o.id = clusters.organization_id)::float8 AS org_price_override
       FROM clusters WHERE organization_id = $1 AND ($2::uuid IS NULL OR id = $2) ORDER BY name`,
    [organizationId, clusterId ?? null],
  );
}

/**
 * The organization a cluster belongs to; null when there is no such cluster (or it is gone). Read on the
 * primary: asked once per cluster (the API's live events remember it) or once per recorded snapshot
 * (the worker's alert evaluation), right after the cluster's rows were written.
 */
export async function organizationOfCluster(db: Db, clusterId: string): Promise<string | null> {
  const cluster = await db.cluster.findUnique({ where: { id: clusterId }, select: { organizationId: true } });
  return cluster?.organizationId ?? null;
}

/** Which of these clusters are the organization's (others' ids and unknown ids are left out). */
export async function ownedClusterIds(
  db: Db,
  organizationId: string,
  clusterIds: readonly string[],
): Promise<string[]> {
  const owned = await db.cluster.findMany({
    where: { organizationId, id: { in: [...clusterIds] } },
    select: { id: true },
  });
  return owned.map((cluster) => cluster.id);
}

/** How many of these clusters are the organization's. */
export function countOwnedClusters(db: Db, organizationId: string, clusterIds: readonly string[]): Promise<number> {
  return db.cluster.count({ where: { organizationId, id: { in: [...clusterIds] } } });
}

/** A cluster's columns as its view shows them: its token's prefix and age, its traffic source's state, prices. */
export const CLUSTER_VIEW_COLUMNS = {
  id: true,
  name: true,
  cloud: true,
  region: true,
  kubernetesVersion: true,
  dataPlane: true,
  crossZonePricePerGb: true,
  labels: true,
  createdAt: true,
  updatedAt: true,
  agentToken: { select: { tokenPrefix: true, createdAt: true, rotatedAt: true } },
  trafficSource: { select: { preset: true, status: true, lastError: true, lastSuccessAt: true } },
  organization: { select: { crossZonePricePerGb: true } },
} satisfies Prisma.ClusterSelect;

export type ClusterViewRow = Prisma.ClusterGetPayload<{ select: typeof CLUSTER_VIEW_COLUMNS }>;

/** The organization's clusters by name, `take` at most, after the name `after` when given. */
export function clusterViewsOf(db: Db, organizationId: string, page: { after?: string | null; take: number }) {
  return db.cluster.findMany({
    where: { organizationId, ...(typeof page.after === 'string' ? { name: { gt: page.after } } : {}) },
    orderBy: { name: 'asc' },
    take: page.take,
    select: CLUSTER_VIEW_COLUMNS,
  });
}

export function clusterViewOf(db: Db, organizationId: string, id: string) {
  return db.cluster.findFirst({ where: { id, organizationId }, select: CLUSTER_VIEW_COLUMNS });
}

/** A cluster's name, or null when there is no such cluster (or it is gone). */
export async function clusterNameOf(db: Db, clusterId: string): Promise<string | null> {
  const cluster = await db.cluster.findUnique({ where: { id: clusterId }, select: { name: true } });
  return cluster?.name ?? null;
}

/** Creates a cluster of the organization (no agent token yet); its id. Fails with Prisma's P2002 when the organization has a cluster of that name. */
export async function insertCluster(db: Db, cluster: Omit<Prisma.ClusterUncheckedCreateInput, 'id'>): Promise<string> {
  const { id } = await db.cluster.create({ data: cluster, select: { id: true } });
  return id;
}

/** A cluster's view row by id alone, for the cluster just written; fails with Prisma's P2025 when it is gone. */
export function clusterViewById(db: Db, id: string) {
  return db.cluster.findUniqueOrThrow({ where: { id }, select: CLUSTER_VIEW_COLUMNS });
}

/** Changes a cluster's columns (the caller found it the organization's); fails with P2002 on a name taken. */
export async function updateCluster(db: Db, id: string, changes: Prisma.ClusterUpdateInput): Promise<void> {
  await db.cluster.update({ where: { id }, data: changes });
}

/** The name of the organization's cluster, or null when it has no such cluster. */
export async function organizationClusterNameOf(db: Db, organizationId: string, id: string): Promise<string | null> {
  const cluster = await db.cluster.findFirst({ where: { id, organizationId }, select: { name: true } });
  return cluster?.name ?? null;
}

/** Deletes a cluster with its token, snapshots and history (foreign keys cascade). */
export async function deleteCluster(db: Db, id: string): Promise<void> {
  await db.cluster.delete({ where: { id } });
}
