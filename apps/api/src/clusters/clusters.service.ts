import { Inject, Injectable } from '@nestjs/common';
import {
  agentTokenOf,
  type AnalysisSettingsRow,
  type AuditActor,
  type Cloud,
  clusterViewById,
  clusterViewOf,
  type ClusterViewRow,
  clusterViewsOf,
  deleteCluster,
  insertCluster,
  issueAgentToken,
  newestAnalysisSettings,
  organizationClusterNameOf,
  Prisma,
  PrismaService,
  recordAudit,
  updateCluster,
} from '@zw/db';
import type { z } from 'zod';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import { ReadModelCache } from '../cache/read-model-cache.js';
import { clusterNotFound, ProblemException } from '../problem.js';
import { clusterPricing } from '../cluster-pricing.js';
import { analysisSettingsView } from './analysis-settings.js';
import type {
  ClusterListView,
  ClusterView,
  CreateClusterBody,
  CreatedClusterView,
  ListClustersQuery,
  RotatedTokenView,
  UpdateClusterBody,
} from './clusters.schemas.js';

const NO_ANALYSIS: AnalysisSettingsRow = {
  capturedAt: null,
  kubernetesVersion: null,
  kubernetesVersionSource: null,
  dataPlane: null,
  dataPlaneSource: null,
};

function decimalOrNull(value: Prisma.Decimal | null): number | null {
  return value === null ? null : Number(value);
}

