import {
  analyzeSnapshot,
  applyWhatIf,
  crossZonePrice,
  generateFleetSnapshot,
  type KubernetesList,
  MONTHLY_TRAFFIC_ANNOTATION,
  parseSnapshot,
  roundCents,
  snapshotSavings,
  type SnapshotSavings,
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
} from '../../../test/support/query-api.js';
import { withServiceAnnotations } from '../../../test/support/query-snapshots.js';
import { capturedAt } from '../../../test/support/snapshots.js';
import { FleetSchema } from '../src/fleet/fleet.schemas.js';
import { ProblemSchema } from '../src/http/schemas.js';
import { SavingsSchema } from '../src/savings/savings.schemas.js';

/**
 * Savings over a time range and POST /v1/simulate, checked against the core: the stored read model must
 * give the figures `snapshotSavings` gives for the same snapshot, scaled by the time each state held,
 * and simulate must answer exactly what `analyzeSnapshot(applyWhatIf(…))` answers.
 */

let stack: QueryStack;
let tenant: Tenant;
const HOUR = 3600_000;
/** Ten days ago, on the hour: both clusters' only snapshot. */
const T = new Date(Math.floor((Date.now() - 10 * 24 * HOUR) / HOUR) * HOUR);
/** 73 hours: a tenth of a 730-hour month. */
const RANGE = { from: T.toISOString(), to: new Date(T.getTime() + 73 * HOUR).toISOString() };
const clusters: Record<'aws' | 'gcp', { id: string; list: KubernetesList; expected: SnapshotSavings }> = {} as never;

function expectedSavings(list: KubernetesList, cloud: string, region: string | null) {
  const snapshot = parseSnapshot(structuredClone(list));
  const report = analyzeSnapshot(snapshot);
  return snapshotSavings({ snapshot, report, price: crossZonePrice({ cloud, region }) });
}

function closeTo(actual: number, expected: number) {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
}

/** Money is answered in cents: the exact figure, rounded. */
function centsOf(actual: number, expected: number) {
  expect(actual).toBe(roundCents(actual));
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(0.005 + 1e-9 * Math.max(1, Math.abs(expected)));
}

function expectFigure(
  actual: { crossZoneGb: number; cost: number },
  expected: { crossZoneGb: number; cost: number },
  scale: number,
) {
  closeTo(actual.crossZoneGb, expected.crossZoneGb * scale);
  centsOf(actual.cost, expected.cost * scale);
}

