import {
  analyzeSnapshot,
  crossZonePrice,
  type KubernetesList,
  parseSnapshot,
  recommendFixes,
  type SnapshotRecommendations,
} from '@zw/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  inCents,
  postGraphQL,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { withWorkloads } from '../../../test/support/traffic.js';
import { ProblemSchema } from '../src/http/schemas.js';
import {
  ClusterRecommendationsSchema,
  FleetRecommendationsSchema,
} from '../src/recommendations/recommendations.schemas.js';
import { ServiceDetailSchema } from '../src/services/services.schemas.js';

/**
 * Recommended fixes over HTTP and GraphQL, fed by real snapshots through ingest and the worker (which
 * computes and stores them at analysis time), every fix checked against the core's own recommendations
 * of the same snapshot, with money at each cluster's price and each Service's effective traffic.
 */

let stack: QueryStack;
let alice: Tenant;
let bob: Tenant;
let east: { id: string; token: string };
let west: { id: string; token: string };
let bobs: { id: string; token: string };
const lists: Record<string, KubernetesList> = {};
const AWS = crossZonePrice({ cloud: 'aws', region: 'us-east-1' });
const GCP = crossZonePrice({ cloud: 'gcp', region: 'europe-west1' });

function coreFixes(list: KubernetesList): SnapshotRecommendations {
  const snapshot = parseSnapshot(structuredClone(list));
  return recommendFixes(snapshot, analyzeSnapshot(snapshot));
}

/** The core's fixes of a Service, with savings at `pricePerGb` for `trafficGb` (as the API answers them). */
function expectedFixes(list: KubernetesList, namespace: string, name: string, pricePerGb: number, trafficGb: number) {
  const entry = coreFixes(list).services.find((s) => s.namespace === namespace && s.name === name);
  return inCents(
    (entry?.recommendations ?? []).map((fix) => ({
      ...fix,
      savings: {
        crossZoneFraction: fix.savings.crossZoneFraction,
        crossZoneGb: trafficGb * fix.savings.crossZoneFraction,
        cost: trafficGb * fix.savings.crossZoneFraction * pricePerGb,
      },
    })),
  );
}

