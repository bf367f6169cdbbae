import {
  analyzeSnapshot,
  crossZonePrice,
  DATA_PLANE_ANNOTATION,
  generateFleetSnapshot,
  type KubernetesList,
  MONTHLY_TRAFFIC_ANNOTATION,
  parseSnapshot,
  snapshotSavings,
} from '@zw/core';
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
import { withServiceAnnotations } from '../../../test/support/query-snapshots.js';
import { capturedAt } from '../../../test/support/snapshots.js';
import { FleetSchema } from '../src/fleet/fleet.schemas.js';

/**
 * The fleet's "at stake": for Services that ask for topology routing but whose hints the controller
 * refused, the cross-zone traffic they still make, priced like every other figure. Checked against the
 * core's savings model on the same snapshots, computed here Service by Service.
 */
let stack: QueryStack;
let tenant: Tenant;
const clusters: Record<'kubeProxy' | 'ignoresHints', { id: string; list: KubernetesList }> = {} as never;
/** One refused Service gets a traffic value through the API: the figure must follow it. */
let apiValue: { namespace: string; name: string; gb: number };

/** 4 endpoints over zones of CPU 2:1:1: many `Auto` Services trip the overload threshold. */
function refusingCluster(dataPlane: string | null): KubernetesList {
  let list = generateFleetSnapshot({
    nodes: 12,
    zones: 3,
    services: 30,
    endpointsPerService: 4,
    zoneCpuWeights: [2, 1, 1],
    autoShare: 0.6,
    notReadyShare: 0.1,
    seed: 41,
  });
  list = withServiceAnnotations(list, (_, i) => i % 3 === 0, { [MONTHLY_TRAFFIC_ANNOTATION]: '250' });
  if (dataPlane)
    list = { ...list, metadata: { annotations: { ...list.metadata.annotations, [DATA_PLANE_ANNOTATION]: dataPlane } } };
  return capturedAt(list, new Date(Date.now() - 60_000));
}

/** The same figure from the core: Σ over refused Services whose data path reads hints of their cost as routed. */
function expectedAtStake(list: KubernetesList, explicitTrafficGb: Record<string, number> = {}) {
  const snapshot = parseSnapshot(structuredClone(list));
  const report = analyzeSnapshot(snapshot);
  const price = crossZonePrice({ cloud: 'aws', region: 'us-east-1' });
  const savings = snapshotSavings({ snapshot, report, price, explicitTrafficGb });
  const honours = new Map(report.services.map((s) => [`${s.namespace}/${s.name}`, s.dataPath.honoursHints]));
  const refused = savings.services.filter(
    (s) => s.routing !== 'None' && s.hintState === 'removed' && honours.get(`${s.namespace}/${s.name}`),
  );
  return {
    crossZoneGb: refused.reduce((sum, s) => sum + s.cost.withHints.crossZoneGb, 0),
    cost: refused.reduce((sum, s) => sum + s.cost.withHints.cost, 0),
    services: refused.length,
    trafficGb: refused.reduce((sum, s) => sum + s.traffic.gb, 0),
    servicesWithEstimatedTraffic: refused.filter((s) => s.traffic.estimate).length,
    refused,
    removed: savings.services.filter((s) => s.hintState === 'removed').length,
  };
}

function expectAtStake(atStake: FleetAtStake | null, expected: ReturnType<typeof expectedAtStake>) {
  expect(atStake).not.toBeNull();
  const actual = atStake!;
  expect(actual.services).toBe(expected.services);
  expect(actual.servicesWithEstimatedTraffic).toBe(expected.servicesWithEstimatedTraffic);
  expect(actual.trafficGb).toBeCloseTo(expected.trafficGb, 6);
  expect(actual.crossZoneGb).toBeCloseTo(expected.crossZoneGb, 6);
  // Money is answered in cents.
  expect(Math.abs(actual.cost - expected.cost)).toBeLessThanOrEqual(0.005 + 1e-9 * expected.cost);
  expect(actual.estimate).toBe(expected.servicesWithEstimatedTraffic > 0);
}

