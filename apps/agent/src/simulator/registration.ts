import { createPrismaClient, findCluster, issueAgentToken, registerCluster } from '@zw/db';
import type { ClusterScenario } from './fleet.js';

/**
 * Creates the demo clusters (and their organization) with the same functions `npm run cluster:create`
 * uses (apps/api/src/admin-cli.ts). A cluster that already exists gets a new token, as
 * `npm run cluster:rotate-token` would give it: the simulator never sees stored tokens, only new ones.
 * The clusters get no overrides: their Kubernetes version and data plane come in their snapshots, as a
 * real agent reports them.
 */
export async function ensureClusters(
  databaseUrl: string,
  organizationSlug: string,
  scenarios: readonly ClusterScenario[],
): Promise<Map<string, { clusterId: string; agentToken: string }>> {
  const prisma = createPrismaClient({ databaseUrl, poolMax: 1 });
  const clusters = new Map<string, { clusterId: string; agentToken: string }>();
  try {
    for (const scenario of scenarios) {
      const existing = await findCluster(prisma, organizationSlug, scenario.name);
      if (existing) {
        clusters.set(scenario.name, { clusterId: existing.id, agentToken: await issueAgentToken(prisma, existing.id) });
        continue;
      }
      const { cluster, agentToken } = await registerCluster(prisma, {
        organizationSlug,
        name: scenario.name,
        cloud: scenario.cloud,
        region: scenario.region,
        crossZonePricePerGb: scenario.crossZonePricePerGb,
      });
      clusters.set(scenario.name, { clusterId: cluster.id, agentToken });
    }
  } finally {
    await prisma.$disconnect();
  }
  return clusters;
}