beforeAll(async () => {
  stack = await startQueryStack('qfixes');
  alice = await createTenant(stack.prisma, 'fix-alice');
  bob = await createTenant(stack.prisma, 'fix-bob');
  east = await createCluster(stack.prisma, alice, 'east', { cloud: 'aws', region: 'us-east-1' });
  west = await createCluster(stack.prisma, alice, 'west', { cloud: 'gcp', region: 'europe-west1' });
  bobs = await createCluster(stack.prisma, bob, 'bobs', { cloud: 'aws' });
  const when = new Date(Date.now() - 60_000);
  // Four endpoints over three zones: many Services that do not route in-zone, and need fixes.
  // With their Pods and ReplicaSets, so every replicas fix names its Deployment.
  lists[east.id] = capturedAt(withWorkloads(fleet(12, 4, 3)), when);
  lists[west.id] = capturedAt(withWorkloads(fleet(9, 4, 4)), when);
  lists[bobs.id] = capturedAt(withWorkloads(fleet(6, 4, 5)), when);
  await waitProcessed(stack.prisma, [
    await pushSnapshot(stack.url, east.token, lists[east.id]),
    await pushSnapshot(stack.url, west.token, lists[west.id]),
    await pushSnapshot(stack.url, bobs.token, lists[bobs.id]),
  ]);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GET /v1/clusters/{id}/recommendations', () => {
  it("lists the Services with fixes, largest saving first, each fix the core's at the cluster's price", async () => {
    const answer = await apiClient(stack.url, alice.readKey).get(`/v1/clusters/${east.id}/recommendations?limit=500`);
    expect(answer.status).toBe(200);
    const page = ClusterRecommendationsSchema.parse(answer.body);
    expect(page.nextCursor).toBeNull();
    expect(page.nodeBlockers).toBeNull();
    const core = coreFixes(lists[east.id]).services.filter((entry) => entry.recommendations.length > 0);
    expect(page.services.map((s) => `${s.namespace}/${s.name}`).sort()).toEqual(
      core.map((s) => `${s.namespace}/${s.name}`).sort(),
    );
    expect(page.services.length).toBeGreaterThan(3);
    const costs = page.services.map((s) => s.bestSavings.cost);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    for (const service of page.services) {
      expect(service.cluster).toEqual({ id: east.id, name: 'east' });
      expect(service.recommendations).toEqual(
        expectedFixes(lists[east.id], service.namespace, service.name, AWS.pricePerGb, service.traffic.gb),
      );
      expect(service.bestSavings).toEqual({
        crossZoneGb: service.recommendations[0].savings.crossZoneGb,
        cost: service.recommendations[0].savings.cost,
      });
    }
  });

  it('pages with cursors: every Service once, in the same order as one page', async () => {
    const client = apiClient(stack.url, alice.readKey);
    const whole = (await client.get(`/v1/clusters/${east.id}/recommendations?limit=500`)).body;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = ClusterRecommendationsSchema.parse(
        (await client.get(`/v1/clusters/${east.id}/recommendations?limit=2${query}`)).body,
      );
      seen.push(...page.services.map((s) => `${s.namespace}/${s.name}`));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(whole.services.map((s: { namespace: string; name: string }) => `${s.namespace}/${s.name}`));
  });

  it('ranks Services with traffic of their own (API values on every other one) among the rest, on one page and across pages', async () => {
    const client = apiClient(stack.url, alice.adminKey);
    const listing = async (query: string) =>
      ClusterRecommendationsSchema.parse((await client.get(`/v1/clusters/${east.id}/recommendations?${query}`)).body);
    const before = await listing('limit=500');
    const keyOf = (service: { namespace: string; name: string }) => `${service.namespace}/${service.name}`;
    // Spread so that some move up past Services ranked at their own rows and some move down.
    const own = new Map(before.services.filter((_, i) => i % 2 === 1).map((s, i) => [keyOf(s), 3 + 50 * (i % 4)]));
    const servicePath = (key: string) => `/v1/clusters/${east.id}/services/${key}`;
    for (const [key, gb] of own)
      expect((await client.patch(servicePath(key), { monthlyTrafficGb: gb })).status).toBe(200);
    try {
      const whole = await listing('limit=500');
      expect(new Set(whole.services.map(keyOf))).toEqual(new Set(before.services.map(keyOf)));
      const snapshotTraffic = new Map(before.services.map((s) => [keyOf(s), s.traffic]));
      for (const service of whole.services) {
        const set = own.get(keyOf(service));
        expect(service.traffic.gb).toBe(set ?? snapshotTraffic.get(keyOf(service))!.gb);
        expect(service.traffic.source).toBe(set === undefined ? snapshotTraffic.get(keyOf(service))!.source : 'api');
        expect(service.recommendations).toEqual(
          expectedFixes(lists[east.id], service.namespace, service.name, AWS.pricePerGb, service.traffic.gb),
        );
      }
      const costs = whole.services.map((s) => s.bestSavings.cost);
      expect(costs).toEqual([...costs].sort((a, b) => b - a));
      expect(whole.services.map(keyOf)).not.toEqual(before.services.map(keyOf));
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await listing(`limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        paged.push(...page.services.map(keyOf));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(paged).toEqual(whole.services.map(keyOf));
    } finally {
      for (const key of own.keys()) await client.patch(servicePath(key), { monthlyTrafficGb: null });
    }
  });

  it('answers 404 for another tenant’s cluster and 400 for a bad cursor or limit', async () => {
    const foreign = await apiClient(stack.url, bob.readKey).get(`/v1/clusters/${east.id}/recommendations`);
    expect(foreign.status).toBe(404);
    expect(ProblemSchema.parse(foreign.body).detail).toMatch(/^no cluster/);
    const badCursor = await apiClient(stack.url, alice.readKey).get(
      `/v1/clusters/${east.id}/recommendations?cursor=nonsense`,
    );
    expect(badCursor.status).toBe(400);
    const fleetPage = (await apiClient(stack.url, alice.readKey).get('/v1/fleet/recommendations?limit=1')).body;
    const crossed = await apiClient(stack.url, alice.readKey).get(
      `/v1/clusters/${east.id}/recommendations?cursor=${encodeURIComponent(fleetPage.nextCursor)}`,
    );
    expect(crossed.status).toBe(400);
    expect(ProblemSchema.parse(crossed.body).detail).toMatch(/cursor/);
    expect(
      (await apiClient(stack.url, alice.readKey).get(`/v1/clusters/${east.id}/recommendations?limit=0`)).status,
    ).toBe(400);
  });
});

describe('GET /v1/fleet/recommendations', () => {
  it("ranks every cluster's Services of the organization together by what their best fix saves", async () => {
    const answer = await apiClient(stack.url, alice.readKey).get('/v1/fleet/recommendations?limit=500');
    expect(answer.status).toBe(200);
    const page = FleetRecommendationsSchema.parse(answer.body);
    const clusters = new Set(page.services.map((s) => s.cluster.id));
    expect(clusters).toEqual(new Set([east.id, west.id]));
    const costs = page.services.map((s) => s.bestSavings.cost);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    for (const service of page.services.filter((s) => s.cluster.id === west.id)) {
      expect(service.recommendations).toEqual(
        expectedFixes(lists[west.id], service.namespace, service.name, GCP.pricePerGb, service.traffic.gb),
      );
    }
    const bobsView = (await apiClient(stack.url, bob.readKey).get('/v1/fleet/recommendations?limit=500')).body;
    expect(JSON.stringify(bobsView)).not.toContain(east.id);
    expect(JSON.stringify(bobsView)).not.toContain(west.id);
    expect(new Set(bobsView.services.map((s: { cluster: { id: string } }) => s.cluster.id))).toEqual(
      new Set([bobs.id]),
    );
  });
});

describe('the Service detail', () => {
  it('carries the same fixes as the listing, and a traffic value set through the API moves their savings', async () => {
    const client = apiClient(stack.url, alice.adminKey);
    const listing = ClusterRecommendationsSchema.parse(
      (await client.get(`/v1/clusters/${east.id}/recommendations?limit=1`)).body,
    );
    const [top] = listing.services;
    const path = `/v1/clusters/${east.id}/services/${top.namespace}/${top.name}`;
    const detail = ServiceDetailSchema.parse((await client.get(path)).body);
    expect(detail.recommendations).toEqual(top.recommendations);

    const changed = await client.patch(path, { monthlyTrafficGb: 1000 });
    expect(changed.status).toBe(200);
    const after = ServiceDetailSchema.parse(changed.body);
    expect(after.recommendations).toEqual(expectedFixes(lists[east.id], top.namespace, top.name, AWS.pricePerGb, 1000));
    await client.patch(path, { monthlyTrafficGb: null });
  });

  it('is [] for a Service that routes in-zone', async () => {
    const report = analyzeSnapshot(parseSnapshot(structuredClone(lists[east.id])));
    const populated = report.services.find((s) => s.hints.state === 'populated')!;
    const detail = ServiceDetailSchema.parse(
      (
        await apiClient(stack.url, alice.readKey).get(
          `/v1/clusters/${east.id}/services/${populated.namespace}/${populated.name}`,
        )
      ).body,
    );
    expect(detail.recommendations).toEqual([]);
  });
});

describe('stability from the history', () => {
  /** Three equal zones and one Service with topology-mode Auto and `endpoints` ready endpoints. */
  function oneService(endpoints: number): KubernetesList {
    const zones = ['zone-a', 'zone-b', 'zone-c'];
    const nodes = zones.map((zone) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `${zone}-0`, labels: { 'topology.kubernetes.io/zone': zone } },
      status: { allocatable: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'True' }] },
    }));
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop', annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } },
      spec: { clusterIP: '10.96.0.20', ipFamilies: ['IPv4'], ports: [{ port: 80, protocol: 'TCP' }] },
    };
    const slice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: Array.from({ length: endpoints }, (_, i) => ({
        addresses: [`10.1.0.${i + 1}`],
        conditions: { ready: true },
        nodeName: `${zones[i % 3]}-0`,
        zone: zones[i % 3],
      })),
      ports: [{ port: 8080, protocol: 'TCP' }],
    };
    return {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { annotations: {} },
      items: [...nodes, service, slice],
    } as KubernetesList;
  }

  it('a Service whose hints came and went as its endpoints moved between 4, 5 and 6: its detail adds the replica floor that keeps them', async () => {
    const carol = await createTenant(stack.prisma, 'fix-carol');
    const flappy = await createCluster(stack.prisma, carol, 'flappy', { cloud: 'aws', region: 'us-east-1' });
    const start = Date.now() - 3600_000;
    const counts = [6, 4, 6, 5, 6];
    for (const [index, count] of counts.entries()) {
      const list = capturedAt(
        withWorkloads(oneService(count), () => ({ kind: 'Deployment', name: 'web' })),
        new Date(start + index * 60_000),
      );
      await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, flappy.token, list)]);
    }
    const detail = ServiceDetailSchema.parse(
      (await apiClient(stack.url, carol.readKey).get(`/v1/clusters/${flappy.id}/services/shop/web`)).body,
    );
    expect(detail.current?.hints.state).toBe('populated');
    expect(detail.recommendations).toHaveLength(1);
    const [stability] = detail.recommendations;
    expect(stability.kind).toBe('replicas');
    // 8 and 11 fail over three equal zones, so the first swing of 2 that always allocates starts at 12.
    expect(stability.stability).toEqual({ countsSeen: [4, 5, 6], minReplicas: 12, covers: { from: 12, to: 14 } });
    expect(stability.endpointsToAdd).toEqual({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 });
    expect(stability.patch).toContain('"minReplicas":12');
    expect(stability.workload).toEqual({ kind: 'Deployment', namespace: 'shop', name: 'web' });
    expect(stability.patch).toContain('@.spec.scaleTargetRef.name=="web"');
  });
});

describe('GraphQL', () => {
  it('fleetRecommendations and Cluster.recommendations give the REST pages', async () => {
    const rest = (await apiClient(stack.url, alice.readKey).get('/v1/fleet/recommendations?limit=5')).body;
    const answer = await postGraphQL(stack.url, alice.readKey, {
      query: `{ fleetRecommendations(first: 5) { nextCursor nodes { clusterId namespace name bestSavings { cost }
                 recommendations { kind resultingState crossZoneWithHints savings { cost } patch } } }
               cluster(id: "${west.id}") { recommendations(first: 100) { nodes { namespace name } } } }`,
    });
    expect(answer.body.errors).toBeUndefined();
    const nodes = answer.body.data.fleetRecommendations.nodes;
    expect(nodes.map((n: { namespace: string; name: string }) => `${n.namespace}/${n.name}`)).toEqual(
      rest.services.map((s: { namespace: string; name: string }) => `${s.namespace}/${s.name}`),
    );
    expect(nodes[0].bestSavings.cost).toBe(rest.services[0].bestSavings.cost);
    expect(nodes[0].recommendations[0].patch).toBe(rest.services[0].recommendations[0].patch);
    expect(answer.body.data.fleetRecommendations.nextCursor).toBe(rest.nextCursor);
    const westNames = answer.body.data.cluster.recommendations.nodes.map(
      (n: { namespace: string; name: string }) => `${n.namespace}/${n.name}`,
    );
    const westRest = (
      await apiClient(stack.url, alice.readKey).get(`/v1/clusters/${west.id}/recommendations?limit=100`)
    ).body;
    expect(westNames).toEqual(
      westRest.services.map((s: { namespace: string; name: string }) => `${s.namespace}/${s.name}`),
    );
  });

  it("answers NOT_FOUND for another tenant's cluster and never lists its fixes", async () => {
    const foreign = await postGraphQL(stack.url, bob.readKey, {
      query: `{ cluster(id: "${east.id}") { recommendations { nodes { name } } } }`,
    });
    expect(foreign.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
    const fleetView = await postGraphQL(stack.url, bob.readKey, {
      query: '{ fleetRecommendations(first: 500) { nodes { clusterId } } }',
    });
    expect(JSON.stringify(fleetView.body.data)).not.toContain(east.id);
  });
});
