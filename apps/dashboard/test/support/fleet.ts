import type { PrismaClient } from '@zw/db';

const CLOUDS = ['aws', 'gcp', 'azure'] as const;
const REGIONS: Record<(typeof CLOUDS)[number], string[]> = {
  aws: ['eu-west-1', 'us-east-1'],
  gcp: ['europe-west1'],
  azure: ['westeurope'],
};
const ENVS = ['prod', 'staging', 'dev'];

export interface SeededCluster {
  name: string;
  cloud: (typeof CLOUDS)[number];
  region: string;
  labels: { env: string; team: string };
}

/**
 * A fleet of `count` registered clusters in one organization, written in one statement (registering them
 * one by one through the API would take minutes for a page that reads them in one answer): clouds,
 * regions and `env`/`team` labels in turn, so every grouping has several groups. No agent has pushed yet.
 */
export async function seedFleet(prisma: PrismaClient, organizationId: string, count: number): Promise<SeededCluster[]> {
  const clusters = Array.from({ length: count }, (_, index): SeededCluster => {
    const cloud = CLOUDS[index % CLOUDS.length];
    const regions = REGIONS[cloud];
    return {
      name: `fleet-${String(index).padStart(4, '0')}`,
      cloud,
      region: regions[Math.floor(index / CLOUDS.length) % regions.length],
      labels: { env: ENVS[(index % 7) % ENVS.length], team: `team-${index % 4}` },
    };
  });
  await prisma.cluster.createMany({ data: clusters.map((cluster) => ({ ...cluster, organizationId })) });
  return clusters;
}