type FleetAtStake = NonNullable<
  NonNullable<ReturnType<typeof FleetSchema.parse>['clusters'][number]['monthly']>['atStake']
>;

beforeAll(async () => {
  stack = await startQueryStack('fleet_stake');
  tenant = await createTenant(stack.prisma, 'stake-org');
  const ids: string[] = [];
  for (const [key, dataPlane] of [
    ['kubeProxy', null],
    ['ignoresHints', 'cilium-no-topology'],
  ] as const) {
    const cluster = await createCluster(stack.prisma, tenant, `stake-${key.toLowerCase()}`, {
      cloud: 'aws',
      region: 'us-east-1',
    });
    clusters[key] = { id: cluster.id, list: refusingCluster(dataPlane) };
    ids.push(await pushSnapshot(stack.url, cluster.token, clusters[key].list));
  }
  await waitProcessed(stack.prisma, ids);
}, 60_000);

afterAll(() => stack?.stop());

describe('GET /v1/fleet: at stake (hints refused)', () => {
  it("is the refused Services' cross-zone cost as routed, from the same model as the other figures", async () => {
    const expected = expectedAtStake(clusters.kubeProxy.list);
    expect(expected.services).toBeGreaterThan(3); // the snapshot does refuse hints
    expect(expected.cost).toBeGreaterThan(0);
    const fleet = FleetSchema.parse((await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body);
    const cluster = fleet.clusters.find((c) => c.id === clusters.kubeProxy.id)!;
    expectAtStake(cluster.monthly!.atStake, expected);
    expect(cluster.services.removed).toBe(expected.removed);
  });

  it('leaves out Services whose data path ignores hints: fixing the cause would save nothing there', async () => {
    const expected = expectedAtStake(clusters.ignoresHints.list);
    expect(expected.removed).toBeGreaterThan(3);
    expect(expected.services).toBe(0);
    const fleet = FleetSchema.parse((await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body);
    const cluster = fleet.clusters.find((c) => c.id === clusters.ignoresHints.id)!;
    expect(cluster.services.removed).toBe(expected.removed);
    expect(cluster.monthly!.atStake).toMatchObject({ services: 0, crossZoneGb: 0, cost: 0 });
  });

  it('follows a traffic value set through the API, and sums the clusters in the totals; GraphQL agrees', async () => {
    const first = expectedAtStake(clusters.kubeProxy.list).refused.find((s) => s.traffic.estimate)!;
    apiValue = { namespace: first.namespace, name: first.name, gb: 4321 };
    const admin = apiClient(stack.url, tenant.adminKey);
    const patched = await admin.patch(
      `/v1/clusters/${clusters.kubeProxy.id}/services/${apiValue.namespace}/${apiValue.name}`,
      { monthlyTrafficGb: apiValue.gb },
    );
    expect(patched.status).toBe(200);
    const expected = expectedAtStake(clusters.kubeProxy.list, {
      [`${apiValue.namespace}/${apiValue.name}`]: apiValue.gb,
    });
    const fleet = FleetSchema.parse((await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body);
    const cluster = fleet.clusters.find((c) => c.id === clusters.kubeProxy.id)!;
    expectAtStake(cluster.monthly!.atStake, expected);
    const totals = fleet.totals.monthly.atStake;
    expect(totals.services).toBe(expected.services);
    expect(totals.cost).toBeCloseTo(cluster.monthly!.atStake!.cost, 2);

    const graphql = await postGraphQL(stack.url, tenant.readKey, {
      query: '{ fleet { clusters { id monthly { atStake { crossZoneGb cost services trafficGb estimate } } } } }',
    });
    expect(graphql.body.errors).toBeUndefined();
    const viaGraphQL = (graphql.body.data.fleet.clusters as { id: string; monthly: { atStake: unknown } }[]).find(
      (c) => c.id === clusters.kubeProxy.id,
    )!;
    const { servicesWithEstimatedTraffic: _, ...rest } = cluster.monthly!.atStake!;
    expect(viaGraphQL.monthly.atStake).toEqual(rest);
  });
});
