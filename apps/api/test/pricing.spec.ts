import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  postGraphQL,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { ClusterSchema } from '../src/clusters/clusters.schemas.js';
import { FleetSchema } from '../src/fleet/fleet.schemas.js';
import { OrganizationPricingSchema } from '../src/pricing/pricing.schemas.js';

/**
 * Prices from a catalogue: each provider's entry with its source and date, on-prem at 0, the
 * organization's price over the catalogue and a cluster's own price over both, set by an operator;
 * the same through GraphQL (roles, audit log, one organization unable to see or change another's).
 */
let stack: QueryStack;
let tenant: Tenant;
let aws: { id: string; token: string };
let onprem: { id: string };
let own: { id: string };

beforeAll(async () => {
  stack = await startQueryStack('pricing');
  tenant = await createTenant(stack.prisma, 'pricing');
  aws = await createCluster(stack.prisma, tenant, 'aws-east', { cloud: 'aws', region: 'us-east-1' });
  onprem = await createCluster(stack.prisma, tenant, 'dc-1', { cloud: 'onprem' });
  own = await createCluster(stack.prisma, tenant, 'own-price', { cloud: 'gcp', crossZonePricePerGb: 0.005 });
  await waitProcessed(stack.prisma, [
    await pushSnapshot(stack.url, aws.token, capturedAt(fleet(6, 3), new Date(Date.now() - 60_000))),
  ]);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const read = async () => {
  const answer = await apiClient(stack.url, tenant.readKey).get('/v1/pricing');
  expect(answer.status).toBe(200);
  return OrganizationPricingSchema.parse(answer.body);
};
const clusterOf = (pricing: Awaited<ReturnType<typeof read>>, id: string) =>
  pricing.clusters.find((cluster) => cluster.id === id)!.pricing;

describe('price catalogue and overrides', () => {
  it('lists the catalogue with each source and its date, on-prem at 0, in USD', async () => {
    const pricing = await read();
    expect(pricing.currency).toBe('USD');
    const byCloud = Object.fromEntries(pricing.catalogue.map((entry) => [entry.cloud, entry]));
    expect(byCloud.aws).toMatchObject({ pricePerGb: 0.02, url: 'https://aws.amazon.com/ec2/pricing/on-demand/' });
    expect(byCloud.aws.sourceSays).toContain('$0.01/GB in each direction');
    expect(byCloud.gcp).toMatchObject({ pricePerGb: 0.01, sourceDate: '2026-09-20' });
    expect(byCloud.azure.pricePerGb).toBe(0);
    expect(byCloud['on-prem'].pricePerGb).toBe(0);
    for (const entry of pricing.catalogue) {
      expect(entry.sourceDate).toMatch(/^\d{4}-\d{2}(-\d{2})?$/);
      expect(entry.currency).toBe('USD');
    }
    expect(clusterOf(pricing, aws.id)).toMatchObject({ pricePerGb: 0.02, source: 'provider-region' });
    expect(clusterOf(pricing, onprem.id)).toMatchObject({ pricePerGb: 0, source: 'provider-default' });
    expect(clusterOf(pricing, own.id)).toMatchObject({ pricePerGb: 0.005, source: 'cluster-override' });
  });

  it("an operator sets the organization's price: it wins over the catalogue, not over a cluster's own", async () => {
    const fleetBefore = FleetSchema.parse((await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body);
    const gbBefore = fleetBefore.clusters.find((c) => c.id === aws.id)!.monthly!.withHints.crossZoneGb;

    const set = await apiClient(stack.url, tenant.operatorKey).put('/v1/pricing', { crossZonePricePerGb: 0.015 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const pricing = OrganizationPricingSchema.parse(set.body);
    expect(pricing.organization.crossZonePricePerGb).toBe(0.015);
    expect(clusterOf(pricing, aws.id)).toMatchObject({ pricePerGb: 0.015, source: 'organization-override' });
    expect(clusterOf(pricing, onprem.id)).toMatchObject({ pricePerGb: 0.015, source: 'organization-override' });
    expect(clusterOf(pricing, own.id)).toMatchObject({ pricePerGb: 0.005, source: 'cluster-override' });

    // Every answer prices at it at once: the cluster, the fleet (GB × the organization's price).
    const cluster = ClusterSchema.parse(
      (await apiClient(stack.url, tenant.readKey).get(`/v1/clusters/${aws.id}`)).body,
    );
    expect(cluster.pricing).toMatchObject({ pricePerGb: 0.015, source: 'organization-override' });
    const fleetAfter = FleetSchema.parse((await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body);
    const monthly = fleetAfter.clusters.find((c) => c.id === aws.id)!.monthly!;
    expect(monthly.withHints.crossZoneGb).toBeCloseTo(gbBefore, 9);
    expect(monthly.withHints.cost).toBeCloseTo(gbBefore * 0.015, 2);
    expect(monthly.pricing.source).toBe('organization-override');

    const cleared = await apiClient(stack.url, tenant.operatorKey).put('/v1/pricing', { crossZonePricePerGb: null });
    expect(cleared.status).toBe(200);
    expect(clusterOf(OrganizationPricingSchema.parse(cleared.body), aws.id).source).toBe('provider-region');
  });

  it('a viewer may not set it; a bad price is a 400 naming the field', async () => {
    const viewer = await apiClient(stack.url, tenant.readKey).put('/v1/pricing', { crossZonePricePerGb: 0.01 });
    expect(viewer.status).toBe(403);
    const bad = await apiClient(stack.url, tenant.operatorKey).put('/v1/pricing', { crossZonePricePerGb: -1 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('crossZonePricePerGb');
    const unknown = await apiClient(stack.url, tenant.operatorKey).put('/v1/pricing', { price: 1 });
    expect(unknown.status).toBe(400);
  });
});

describe('prices through GraphQL', () => {
  const PRICING = `{ pricing { currency catalogue { cloud pricePerGb currency basis url sourceSays sourceDate readVia regions }
    organization { crossZonePricePerGb } clusters { id name cloud region pricing { pricePerGb currency source note overridePerGb } } } }`;
  const setPrice = (price: string) =>
    `mutation { setOrganizationPrice(crossZonePricePerGb: ${price}) { organization { crossZonePricePerGb } clusters { id pricing { pricePerGb source } } } }`;

  it('a viewer reads the same catalogue, organization price and cluster prices as GET /v1/pricing', async () => {
    const answer = await postGraphQL(stack.url, tenant.readKey, { query: PRICING });
    expect(answer.body.errors).toBeUndefined();
    const rest = await apiClient(stack.url, tenant.readKey).get('/v1/pricing');
    expect(answer.body.data.pricing).toEqual(OrganizationPricingSchema.parse(rest.body));
    const graphql = answer.body.data.pricing;
    expect(graphql.catalogue.map((entry: { cloud: string }) => entry.cloud)).toEqual([
      'aws',
      'gcp',
      'azure',
      'on-prem',
    ]);
  });

  it('an operator sets and clears the price, each change audited; a viewer is refused; bad input is named', async () => {
    const refused = await postGraphQL(stack.url, tenant.readKey, { query: setPrice('0.03') });
    expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect((await read()).organization.crossZonePricePerGb).toBeNull();

    const set = await postGraphQL(stack.url, tenant.operatorKey, { query: setPrice('0.03') });
    expect(set.body.errors).toBeUndefined();
    expect(set.body.data.setOrganizationPrice.organization.crossZonePricePerGb).toBe(0.03);
    const awsPrice = set.body.data.setOrganizationPrice.clusters.find((c: { id: string }) => c.id === aws.id);
    expect(awsPrice.pricing).toEqual({ pricePerGb: 0.03, source: 'organization-override' });
    expect(clusterOf(await read(), aws.id)).toMatchObject({ pricePerGb: 0.03, source: 'organization-override' });

    const negative = await postGraphQL(stack.url, tenant.operatorKey, { query: setPrice('-1') });
    expect(negative.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(negative.body.errors?.[0].message).toContain('crossZonePricePerGb');
    const absent = await postGraphQL(stack.url, tenant.operatorKey, {
      query: 'mutation { setOrganizationPrice { organization { crossZonePricePerGb } } }',
    });
    expect(absent.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((await read()).organization.crossZonePricePerGb).toBe(0.03);

    const cleared = await postGraphQL(stack.url, tenant.operatorKey, { query: setPrice('null') });
    expect(cleared.body.data.setOrganizationPrice.organization.crossZonePricePerGb).toBeNull();

    const audit = await stack.prisma.auditLogEntry.findMany({
      where: { organizationId: tenant.organizationId, action: 'organization.price_change' },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take: 2,
    });
    expect(audit.map((entry) => entry.details)).toEqual([
      { crossZonePricePerGb: { from: 0.03, to: null } },
      { crossZonePricePerGb: { from: null, to: 0.03 } },
    ]);
    expect(audit[0]).toMatchObject({ actorType: 'api_key', actorName: 'operator', actorRole: 'operator' });
  });

  it("another organization neither sees this one's clusters nor changes its price", async () => {
    const other = await createTenant(stack.prisma, 'pricing-other');
    const theirs = await createCluster(stack.prisma, other, 'theirs', { cloud: 'azure' });
    const read = await postGraphQL(stack.url, other.readKey, { query: PRICING });
    expect(read.body.data.pricing.clusters.map((c: { id: string }) => c.id)).toEqual([theirs.id]);
    expect(JSON.stringify(read.body.data)).not.toContain(aws.id);

    const set = await postGraphQL(stack.url, other.operatorKey, { query: setPrice('0.5') });
    expect(set.body.errors).toBeUndefined();
    expect(JSON.stringify(set.body.data)).not.toContain(aws.id);
    const mine = await apiClient(stack.url, tenant.readKey).get('/v1/pricing');
    expect(OrganizationPricingSchema.parse(mine.body).organization.crossZonePricePerGb).toBeNull();
    expect(clusterOf(OrganizationPricingSchema.parse(mine.body), aws.id).source).toBe('provider-region');
  });
});
