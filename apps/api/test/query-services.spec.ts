import {
  analyzeSnapshot,
  type AnalysisReport,
  crossZonePrice,
  endpointsForNode,
  generateFleetSnapshot,
  type KubernetesList,
  MONTHLY_TRAFFIC_ANNOTATION,
  OVERLOAD_THRESHOLD,
  parseSnapshot,
  type Snapshot,
  snapshotSavings,
  type SnapshotSavings,
  TOPOLOGY_MODE_ANNOTATION,
} from '@zw/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
  inCents,
} from '../../../test/support/query-api.js';
import { servicesOf, withServiceAnnotations } from '../../../test/support/query-snapshots.js';
import { capturedAt, evolve, fleet } from '../../../test/support/snapshots.js';
import { ProblemSchema } from '../src/http/schemas.js';
import { ServiceCountsSchema, ServiceDetailSchema, ServiceListSchema } from '../src/services/services.schemas.js';
import { ServiceCidrsSchema, ZonesSchema } from '../src/services/cluster-state.schemas.js';

/**
 * Services, zones and Service CIDRs of a cluster over HTTP, fed by real snapshots through ingest and the
 * worker, every figure checked against the core's own analysis and savings model of the same snapshot.
 */

let stack: QueryStack;
let tenant: Tenant;
let main: { id: string; token: string };
const MINUTE = 60_000;
const T0 = Date.now() - 3 * 3600_000;
const at = (minute: number) => new Date(T0 + minute * MINUTE);
let timeline: KubernetesList[];
let latest: { list: KubernetesList; snapshot: Snapshot; report: AnalysisReport; savings: SnapshotSavings };
let flapper: { namespace: string; name: string };

function analyzed(list: KubernetesList) {
  const snapshot = parseSnapshot(structuredClone(list));
  const report = analyzeSnapshot(snapshot);
  const price = crossZonePrice({ cloud: 'aws', region: 'us-east-1' });
  return { list, snapshot, report, savings: snapshotSavings({ snapshot, report, price }) };
}

function expectProblem(answer: { status: number; body: unknown }, status: number, detail: RegExp) {
  expect(answer.status).toBe(status);
  const problem = ProblemSchema.parse(answer.body);
  expect(problem.detail).toMatch(detail);
  return problem;
}

