import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCluster,
  addSnapshot,
  addSummary,
  repositoryDatabase,
  type RepositoryDatabase,
} from '../../../test/support/repositories.js';
import {
  agentTokenOf,
  clusterNameOf,
  clusterViewById,
  clusterPriceRows,
  clusterViewOf,
  clusterViewsOf,
  deleteCluster,
  insertCluster,
  issueAgentToken,
  newestAnalysisSettings,
  organizationClusterNameOf,
  organizationOfCluster,
  updateCluster,
} from '../src/index.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_clusters');
});

afterAll(async () => {
  await db?.drop();
});

async function recorded(clusterId: string, minute: number, settings: Parameters<typeof addSummary>[2]) {
  const id = await addSnapshot(db.prisma, clusterId, { capturedAt: at(minute), status: 'processed' });
  await addSummary(db.prisma, { id, clusterId, capturedAt: at(minute) }, settings);
}

describe('newestAnalysisSettings', () => {
  it("reads each cluster's newest recorded analysis settings, and nothing for a cluster without one", async () => {
    const { clusterId: a } = await addCluster(db.prisma, { organizationSlug: 'settings', name: 'a' });
    const { clusterId: b } = await addCluster(db.prisma, { organizationSlug: 'settings', name: 'b' });
    const { clusterId: none } = await addCluster(db.prisma, { organizationSlug: 'settings', name: 'none' });
    await recorded(a, 0, { kubernetesVersion: '1.30', kubernetesVersionSource: 'snapshot' });
    await recorded(a, 5, {
      kubernetesVersion: '1.31',
      kubernetesVersionSource: 'override',
      dataPlane: 'cilium',
      dataPlaneSource: 'snapshot',
    });
    await recorded(b, 0, {});

    const settings = await newestAnalysisSettings(db.prisma, [a, b, none]);

    expect(Object.fromEntries(settings)).toEqual({
      [a]: {
        capturedAt: at(5),
        kubernetesVersion: '1.31',
        kubernetesVersionSource: 'override',
        dataPlane: 'cilium',
        dataPlaneSource: 'snapshot',
      },
      [b]: {
        capturedAt: at(0),
        kubernetesVersion: null,
        kubernetesVersionSource: null,
        dataPlane: null,
        dataPlaneSource: null,
      },
    });
    expect((await newestAnalysisSettings(db.prisma, [])).size).toBe(0);
  });
});

describe('clusterPriceRows', () => {
  it("lists an organization's clusters by name with their own and their organization's price", async () => {
    const { organizationId } = await addCluster(db.prisma, {
      organizationSlug: 'prices',
      name: 'zeta',
      cloud: 'gcp',
      region: 'europe-west1',
    });
    const { clusterId: alpha } = await addCluster(db.prisma, {
      organizationSlug: 'prices',
      name: 'alpha',
      cloud: 'aws',
      crossZonePricePerGb: '0.015',
    });
    await addCluster(db.prisma, { organizationSlug: 'others', name: 'aaa' });
    await db.prisma.organization.update({ where: { id: organizationId }, data: { crossZonePricePerGb: 0.02 } });

    const rows = await clusterPriceRows(db.readDb, organizationId);

    expect(rows.map(({ id: _id, ...row }) => row)).toEqual([
      { name: 'alpha', cloud: 'aws', region: null, price_override: 0.015, org_price_override: 0.02 },
      { name: 'zeta', cloud: 'gcp', region: 'europe-west1', price_override: null, org_price_override: 0.02 },
    ]);
    expect((await clusterPriceRows(db.readDb, organizationId, alpha)).map((row) => row.name)).toEqual(['alpha']);
  });

  it("gives nothing for another organization's cluster", async () => {
    const { organizationId } = await addCluster(db.prisma, { organizationSlug: 'mine', name: 'a' });
    const { clusterId: theirs } = await addCluster(db.prisma, { organizationSlug: 'theirs', name: 'b' });

    expect(await clusterPriceRows(db.readDb, organizationId, theirs)).toEqual([]);
  });
});

describe('organizationOfCluster', () => {
  it("names a cluster's organization, and null for a cluster that is not there", async () => {
    const { clusterId, organizationId } = await addCluster(db.prisma, { organizationSlug: 'owner', name: 'a' });

    expect(await organizationOfCluster(db.prisma, clusterId)).toBe(organizationId);
    expect(await organizationOfCluster(db.prisma, '00000000-0000-7000-8000-000000000000')).toBeNull();
  });
});