export function clusterView(row: ClusterViewRow, analysis: AnalysisSettingsRow = NO_ANALYSIS): ClusterView {
  const override = row.crossZonePricePerGb === null ? null : Number(row.crossZonePricePerGb);
  return {
    id: row.id,
    name: row.name,
    cloud: row.cloud,
    region: row.region,
    kubernetesVersion: row.kubernetesVersion,
    dataPlane: row.dataPlane,
    labels: row.labels as Record<string, string>,
    analysisSettings: analysisSettingsView(analysis),
    pricing: clusterPricing({
      cloud: row.cloud,
      region: row.region,
      crossZonePricePerGb: override,
      organizationPricePerGb: decimalOrNull(row.organization.crossZonePricePerGb),
    }),
    agentToken: row.agentToken
      ? {
          prefix: row.agentToken.tokenPrefix,
          createdAt: row.agentToken.createdAt.toISOString(),
          rotatedAt: row.agentToken.rotatedAt?.toISOString() ?? null,
        }
      : null,
    trafficSource: row.trafficSource
      ? {
          preset: row.trafficSource.preset,
          status: row.trafficSource.status,
          lastError: row.trafficSource.lastError,
          lastSuccessAt: row.trafficSource.lastSuccessAt?.toISOString() ?? null,
        }
      : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function duplicateName(error: unknown, name: string | undefined): never {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
    throw new ProblemException(409, `this organization already has a cluster named "${name}"`, { field: 'name' });
  }
  throw error;
}

/** Clusters of one organization. Every method takes the caller's organization: other tenants' ids are 404. */
@Injectable()
export class ClustersService {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ReadModelCache) private readonly cache: ReadModelCache,
  ) {}

  async create(
    organizationId: string,
    body: z.output<typeof CreateClusterBody>,
    actor: AuditActor,
  ): Promise<CreatedClusterView> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const id = await insertCluster(tx, {
          organizationId,
          name: body.name,
          cloud: body.cloud as Cloud,
          region: body.region ?? null,
          kubernetesVersion: body.kubernetesVersion ?? null,
          dataPlane: body.dataPlane ?? null,
          crossZonePricePerGb: body.crossZonePricePerGb ?? null,
          labels: body.labels ?? {},
        });
        const agentToken = await issueAgentToken(tx, id);
        const row = await clusterViewById(tx, id);
        await recordAudit(tx, actor, {
          organizationId,
          action: 'cluster.create',
          targetType: 'cluster',
          targetId: id,
          details: {
            name: body.name,
            cloud: body.cloud,
            region: body.region ?? null,
            kubernetesVersion: body.kubernetesVersion ?? null,
            dataPlane: body.dataPlane ?? null,
            crossZonePricePerGb: body.crossZonePricePerGb ?? null,
            labels: body.labels ?? {},
          },
        });
        return { cluster: clusterView(row), agentToken };
      });
    } catch (error) {
      duplicateName(error, body.name);
    } finally {
      await this.cache.changed({ organizationId });
    }
  }

  async list(organizationId: string, query: z.output<typeof ListClustersQuery>): Promise<ClusterListView> {
    const print = fingerprint(['clusters']);
    const after = decodeCursor(query.cursor, print);
    const rows = await clusterViewsOf(this.prisma, organizationId, {
      after: after ? String(after.k[0]) : null,
      take: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const more = rows.length > query.limit;
    const analyses = await newestAnalysisSettings(
      this.prisma,
      page.map((row) => row.id),
    );
    return {
      clusters: page.map((row) => clusterView(row, analyses.get(row.id))),
      nextCursor: more ? encodeCursor({ f: print, k: [page[page.length - 1].name] }) : null,
    };
  }

  async get(organizationId: string, id: string): Promise<ClusterView> {
    const row = await clusterViewOf(this.prisma, organizationId, id);
    if (!row) throw clusterNotFound(id);
    return clusterView(row, (await newestAnalysisSettings(this.prisma, [id])).get(id));
  }

  /**
   * Changes a cluster; the audit log gets a `cluster.update` and, for a new price, a `cluster.price_change`.
   * New overrides of the Kubernetes version or data plane apply from the cluster's next snapshot.
   */
  async update(
    organizationId: string,
    id: string,
    body: z.output<typeof UpdateClusterBody>,
    actor: AuditActor,
  ): Promise<ClusterView> {
    try {
      await this.prisma.$transaction(async (tx) => {
        const before = await clusterViewOf(tx, organizationId, id);
        if (!before) throw clusterNotFound(id);
        await updateCluster(tx, id, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.cloud !== undefined ? { cloud: body.cloud as Cloud } : {}),
          ...(body.region !== undefined ? { region: body.region } : {}),
          ...(body.kubernetesVersion !== undefined ? { kubernetesVersion: body.kubernetesVersion } : {}),
          ...(body.dataPlane !== undefined ? { dataPlane: body.dataPlane } : {}),
          ...(body.crossZonePricePerGb !== undefined ? { crossZonePricePerGb: body.crossZonePricePerGb } : {}),
          ...(body.labels !== undefined ? { labels: body.labels } : {}),
        });
        const { crossZonePricePerGb, ...rest } = body;
        const target = { organizationId, targetType: 'cluster', targetId: id };
        if (Object.values(rest).some((value) => value !== undefined)) {
          const changes = Object.fromEntries(
            Object.entries(rest)
              .filter(([, value]) => value !== undefined)
              .map(([field, value]) => [field, { from: before[field as keyof typeof rest] ?? null, to: value }]),
          );
          await recordAudit(tx, actor, {
            ...target,
            action: 'cluster.update',
            details: { name: before.name, changes },
          });
        }
        if (crossZonePricePerGb !== undefined) {
          const from = before.crossZonePricePerGb === null ? null : Number(before.crossZonePricePerGb);
          await recordAudit(tx, actor, {
            ...target,
            action: 'cluster.price_change',
            details: { name: before.name, crossZonePricePerGb: { from, to: crossZonePricePerGb } },
          });
        }
      });
    } catch (error) {
      duplicateName(error, body.name);
    }
    await this.cache.changed({ organizationId, clusterId: id });
    return this.get(organizationId, id);
  }

  async rotateToken(organizationId: string, id: string, actor: AuditActor): Promise<RotatedTokenView> {
    return this.prisma.$transaction(async (tx) => {
      const name = await organizationClusterNameOf(tx, organizationId, id);
      if (name === null) throw clusterNotFound(id);
      const agentToken = await issueAgentToken(tx, id);
      const row = await agentTokenOf(tx, id);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'cluster.agent_token_rotate',
        targetType: 'cluster',
        targetId: id,
        details: { name, tokenPrefix: row.tokenPrefix },
      });
      return { agentToken, prefix: row.tokenPrefix, rotatedAt: (row.rotatedAt ?? row.createdAt).toISOString() };
    });
  }

  /** Deletes the cluster with its token, snapshots and history (foreign keys cascade). */
  async delete(organizationId: string, id: string, actor: AuditActor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const name = await organizationClusterNameOf(tx, organizationId, id);
      if (name === null) throw clusterNotFound(id);
      await deleteCluster(tx, id);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'cluster.delete',
        targetType: 'cluster',
        targetId: id,
        details: { name },
      });
    });
    await this.cache.changed({ organizationId, clusterId: id });
  }
}