beforeAll(async () => {
  stack = await startQueryStack('qservices');
  tenant = await createTenant(stack.prisma, 'svc-org');
  main = await createCluster(stack.prisma, tenant, 'main', { cloud: 'aws', region: 'us-east-1' });
  // Some Services declare their traffic, one with a value the savings model must ignore (and say so).
  let base = generateFleetSnapshot({
    nodes: 12,
    zones: 3,
    services: 30,
    endpointsPerService: 6,
    notReadyShare: 0.15,
    autoShare: 0.5,
    seed: 11,
  });
  base = withServiceAnnotations(base, (_, i) => i >= 2 && i < 5, { [MONTHLY_TRAFFIC_ANNOTATION]: '120' });
  base = withServiceAnnotations(base, (_, i) => i === 5, { [MONTHLY_TRAFFIC_ANNOTATION]: 'lots' });
  // A Service whose hints are populated flaps: its topology annotation goes off and on again, twice.
  const report = analyzeSnapshot(parseSnapshot(structuredClone(base)));
  const populated = report.services.find((s) => s.routing === 'Auto' && s.hints.state === 'populated')!;
  flapper = { namespace: populated.namespace, name: populated.name };
  const isFlapper = (s: { metadata: { namespace?: string; name: string } }) =>
    s.metadata.namespace === flapper.namespace && s.metadata.name === flapper.name;
  const off = withServiceAnnotations(base, isFlapper, { [TOPOLOGY_MODE_ANNOTATION]: null });
  timeline = [base, off, base, off, base].map((list, i) => capturedAt(list, at(i)));
  const ids: string[] = [];
  for (const list of timeline) ids.push(await pushSnapshot(stack.url, main.token, list));
  await waitProcessed(stack.prisma, ids);
  latest = analyzed(timeline[timeline.length - 1]);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GET /v1/clusters/{id}/services', () => {
  it('lists every Service of the newest snapshot with its state and the core savings model figures', async () => {
    const answer = await apiClient(stack.url, tenant.readKey).get(`/v1/clusters/${main.id}/services?limit=500`);
    expect(answer.status).toBe(200);
    const list = ServiceListSchema.parse(answer.body);
    expect(list.asOf).toBe(at(4).toISOString());
    expect(list.nextCursor).toBeNull();
    expect(list.services.map((s) => `${s.namespace}/${s.name}`)).toEqual(
      latest.report.services.map((s) => `${s.namespace}/${s.name}`),
    );
    for (const [index, service] of list.services.entries()) {
      const analysis = latest.report.services[index];
      const expected = latest.savings.services[index];
      expect(service.routing).toBe(analysis.routing);
      expect(service.hints).toEqual(analysis.hints);
      expect(service.crossZone).toEqual(analysis.crossZone);
      expect(service.readyEndpoints).toBe(analysis.readyEndpoints);
      expect(service.monthly.withoutHints).toEqual(inCents(expected.cost.withoutHints));
      expect(service.monthly.withHints).toEqual(inCents(expected.cost.withHints));
      expect(service.monthly.realizedSavings).toEqual(inCents(expected.cost.realizedSavings));
      expect(service.monthly.inputs).toEqual(expected.cost.inputs);
      const opportunity = expected.routing === 'None' && expected.preview?.state === 'populated';
      expect(service.opportunity).toBe(opportunity);
      expect(service.monthly.missedSavings).toEqual(opportunity ? inCents(expected.missed!.savings) : null);
      expect(service.ifAutoEnabled?.wouldPopulate ?? null).toBe(
        expected.preview ? expected.preview.state === 'populated' : null,
      );
    }
    const sources = new Set(list.services.map((s) => s.monthly.inputs.trafficSource));
    expect(sources).toEqual(new Set(['annotation', 'default-per-endpoint']));
    const ignored = list.services.find((s) => s.monthly.inputs.trafficNote?.includes('lots'));
    expect(ignored?.monthly.inputs).toMatchObject({ trafficSource: 'default-per-endpoint', trafficEstimate: true });
  });

  it('filters by namespace, routing mode, hint state, reason and opportunity', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const names = async (query: string) => {
      const answer = await client.get(`/v1/clusters/${main.id}/services?limit=500&${query}`);
      expect(answer.status, query).toBe(200);
      return ServiceListSchema.parse(answer.body).services.map((s) => `${s.namespace}/${s.name}`);
    };
    const expected = (keep: (s: AnalysisReport['services'][number], i: number) => boolean) =>
      latest.report.services.filter(keep).map((s) => `${s.namespace}/${s.name}`);
    expect(await names('namespace=team-03')).toEqual(expected((s) => s.namespace === 'team-03'));
    expect(await names('routing=Auto')).toEqual(expected((s) => s.routing === 'Auto'));
    const removed = expected((s) => s.hints.state === 'removed');
    expect(removed.length).toBeGreaterThan(0);
    expect(await names('hintState=removed')).toEqual(removed);
    const reason = latest.report.services.find((s) => s.hints.reason)!.hints.reason!;
    const fragment = reason.slice(2, 14).toUpperCase();
    expect(await names(`reason=${encodeURIComponent(fragment)}`)).toEqual(
      expected((s) => s.hints.reason?.toUpperCase().includes(fragment) ?? false),
    );
    const opportunities = expected(
      (_, i) =>
        latest.savings.services[i].routing === 'None' && latest.savings.services[i].preview?.state === 'populated',
    );
    expect(opportunities.length).toBeGreaterThan(0);
    expect(await names('opportunity=true')).toEqual(opportunities);
    expect(await names('routing=None&hintState=populated')).toEqual([]);
  });

  it('counts the Services the same filters list, in all and by hint state', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    for (const query of [
      '',
      'namespace=team-03',
      'routing=Auto',
      'hintState=removed',
      'opportunity=true',
      'reason=zone',
    ]) {
      const listed = ServiceListSchema.parse(
        (await client.get(`/v1/clusters/${main.id}/services?limit=500&${query}`)).body,
      ).services;
      const answer = await client.get(`/v1/clusters/${main.id}/services/counts?${query}`);
      expect(answer.status, query).toBe(200);
      const counts = ServiceCountsSchema.parse(answer.body);
      expect(counts.total, query).toBe(listed.length);
      for (const state of ['populated', 'removed', 'none'] as const) {
        expect(counts.byHintState[state], `${query} ${state}`).toBe(
          listed.filter((service) => service.hints.state === state).length,
        );
      }
    }
    const all = ServiceCountsSchema.parse((await client.get(`/v1/clusters/${main.id}/services/counts`)).body);
    expect(all.total).toBe(latest.report.services.length);
    expectProblem(await client.get(`/v1/clusters/${main.id}/services/counts?sort=cost`), 400, /sort/);
  });

  it("gives one cluster's entry of the fleet summary, equal to the fleet's", async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const fleet = (await client.get('/v1/fleet')).body;
    const entry = fleet.clusters.find((cluster: { id: string }) => cluster.id === main.id);
    const answer = await client.get(`/v1/fleet/clusters/${main.id}`);
    expect(answer.status).toBe(200);
    const { ageSeconds: _, ...fixed } = answer.body.cluster.lastSnapshot;
    const { ageSeconds: __, ...expected } = entry.lastSnapshot;
    expect(fixed).toEqual(expected);
    expect({ ...answer.body.cluster, lastSnapshot: null }).toEqual({ ...entry, lastSnapshot: null });
    expect(answer.body.staleAfterSeconds).toBe(fleet.staleAfterSeconds);
    const other = await createTenant(stack.prisma, 'svc-org-other');
    expectProblem(await apiClient(stack.url, other.readKey).get(`/v1/fleet/clusters/${main.id}`), 404, /cluster/);
  });

  it('sorts by cost and by savings, largest first, as the core ranks them', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const byCost = ServiceListSchema.parse(
      (await client.get(`/v1/clusters/${main.id}/services?sort=cost&limit=500`)).body,
    );
    const costs = byCost.services.map((s) => s.monthly.withHints.cost);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    expect(byCost.services).toHaveLength(latest.report.services.length);

    const bySavings = ServiceListSchema.parse(
      (await client.get(`/v1/clusters/${main.id}/services?sort=savings&opportunity=true&limit=500`)).body,
    );
    // Among opportunities the savings sort is core's rankOpportunities order.
    expect(bySavings.services.map((s) => `${s.namespace}/${s.name}`)).toEqual(
      latest.savings.opportunities.map((o) => `${o.namespace}/${o.name}`),
    );
    const ascending = ServiceListSchema.parse(
      (await client.get(`/v1/clusters/${main.id}/services?sort=cost&order=asc&limit=500`)).body,
    );
    expect(ascending.services.map((s) => s.monthly.withHints.cost)).toEqual([...costs].sort((a, b) => a - b));
  });

  it('answers 400 naming the bad query parameter', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const base = `/v1/clusters/${main.id}/services`;
    expectProblem(await client.get(`${base}?sort=bogus`), 400, /query parameter "sort"/);
    expectProblem(await client.get(`${base}?limit=501`), 400, /query parameter "limit"/);
    expectProblem(await client.get(`${base}?hintState=maybe`), 400, /query parameter "hintState"/);
    expectProblem(await client.get(`${base}?routing=Sometimes`), 400, /query parameter "routing"/);
    expectProblem(await client.get(`${base}?opportunity=yes`), 400, /query parameter "opportunity"/);
    expectProblem(await client.get(`${base}?order=desc`), 400, /query parameter "order"/);
    expectProblem(await client.get(`${base}?namespace=a&namespace=b`), 400, /query parameter "namespace"/);
    expectProblem(await client.get(`${base}?colour=red`), 400, /query parameter "colour": unknown/);
    const first = ServiceListSchema.parse((await client.get(`${base}?limit=2&sort=cost`)).body);
    expectProblem(
      await client.get(`${base}?limit=2&cursor=${first.nextCursor}`),
      400,
      /query parameter "cursor".*other sort or filter/,
    );
    expectProblem(await client.get(`/v1/clusters/${main.id}/services/Bad_NS/x`), 400, /path parameter "namespace"/);
  });
});