describe('cluster views', () => {
  it("page through the organization's own clusters by name, with their token, source and prices", async () => {
    const { clusterId: beta, organizationId } = await addCluster(db.prisma, {
      organizationSlug: 'views',
      name: 'beta',
    });
    const { clusterId: alpha } = await addCluster(db.prisma, { organizationSlug: 'views', name: 'alpha' });
    const { clusterId: foreign } = await addCluster(db.prisma, { organizationSlug: 'not-views', name: 'aardvark' });
    const names = async (page: Parameters<typeof clusterViewsOf>[2]) =>
      (await clusterViewsOf(db.prisma, organizationId, page)).map((row) => row.name);

    expect(await names({ take: 10 })).toEqual(['alpha', 'beta']);
    expect(await names({ take: 1 })).toEqual(['alpha']);
    expect(await names({ after: 'alpha', take: 10 })).toEqual(['beta']);
    expect(await clusterViewOf(db.prisma, organizationId, beta)).toMatchObject({
      id: beta,
      name: 'beta',
      agentToken: { tokenPrefix: expect.any(String) },
      trafficSource: null,
      organization: { crossZonePricePerGb: null },
    });
    expect(await clusterViewOf(db.prisma, organizationId, foreign)).toBeNull();
    expect((await clusterViewOf(db.prisma, organizationId, alpha))?.name).toBe('alpha');
  });
});

describe('clusterNameOf', () => {
  it('names the cluster, and nothing for one that is gone', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'named', name: 'edge-1' });

    expect(await clusterNameOf(db.prisma, clusterId)).toBe('edge-1');
    await db.prisma.cluster.delete({ where: { id: clusterId } });
    expect(await clusterNameOf(db.prisma, clusterId)).toBeNull();
  });
});

describe('agentTokenOf', () => {
  it("reads the cluster's own agent token row", async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'tokens', name: 'a' });
    const { clusterId: other } = await addCluster(db.prisma, { organizationSlug: 'tokens', name: 'b' });

    const token = await agentTokenOf(db.prisma, clusterId);

    expect(token).toMatchObject({ clusterId, rotatedAt: null, tokenPrefix: expect.stringMatching(/^zwa_/) });
    expect((await agentTokenOf(db.prisma, other)).tokenPrefix).not.toBe(token.tokenPrefix);
  });
});

describe('cluster writes', () => {
  it('insert, change and delete a cluster; its name found only in its organization', async () => {
    const { organizationId } = await addCluster(db.prisma, { organizationSlug: 'written', name: 'first' });
    const { organizationId: other } = await addCluster(db.prisma, { organizationSlug: 'not-written', name: 'x' });

    const id = await insertCluster(db.prisma, { organizationId, name: 'edge', cloud: 'aws', labels: { team: 'a' } });
    await issueAgentToken(db.prisma, id);
    expect(await clusterViewById(db.prisma, id)).toMatchObject({
      id,
      name: 'edge',
      cloud: 'aws',
      labels: { team: 'a' },
      agentToken: { tokenPrefix: expect.stringMatching(/^zwa_/) },
    });
    await expect(insertCluster(db.prisma, { organizationId, name: 'edge' })).rejects.toMatchObject({ code: 'P2002' });
    expect(await insertCluster(db.prisma, { organizationId: other, name: 'edge' })).toEqual(expect.any(String));

    await updateCluster(db.prisma, id, { name: 'edge-eu', region: 'eu-west-1' });
    expect(await organizationClusterNameOf(db.prisma, organizationId, id)).toBe('edge-eu');
    expect(await organizationClusterNameOf(db.prisma, other, id)).toBeNull();
    await expect(updateCluster(db.prisma, id, { name: 'first' })).rejects.toMatchObject({ code: 'P2002' });

    await deleteCluster(db.prisma, id);
    expect(await organizationClusterNameOf(db.prisma, organizationId, id)).toBeNull();
    await expect(clusterViewById(db.prisma, id)).rejects.toMatchObject({ code: 'P2025' });
    expect(await clusterNameOf(db.prisma, id)).toBeNull();
  });
});
