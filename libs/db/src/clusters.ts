import { issueAgentToken } from './agent-tokens.js';
import { type AuditActor, recordAudit } from './audit-log.js';
import type { Db } from './db-client.js';
import type { Cloud, Cluster, PrismaClient } from './generated/prisma/client.js';

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