describe('pagination while snapshots keep arriving', () => {
  it('never repeats or skips a Service, for every sort, while new snapshots are recorded between pages', async () => {
    const cluster = await createCluster(stack.prisma, tenant, 'paging', { cloud: 'gcp', region: 'europe-west1' });
    let current = capturedAt(fleet(45, 3, 21), at(10));
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, current)]);
    let minute = 11;
    const client = apiClient(stack.url, tenant.readKey);
    for (const sort of ['name', 'cost', 'savings']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let asOf: string | null = null;
      let listed: KubernetesList | null = null;
      do {
        const answer = await client.get(
          `/v1/clusters/${cluster.id}/services?sort=${sort}&limit=7${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(answer.status).toBe(200);
        const page = ServiceListSchema.parse(answer.body);
        asOf ??= page.asOf;
        listed ??= current;
        expect(page.asOf).toBe(asOf);
        seen.push(...page.services.map((s) => `${s.namespace}/${s.name}`));
        cursor = page.nextCursor;
        // The cluster changes (Services come, go and change state) before the next page is asked for.
        current = capturedAt(evolve(current, minute), at(minute));
        minute++;
        await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, current)]);
      } while (cursor);
      const expected = servicesOf(listed!).map((s) => `${s.metadata.namespace}/${s.metadata.name}`);
      expect(new Set(seen).size, sort).toBe(seen.length);
      expect([...seen].sort(), sort).toEqual([...expected].sort());
      if (sort === 'name') expect(seen).toEqual([...seen].sort());
    }
    // A fresh listing sees the newest snapshot.
    const fresh = ServiceListSchema.parse((await client.get(`/v1/clusters/${cluster.id}/services?limit=500`)).body);
    expect(fresh.asOf).toBe(at(minute - 1).toISOString());
    expect(fresh.services.map((s) => `${s.namespace}/${s.name}`).sort()).toEqual(
      servicesOf(current)
        .map((s) => `${s.metadata.namespace}/${s.metadata.name}`)
        .sort(),
    );
  }, 120_000);
});

describe('GET /v1/clusters/{id}/services/{namespace}/{name}', () => {
  it('shows the current state with per-zone allocation, kube-proxy per zone, drift and a timeline with flapping', async () => {
    const answer = await apiClient(stack.url, tenant.readKey).get(
      `/v1/clusters/${main.id}/services/${flapper.namespace}/${flapper.name}?from=${encodeURIComponent(at(-1).toISOString())}`,
    );
    expect(answer.status).toBe(200);
    const detail = ServiceDetailSchema.parse(answer.body);
    const analysis = latest.report.services.find((s) => s.namespace === flapper.namespace && s.name === flapper.name)!;
    expect(detail.current?.hints).toEqual(analysis.hints);
    expect(detail.current?.zones).toEqual(
      Object.entries(analysis.zones)
        .map(([zone, z]) => ({ zone, ...z }))
        .sort((a, b) => (a.zone < b.zone ? -1 : 1)),
    );
    expect(detail.current?.zones.some((z) => z.expectedOverload >= 0)).toBe(true);

    // kube-proxy per zone: one node of each zone, with the observed and with the computed hints.
    expect(detail.kubeProxy.available).toBe(true);
    expect(detail.kubeProxy.zones.map((z) => z.zone)).toEqual(['zone-a', 'zone-b', 'zone-c']);
    for (const zone of detail.kubeProxy.zones) {
      const pick = (report: ReturnType<typeof endpointsForNode>) =>
        report.services.find((s) => s.namespace === flapper.namespace && s.name === flapper.name)!;
      const observed = pick(endpointsForNode(latest.snapshot, zone.node));
      const computed = pick(endpointsForNode(latest.snapshot, zone.node, { computedHints: true }));
      expect(zone.observed).toMatchObject({
        topologyFiltered: observed.topologyFiltered,
        reason: observed.reason,
        endpoints: observed.clusterEndpoints?.length ?? null,
      });
      expect(zone.computed).toMatchObject({
        topologyFiltered: computed.topologyFiltered,
        endpoints: computed.clusterEndpoints?.length ?? null,
      });
      expect(zone.computed.topologyFiltered).toBe(true);
      // With populated zone hints, kube-proxy in a zone only uses endpoints hinted for that zone.
      expect(Object.values(zone.computed.endpointsByZone).reduce((a, b) => a + b, 0)).toBe(zone.computed.endpoints);
    }
    expect(detail.drift).toMatchObject({ available: true, endpoints: analysis.drift.endpoints });

    // The timeline: on, off, on, off, on: four hint-state changes in the window.
    expect(detail.timeline.entries.map((e) => e.hints.state)).toEqual([
      'populated',
      'none',
      'populated',
      'none',
      'populated',
    ]);
    expect(detail.timeline.entries.map((e) => e.from)).toEqual([0, 1, 2, 3, 4].map((m) => at(m).toISOString()));
    expect(detail.timeline.hintStateChanges).toBe(4);
    expect(detail.timeline.flapping).toBe(true);

    // A narrower window only counts what happened inside it.
    const narrow = ServiceDetailSchema.parse(
      (
        await apiClient(stack.url, tenant.readKey).get(
          `/v1/clusters/${main.id}/services/${flapper.namespace}/${flapper.name}?from=${encodeURIComponent(
            new Date(at(2).getTime() + 1000).toISOString(),
          )}`,
        )
      ).body,
    );
    expect(narrow.timeline.entries).toHaveLength(3);
    expect(narrow.timeline.hintStateChanges).toBe(2);
    expect(narrow.timeline.flapping).toBe(false);
  });

  it('reports drift between the observed and the computed hints', async () => {
    const drifting = latest.report.services.find((s) => s.drift.endpoints > 0)!;
    expect(drifting).toBeDefined();
    const detail = ServiceDetailSchema.parse(
      (
        await apiClient(stack.url, tenant.readKey).get(
          `/v1/clusters/${main.id}/services/${drifting.namespace}/${drifting.name}`,
        )
      ).body,
    );
    expect(detail.drift).toEqual({
      available: true,
      endpoints: drifting.drift.endpoints,
      observedHints: drifting.drift.observedHints,
      details: JSON.parse(JSON.stringify(drifting.drift.details)),
    });
  });

  it('answers 404 for a Service the cluster never had', async () => {
    expectProblem(
      await apiClient(stack.url, tenant.readKey).get(`/v1/clusters/${main.id}/services/team-01/no-such-service`),
      404,
      /no Service team-01\/no-such-service/,
    );
  });

  it('lets an operator set a Service traffic volume, which then drives its figures and the fleet', async () => {
    const target = latest.savings.services.find((s) => s.cost.crossZone.withHints > 0)!;
    const path = `/v1/clusters/${main.id}/services/${target.namespace}/${target.name}`;
    expectProblem(
      await apiClient(stack.url, tenant.readKey).patch(path, { monthlyTrafficGb: 10 }),
      403,
      /"operator" role/,
    );
    expectProblem(
      await apiClient(stack.url, tenant.adminKey).patch(path, { monthlyTrafficGb: -1 }),
      400,
      /body field "monthlyTrafficGb"/,
    );
    const fleetBefore = (await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body.clusters.find(
      (c: { id: string }) => c.id === main.id,
    );
    const set = await apiClient(stack.url, tenant.adminKey).patch(path, { monthlyTrafficGb: 1000 });
    expect(set.status).toBe(200);
    const detail = ServiceDetailSchema.parse(set.body);
    expect(detail.current?.monthly.inputs).toMatchObject({
      trafficGb: 1000,
      trafficSource: 'api',
      trafficEstimate: false,
    });
    expect(detail.current?.monthly.withHints.crossZoneGb).toBe(1000 * target.cost.crossZone.withHints);
    const fleetAfter = (await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body.clusters.find(
      (c: { id: string }) => c.id === main.id,
    );
    expect(fleetAfter.monthly.trafficGb).toBeCloseTo(fleetBefore.monthly.trafficGb - target.traffic.gb + 1000, 9);
    const cleared = ServiceDetailSchema.parse(
      (await apiClient(stack.url, tenant.adminKey).patch(path, { monthlyTrafficGb: null })).body,
    );
    expect(cleared.current?.monthly.inputs.trafficSource).toBe(target.traffic.source);
    const fleetCleared = (await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body.clusters.find(
      (c: { id: string }) => c.id === main.id,
    );
    expect(fleetCleared.monthly.trafficGb).toBeCloseTo(fleetBefore.monthly.trafficGb, 9);
  });
});

describe('zones and Service CIDRs', () => {
  it('GET /v1/clusters/{id}/zones: CPU share, endpoints and expected overload per zone', async () => {
    const answer = await apiClient(stack.url, tenant.readKey).get(`/v1/clusters/${main.id}/zones`);
    expect(answer.status).toBe(200);
    const zones = ZonesSchema.parse(answer.body);
    expect(zones.asOf).toBe(at(4).toISOString());
    expect(zones.nodeInfo).toEqual({ sufficient: true, reason: null });
    expect(zones.zones.map((z) => z.name)).toEqual(latest.report.nodeInfo.zones.map((z) => z.name));
    // Ready endpoints per zone, counted straight from the pushed slices.
    const readyByZone = new Map<string, number>();
    for (const slice of latest.snapshot.endpointSlices) {
      for (const endpoint of slice.endpoints) {
        if (endpoint.conditions?.ready === true && endpoint.zone) {
          readyByZone.set(endpoint.zone, (readyByZone.get(endpoint.zone) ?? 0) + 1);
        }
      }
    }
    for (const zone of zones.zones) {
      const capacity = latest.report.nodeInfo.zones.find((z) => z.name === zone.name)!;
      expect(zone.cpuShare).toBe(capacity.cpuRatio);
      expect(zone.readyNodes).toBe(capacity.readyNodes);
      expect(zone.trafficShare).toBe(latest.report.trafficOrigin.shares[zone.name]);
      expect(zone.readyEndpoints).toBe(readyByZone.get(zone.name));
      const populated = latest.report.services.filter((s) => s.hints.state === 'populated');
      expect(zone.hintedEndpoints).toBe(populated.reduce((sum, s) => sum + (s.zones[zone.name]?.allocated ?? 0), 0));
      expect(zone.expectedOverload.max).toBe(
        Math.max(...populated.map((s) => s.zones[zone.name]?.expectedOverload ?? 0)),
      );
      expect(zone.expectedOverload.servicesAboveThreshold).toBe(
        latest.report.services.filter((s) => (s.zones[zone.name]?.expectedOverload ?? 0) > OVERLOAD_THRESHOLD).length,
      );
    }
    const older = ZonesSchema.parse(
      (
        await apiClient(stack.url, tenant.readKey).get(
          `/v1/clusters/${main.id}/zones?at=${encodeURIComponent(at(1).toISOString())}`,
        )
      ).body,
    );
    expect(older.asOf).toBe(at(1).toISOString());
    expectProblem(
      await apiClient(stack.url, tenant.readKey).get(`/v1/clusters/${main.id}/zones?at=yesterday`),
      400,
      /query parameter "at"/,
    );
  });

  it('GET /v1/clusters/{id}/service-cidrs: the serviceCIDRs analysis of the newest snapshot', async () => {
    const answer = await apiClient(stack.url, tenant.readKey).get(`/v1/clusters/${main.id}/service-cidrs`);
    expect(answer.status).toBe(200);
    const cidrs = ServiceCidrsSchema.parse(answer.body);
    expect(cidrs.serviceCIDRs).toEqual(JSON.parse(JSON.stringify(latest.report.serviceCIDRs)));
    expect(cidrs.serviceCIDRs[0]).toMatchObject({ cidr: '10.96.0.0/12', family: 'IPv4' });
    expect(cidrs.serviceCIDRs[0].wellKnown.length).toBeGreaterThan(0);
  });

  it('stores a zones, zone, CIDR and recommendations document once for snapshots that do not change them', async () => {
    // Five snapshots of `main`, two distinct states (base/off alternate): the documents are shared.
    const documents = await stack.prisma.analysisDocument.count({ where: { clusterId: main.id } });
    const summaries = await stack.prisma.snapshotSummary.findMany({ where: { clusterId: main.id } });
    expect(summaries).toHaveLength(5);
    const hex = (hash: Uint8Array | null) => Buffer.from(hash!).toString('hex');
    expect(new Set(summaries.map((s) => hex(s.serviceCidrsHash))).size).toBe(1);
    expect(new Set(summaries.map((s) => hex(s.zonesHash))).size).toBe(1);
    const zoneAndCidr = new Set(
      summaries.flatMap((s) => [hex(s.zonesHash), hex(s.zoneStatsHash), hex(s.serviceCidrsHash)]),
    );
    expect(zoneAndCidr.size).toBeLessThanOrEqual(5);
    const recommendations = new Set(summaries.map((s) => hex(s.recommendationsHash)));
    expect(recommendations.size).toBeLessThanOrEqual(2);
    expect(documents).toBe(new Set([...zoneAndCidr, ...recommendations]).size);
  });
});
