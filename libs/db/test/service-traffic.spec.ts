import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCluster, repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import { serviceTrafficOf, setServiceTraffic } from '../src/index.js';

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_service_traffic');
});

afterAll(async () => {
  await db?.drop();
});

describe('serviceTrafficOf and setServiceTraffic', () => {
  it("read and set the monthly traffic of the cluster's own Service, not of the same name elsewhere", async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'traffic', name: 'a' });
    const { clusterId: other } = await addCluster(db.prisma, { organizationSlug: 'traffic-too', name: 'b' });
    const service = { namespace: 'shop', name: 'cart' };
    const { id } = await db.prisma.clusterService.create({ data: { clusterId, ...service } });
    const { id: otherId } = await db.prisma.clusterService.create({ data: { clusterId: other, ...service } });

    expect(await serviceTrafficOf(db.prisma, clusterId, 'shop', 'cart')).toEqual({ id, monthlyTrafficGb: null });
    expect(await serviceTrafficOf(db.prisma, clusterId, 'shop', 'checkout')).toBeNull();
    await setServiceTraffic(db.prisma, id, 120.5);
    expect(await serviceTrafficOf(db.prisma, clusterId, 'shop', 'cart')).toEqual({ id, monthlyTrafficGb: 120.5 });
    expect(await serviceTrafficOf(db.prisma, other, 'shop', 'cart')).toEqual({ id: otherId, monthlyTrafficGb: null });
    await setServiceTraffic(db.prisma, id, null);
    expect((await serviceTrafficOf(db.prisma, clusterId, 'shop', 'cart'))?.monthlyTrafficGb).toBeNull();
  });
});
