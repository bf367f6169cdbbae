import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCluster, repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import { clustersWithTrafficSource } from '../src/index.js';

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_traffic_sources');
});

afterAll(async () => {
  await db?.drop();
});

describe('clustersWithTrafficSource', () => {
  it('names the clusters asked about that have a traffic source, and no other', async () => {
    const measured = await addCluster(db.prisma, { organizationSlug: 'sources', name: 'measured' });
    const modelled = await addCluster(db.prisma, { organizationSlug: 'sources', name: 'modelled' });
    const notAsked = await addCluster(db.prisma, { organizationSlug: 'sources', name: 'not-asked' });
    for (const { clusterId } of [measured, notAsked]) {
      await db.prisma.clusterTrafficSource.create({
        data: { clusterId, preset: 'istio', url: 'http://prometheus:9090', windowSeconds: 3600, intervalSeconds: 300 },
      });
    }

    const found = await clustersWithTrafficSource(db.readDb, [measured.clusterId, modelled.clusterId]);

    expect([...found]).toEqual([measured.clusterId]);
    expect(await clustersWithTrafficSource(db.readDb, [])).toEqual(new Set());
  });
});
