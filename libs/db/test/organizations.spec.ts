import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCluster, repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import {
  organizationIdentity,
  organizationPriceOf,
  organizationPrices,
  organizationSlugOf,
  setOrganizationPrice,
} from '../src/index.js';

let db: RepositoryDatabase;
let organizationId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  db = await repositoryDatabase('repo_organizations');
  ({ organizationId } = await addCluster(db.prisma, {
    organizationSlug: 'acme',
    organizationName: 'Acme Corp',
    name: 'zeta',
    cloud: 'gcp',
    region: 'europe-west1',
    crossZonePricePerGb: '0.02',
  }));
  await addCluster(db.prisma, { organizationSlug: 'acme', name: 'alpha', cloud: 'aws', region: 'us-east-1' });
  ({ organizationId: otherOrganizationId } = await addCluster(db.prisma, { organizationSlug: 'other', name: 'beta' }));
  await db.prisma.organization.update({ where: { id: organizationId }, data: { crossZonePricePerGb: '0.015' } });
});

afterAll(async () => {
  await db?.drop();
});

const NO_SUCH_ORGANIZATION = '00000000-0000-4000-8000-000000000000';

describe('organizationIdentity and organizationSlugOf', () => {
  it('read the organization asked for, and fail for one that does not exist', async () => {
    expect(await organizationIdentity(db.prisma, organizationId)).toEqual({
      id: organizationId,
      slug: 'acme',
      name: 'Acme Corp',
    });
    expect(await organizationSlugOf(db.prisma, organizationId)).toBe('acme');
    expect(await organizationSlugOf(db.prisma, otherOrganizationId)).toBe('other');
    await expect(organizationIdentity(db.prisma, NO_SUCH_ORGANIZATION)).rejects.toMatchObject({ code: 'P2025' });
    await expect(organizationSlugOf(db.prisma, NO_SUCH_ORGANIZATION)).rejects.toMatchObject({ code: 'P2025' });
  });
});

describe('organizationPrices', () => {
  it("gives the organization's price and its own clusters' by name, no other organization's", async () => {
    const prices = await organizationPrices(db.prisma, organizationId);

    expect(Number(prices.crossZonePricePerGb)).toBe(0.015);
    expect(
      prices.clusters.map(({ name, cloud, region, crossZonePricePerGb }) => ({
        name,
        cloud,
        region,
        price: crossZonePricePerGb === null ? null : Number(crossZonePricePerGb),
      })),
    ).toEqual([
      { name: 'alpha', cloud: 'aws', region: 'us-east-1', price: null },
      { name: 'zeta', cloud: 'gcp', region: 'europe-west1', price: 0.02 },
    ]);
    expect((await organizationPrices(db.prisma, otherOrganizationId)).clusters.map((c) => c.name)).toEqual(['beta']);
  });
});

describe('organizationPriceOf and setOrganizationPrice', () => {
  it("read and set the organization's own price, leaving another's", async () => {
    const { organizationId: priced } = await addCluster(db.prisma, { organizationSlug: 'priced', name: 'a' });

    expect(await organizationPriceOf(db.prisma, priced)).toBeNull();
    await setOrganizationPrice(db.prisma, priced, 0.03);
    expect(Number(await organizationPriceOf(db.prisma, priced))).toBe(0.03);
    expect(await organizationPriceOf(db.prisma, otherOrganizationId)).toBeNull();
    await setOrganizationPrice(db.prisma, priced, null);
    expect(await organizationPriceOf(db.prisma, priced)).toBeNull();
    await expect(organizationPriceOf(db.prisma, NO_SUCH_ORGANIZATION)).rejects.toMatchObject({ code: 'P2025' });
  });
});