beforeAll(async () => {
  stack = await startQueryStack('qsavings');
  tenant = await createTenant(stack.prisma, 'savings-org');
  const shapes = { aws: { seed: 31, region: 'us-east-1' }, gcp: { seed: 32, region: null } } as const;
  const ids: string[] = [];
  for (const cloud of ['aws', 'gcp'] as const) {
    const { seed, region } = shapes[cloud];
    let list = generateFleetSnapshot({
      nodes: 12,
      zones: 3,
      services: 40,
      endpointsPerService: 6,
      notReadyShare: 0.15,
      autoShare: 0.4,
      seed,
    });
    list = withServiceAnnotations(list, (_, i) => i % 7 === 0, { [MONTHLY_TRAFFIC_ANNOTATION]: String(100 + seed) });
    list = capturedAt(list, T);
    const cluster = await createCluster(stack.prisma, tenant, `${cloud}-cluster`, {
      cloud,
      ...(region ? { region } : {}),
    });
    clusters[cloud] = { id: cluster.id, list, expected: expectedSavings(list, cloud, region) };
    ids.push(await pushSnapshot(stack.url, cluster.token, list));
  }
  await waitProcessed(stack.prisma, ids);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GET /v1/savings', () => {
  it('integrates the core savings model over the range: a tenth of a month is a tenth of the monthly figures', async () => {
    const { id, expected } = clusters.aws;
    const answer = await apiClient(stack.url, tenant.readKey).get(
      `/v1/savings?clusterId=${id}&from=${RANGE.from}&to=${RANGE.to}`,
    );
    expect(answer.status).toBe(200);
    const savings = SavingsSchema.parse(answer.body);
    expect(savings.pricing).toEqual([
      expect.objectContaining({ pricePerGb: expected.price.pricePerGb, source: 'provider-region' }),
    ]);
    const totals = savings.totals;
    closeTo(totals.months, 0.1 * expected.totals.services);
    closeTo(totals.trafficGb, 0.1 * expected.totals.trafficGb);
    expectFigure(totals.withoutHints, expected.totals.withoutHints, 0.1);
    expectFigure(totals.withHints, expected.totals.withHints, 0.1);
    expectFigure(totals.realizedSavings, expected.totals.realizedSavings, 0.1);
    expectFigure(totals.missedSavings, expected.totals.missedSavings, 0.1);
    expect(totals.services).toBe(expected.totals.services);
    expect(totals.opportunities).toBe(expected.opportunities.length);
    expect(totals.inputs.trafficSources['default-per-endpoint']).toBe(expected.totals.servicesWithEstimatedTraffic);
    expect(totals.inputs.estimate).toBe(expected.totals.estimate);
    expect(savings.groups).toHaveLength(1);
    expect(savings.groups[0].cluster).toEqual({ id, name: 'aws-cluster' });
  });

  it('ranks the opportunities as the core does, with the savings scaled to the range', async () => {
    const { id, expected } = clusters.aws;
    const savings = SavingsSchema.parse(
      (await apiClient(stack.url, tenant.readKey).get(`/v1/savings?clusterId=${id}&from=${RANGE.from}&to=${RANGE.to}`))
        .body,
    );
    expect(expected.opportunities.length).toBeGreaterThan(1);
    expect(savings.opportunities.map((o) => `${o.namespace}/${o.name}`)).toEqual(
      expected.opportunities.map((o) => `${o.namespace}/${o.name}`),
    );
    for (const [index, opportunity] of savings.opportunities.entries()) {
      expectFigure(opportunity.missedSavings, expected.opportunities[index].missed.savings, 0.1);
      expect(opportunity.estimate).toBe(expected.opportunities[index].missed.inputs.estimate);
    }
  });

  it('groups by Service and by namespace', async () => {
    const { id, expected } = clusters.aws;
    const client = apiClient(stack.url, tenant.readKey);
    const byService = SavingsSchema.parse(
      (await client.get(`/v1/savings?clusterId=${id}&groupBy=service&limit=1000&from=${RANGE.from}&to=${RANGE.to}`))
        .body,
    );
    expect(byService.groups).toHaveLength(expected.services.length);
    for (const group of byService.groups) {
      const service = expected.services.find((s) => s.namespace === group.namespace && s.name === group.name)!;
      expectFigure(group.withHints, service.cost.withHints, 0.1);
      expectFigure(group.withoutHints, service.cost.withoutHints, 0.1);
      const opportunity = expected.opportunities.find((o) => o.namespace === group.namespace && o.name === group.name);
      expectFigure(group.missedSavings, opportunity?.missed.savings ?? { crossZoneGb: 0, cost: 0 }, 0.1);
    }
    const costs = byService.groups.map((g) => g.withHints.cost);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));

    const byNamespace = SavingsSchema.parse(
      (await client.get(`/v1/savings?clusterId=${id}&groupBy=namespace&limit=1000&from=${RANGE.from}&to=${RANGE.to}`))
        .body,
    );
    const team = byNamespace.groups.find((g) => g.namespace === 'team-01')!;
    const members = expected.services.filter((s) => s.namespace === 'team-01');
    expect(team.services).toBe(members.length);
    closeTo(team.withoutHints.crossZoneGb, 0.1 * members.reduce((sum, s) => sum + s.cost.withoutHints.crossZoneGb, 0));

    const limited = SavingsSchema.parse(
      (await client.get(`/v1/savings?clusterId=${id}&groupBy=service&limit=3&from=${RANGE.from}&to=${RANGE.to}`)).body,
    );
    expect(limited.groups).toHaveLength(3);
    expect(limited.truncated).toBe(true);
    expect(limited.totals.withHints.cost).toBe(byService.totals.withHints.cost);
  });

  it('prices each cluster at its own price and adds them up across the fleet', async () => {
    const savings = SavingsSchema.parse(
      (await apiClient(stack.url, tenant.readKey).get(`/v1/savings?from=${RANGE.from}&to=${RANGE.to}`)).body,
    );
    expect(savings.groups.map((g) => g.cluster.name).sort()).toEqual(['aws-cluster', 'gcp-cluster']);
    const gcp = savings.groups.find((g) => g.cluster.name === 'gcp-cluster')!;
    expect(savings.pricing.find((p) => p.cluster.name === 'gcp-cluster')).toMatchObject({
      pricePerGb: 0.01,
      source: 'provider-default',
    });
    expectFigure(gcp.withHints, clusters.gcp.expected.totals.withHints, 0.1);
    centsOf(
      savings.totals.withHints.cost,
      0.1 * (clusters.aws.expected.totals.withHints.cost + clusters.gcp.expected.totals.withHints.cost),
    );
    // No data before T: a range starting earlier gives the same figures; an earlier range gives nothing.
    const earlier = new Date(T.getTime() - 73 * HOUR).toISOString();
    const wider = SavingsSchema.parse(
      (await apiClient(stack.url, tenant.readKey).get(`/v1/savings?from=${earlier}&to=${RANGE.to}`)).body,
    );
    expect(wider.totals.withHints.cost).toBe(savings.totals.withHints.cost);
    const before = SavingsSchema.parse(
      (await apiClient(stack.url, tenant.readKey).get(`/v1/savings?from=${earlier}&to=${RANGE.from}`)).body,
    );
    expect(before.totals.services).toBe(0);
    expect(before.groups).toEqual([]);
  });

  it('shows the same monthly figures in the fleet summary', async () => {
    const fleet = FleetSchema.parse((await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body);
    for (const cloud of ['aws', 'gcp'] as const) {
      const view = fleet.clusters.find((c) => c.id === clusters[cloud].id)!;
      const expected = clusters[cloud].expected.totals;
      expectFigure(view.monthly!.withoutHints, expected.withoutHints, 1);
      expectFigure(view.monthly!.withHints, expected.withHints, 1);
      expectFigure(view.monthly!.realizedSavings, expected.realizedSavings, 1);
      expectFigure(view.monthly!.missedSavings, expected.missedSavings, 1);
      expect(view.monthly!.opportunities).toBe(clusters[cloud].expected.opportunities.length);
      expect(view.monthly!.servicesWithEstimatedTraffic).toBe(expected.servicesWithEstimatedTraffic);
    }
  });

  it('is written with a strong ETag (304 when the client has it) and gzip when the client accepts it', async () => {
    const url = `${stack.url}/v1/savings?groupBy=service&from=${RANGE.from}&to=${RANGE.to}`;
    const authorization = `Bearer ${tenant.readKey}`;
    const plain = await fetch(url, { headers: { authorization, 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(plain.headers.get('content-encoding')).toBeNull();
    const etag = plain.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const answer = SavingsSchema.parse(await plain.json());
    expect(answer.groups.length).toBeGreaterThan(0);
    expect((await fetch(url, { headers: { authorization, 'if-none-match': etag } })).status).toBe(304);
    const gzipped = await fetch(url, { headers: { authorization, 'accept-encoding': 'gzip' } });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(SavingsSchema.parse(await gzipped.json())).toEqual(answer);
  });

  it('answers 400 naming the bad query parameter, 404 for an unknown cluster', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const problem = async (query: string, status: number, detail: RegExp) => {
      const answer = await client.get(`/v1/savings?${query}`);
      expect(answer.status, query).toBe(status);
      expect(ProblemSchema.parse(answer.body).detail).toMatch(detail);
    };
    await problem('from=yesterday', 400, /query parameter "from"/);
    await problem(`from=${RANGE.to}&to=${RANGE.from}`, 400, /query parameter "from": must be before/);
    await problem('groupBy=team', 400, /query parameter "groupBy"/);
    await problem('clusterId=abc', 400, /query parameter "clusterId": must be a UUID/);
    await problem('limit=0', 400, /query parameter "limit"/);
    await problem('clusterId=00000000-0000-7000-8000-000000000000', 404, /no cluster/);
  });
});

describe('POST /v1/simulate', () => {
  const list = generateFleetSnapshot({
    nodes: 9,
    zones: 3,
    services: 12,
    endpointsPerService: 6,
    autoShare: 0.5,
    seed: 5,
  });
  const analyzed = (body: unknown) => JSON.parse(JSON.stringify(analyzeSnapshot(parseSnapshot(structuredClone(body)))));

  it('answers the analyze JSON of an uploaded snapshot and stores nothing', async () => {
    const before = await stack.prisma.snapshot.count();
    const answer = await apiClient(stack.url, tenant.readKey).post('/v1/simulate', list);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(analyzed(list));
    expect(await stack.prisma.snapshot.count()).toBe(before);
  });

  it('applies what-ifs exactly as the core does: routing modes, replicas per zone, a zone losing its nodes', async () => {
    const report = analyzeSnapshot(parseSnapshot(structuredClone(list)));
    const none = report.services.find((s) => s.routing === 'None' && s.name.startsWith('svc-'))!;
    const auto = report.services.find((s) => s.routing === 'Auto')!;
    const whatIf = {
      enableRouting: [{ namespace: none.namespace, name: none.name, mode: 'Auto' }],
      scaleReplicas: [{ namespace: auto.namespace, name: auto.name, zone: 'zone-b', delta: 3 }],
      removeZoneNodes: [{ zone: 'zone-c', reschedule: true }],
    };
    const answer = await apiClient(stack.url, tenant.readKey).post('/v1/simulate', { snapshot: list, whatIf });
    expect(answer.status).toBe(200);
    const expected = JSON.parse(
      JSON.stringify(analyzeSnapshot(applyWhatIf(parseSnapshot(structuredClone(list)), structuredClone(whatIf)))),
    );
    expect(answer.body).toEqual(expected);
    const enabled = (answer.body as typeof expected).services.find(
      (s: { namespace: string; name: string }) => s.namespace === none.namespace && s.name === none.name,
    );
    expect(enabled.routing).toBe('Auto');
    expect((answer.body as typeof expected).nodeInfo.zones.map((z: { name: string }) => z.name)).toEqual([
      'zone-a',
      'zone-b',
    ]);
    // Without whatIf, the wrapped form is the plain snapshot.
    expect((await apiClient(stack.url, tenant.readKey).post('/v1/simulate', { snapshot: list })).body).toEqual(
      analyzed(list),
    );
  });

  it('answers 400 with the JSON path of what is wrong in the snapshot or the what-if', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const problem = async (body: unknown, detail: RegExp, path: string) => {
      const answer = await client.post('/v1/simulate', body);
      expect(answer.status).toBe(400);
      const parsed = ProblemSchema.parse(answer.body);
      expect(parsed.detail).toMatch(detail);
      expect(parsed.path).toBe(path);
      expect(parsed.errors?.[0].field).toBe(path);
    };
    await problem({ kind: 'List', items: 'no' }, /expected a Kubernetes List/, '');
    await problem(
      { snapshot: { kind: 'List', items: [{ kind: 'Node' }] } },
      /snapshot\.items\[0\]/,
      'snapshot.items[0].metadata',
    );
    await problem(
      { snapshot: list, whatIf: { enableRouting: [{ namespace: 'team-01', name: 'svc-00001', mode: 'Sometimes' }] } },
      /whatIf\.enableRouting\[0\]\.mode/,
      'whatIf.enableRouting[0].mode',
    );
    await problem({ snapshot: list, whatIf: { colour: [] } }, /whatIf/, 'whatIf.colour');
    await problem({ snapshot: list, extra: 1 }, /extra: unknown field/, 'extra');
    await problem([1, 2], /expected a snapshot/, '');
  });
});
