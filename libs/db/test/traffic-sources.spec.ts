import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCluster, repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import {
  clustersWithTrafficSource,
  deleteTrafficSource,
  saveTrafficSource,
  trafficSourceOf,
  trafficSourceSchedule,
  trafficSourceSchedules,
} from '../src/index.js';

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_traffic_sources');
});

afterAll(async () => {
  await db?.drop();
});

const SOURCE = { preset: 'istio', url: 'http://prometheus:9090', windowSeconds: 3600 };

describe('clustersWithTrafficSource', () => {
  it('names the clusters asked about that have a traffic source, and no other', async () => {
    const measured = await addCluster(db.prisma, { organizationSlug: 'sources', name: 'measured' });
    const modelled = await addCluster(db.prisma, { organizationSlug: 'sources', name: 'modelled' });
    const notAsked = await addCluster(db.prisma, { organizationSlug: 'sources', name: 'not-asked' });
    for (const { clusterId } of [measured, notAsked]) {
      await db.prisma.clusterTrafficSource.create({
        data: { clusterId, ...SOURCE, intervalSeconds: 300 },
      });
    }

    const found = await clustersWithTrafficSource(db.readDb, [measured.clusterId, modelled.clusterId]);

    expect([...found]).toEqual([measured.clusterId]);
    expect(await clustersWithTrafficSource(db.readDb, [])).toEqual(new Set());
  });
});

describe('trafficSourceOf and its schedules', () => {
  it("reads the cluster's own source and schedule, never another cluster's", async () => {
    const measured = await addCluster(db.prisma, { organizationSlug: 'schedules', name: 'measured' });
    const other = await addCluster(db.prisma, { organizationSlug: 'schedules-too', name: 'other' });
    const modelled = await addCluster(db.prisma, { organizationSlug: 'schedules', name: 'modelled' });
    await db.prisma.clusterTrafficSource.create({
      data: { clusterId: measured.clusterId, ...SOURCE, intervalSeconds: 300 },
    });
    await db.prisma.clusterTrafficSource.create({
      data: { clusterId: other.clusterId, ...SOURCE, intervalSeconds: 600 },
    });

    expect(await trafficSourceOf(db.prisma, measured.clusterId)).toMatchObject({
      clusterId: measured.clusterId,
      intervalSeconds: 300,
      status: 'pending',
    });
    expect(await trafficSourceOf(db.prisma, modelled.clusterId)).toBeNull();
    expect(await trafficSourceSchedule(db.prisma, other.clusterId)).toEqual({
      clusterId: other.clusterId,
      intervalSeconds: 600,
    });
    expect(await trafficSourceSchedule(db.prisma, modelled.clusterId)).toBeNull();
    expect(await trafficSourceSchedules(db.prisma)).toEqual(
      expect.arrayContaining([
        { clusterId: measured.clusterId, intervalSeconds: 300 },
        { clusterId: other.clusterId, intervalSeconds: 600 },
      ]),
    );
    expect((await trafficSourceSchedules(db.prisma)).some((s) => s.clusterId === modelled.clusterId)).toBe(false);
  });
});

describe('saveTrafficSource and deleteTrafficSource', () => {
  it("create, replace and remove the cluster's own source, no other cluster's", async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'saved', name: 'a' });
    const { clusterId: other } = await addCluster(db.prisma, { organizationSlug: 'saved', name: 'b' });
    await saveTrafficSource(db.prisma, other, { ...SOURCE, intervalSeconds: 300 });

    const created = await saveTrafficSource(db.prisma, clusterId, { ...SOURCE, intervalSeconds: 300 });
    const replaced = await saveTrafficSource(db.prisma, clusterId, {
      ...SOURCE,
      preset: 'linkerd',
      intervalSeconds: 900,
      status: 'pending',
      lastError: null,
    });

    expect(created).toMatchObject({ clusterId, preset: 'istio', intervalSeconds: 300 });
    expect(replaced).toMatchObject({
      clusterId,
      preset: 'linkerd',
      intervalSeconds: 900,
      createdAt: created.createdAt,
    });
    expect(await deleteTrafficSource(db.prisma, clusterId)).toBe(true);
    expect(await deleteTrafficSource(db.prisma, clusterId)).toBe(false);
    expect(await trafficSourceOf(db.prisma, clusterId)).toBeNull();
    expect(await trafficSourceOf(db.prisma, other)).toMatchObject({ clusterId: other, intervalSeconds: 300 });
  });
});
