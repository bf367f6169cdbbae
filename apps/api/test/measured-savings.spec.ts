import { type KubernetesList } from '@zw/core';
import { parseCsv, type ReportDocument } from '@zw/reports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  prometheusMissing,
  type RunningExporter,
  type RunningPrometheus,
  scrapesHeld,
  startExporter,
  startPrometheus,
} from '../../../test/support/prometheus.js';
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
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { presetCounters, type TrafficPlan, withWorkloads } from '../../../test/support/traffic.js';
import { waitFor } from '../../../test/support/wait.js';
import { FleetSchema } from '../src/fleet/fleet.schemas.js';
import { ReportSchema } from '../src/reports/reports.schemas.js';
import { SavingsSchema } from '../src/savings/savings.schemas.js';
import { ServiceListSchema } from '../src/services/services.schemas.js';
import { TrafficSourceSchema } from '../src/traffic-sources/traffic-sources.schemas.js';

/**
 * Savings from the measured share: a real Prometheus scrapes Istio's upstream metric for three Services
 * whose bytes cross zones in known shares; one has populated hints (the model says it barely crosses) yet
 * 40 % of its bytes cross, one is an opportunity. The as-routed cost, the realised and missed savings
 * follow the measurement; the model's share stays beside it; the contradiction is flagged; the savings
 * and fleet totals, and a report's documents (JSON, CSV, HTML), say how much of each figure is measured
 * and flag the contradiction. Truth is computed by hand from the measured
 * volumes and the planned shares (AWS us-east-1: $0.02 per cross-zone GB).
 */
const missing = prometheusMissing();
if (missing) console.warn(missing);

const PRICE = 0.02;

let stack: QueryStack;
let tenant: Tenant;
let cluster: { id: string; token: string };
let list: KubernetesList;
let exporter: RunningExporter;
let prometheus: RunningPrometheus;
let snapshotAt: Date;
let contradicting: TrafficPlan;
let agreeing: TrafficPlan;
let opportunity: TrafficPlan;

function client() {
  return apiClient(stack.url, tenant.adminKey);
}

async function services() {
  const answer = await client().get(`/v1/clusters/${cluster.id}/services?limit=500&sort=name`);
  expect(answer.status).toBe(200);
  return ServiceListSchema.parse(answer.body).services;
}

const key = (s: { namespace: string; name: string }) => `${s.namespace}/${s.name}`;

describe.skipIf(missing !== null)('savings from the measured share', () => {
  beforeAll(async () => {
    stack = await startQueryStack('measured-savings', {
      TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: 'true',
      TRAFFIC_SOURCE_MIN_WINDOW_SECONDS: '1',
    });
    tenant = await createTenant(stack.prisma, 'measured-savings');
    cluster = await createCluster(stack.prisma, tenant, 'measured', { cloud: 'aws', region: 'us-east-1' });
    // Two days of history, so that the range's money is dollars, not fractions of a cent.
    snapshotAt = new Date(Date.now() - 2 * 24 * 3600_000);
    list = withWorkloads(capturedAt(fleet(24, 3), snapshotAt));
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, list)]);
    const all = (await services()).filter((service) => service.name.startsWith('svc-'));
    const populated = all.filter((s) => s.hints.state === 'populated' && s.crossZone.withHints < 0.5);
    const open = all.find((s) => s.opportunity && s.ifAutoEnabled!.crossZoneWithHints < 0.3)!;
    expect(populated.length).toBeGreaterThanOrEqual(2);
    expect(open).toBeDefined();
    contradicting = { ...populated[0], gbPerMonth: 30_000, crossZone: populated[0].crossZone.withHints + 0.4 };
    agreeing = { ...populated[1], gbPerMonth: 20_000, crossZone: populated[1].crossZone.withHints + 0.05 };
    opportunity = { ...open, gbPerMonth: 10_000, crossZone: 0.5 };
    const plans = [contradicting, agreeing, opportunity].map(({ namespace, name, gbPerMonth, crossZone }) => ({
      namespace,
      name,
      gbPerMonth,
      crossZone,
    }));
    exporter = await startExporter(presetCounters(list, plans));
    prometheus = await startPrometheus([exporter.target]);
    await scrapesHeld(prometheus, 'istio_tcp_sent_bytes_total', 8);
    const before = new Date();
    const put = await client().put(`/v1/clusters/${cluster.id}/traffic-source`, {
      preset: 'istio',
      url: prometheus.url,
      window: '5s',
      interval: '1h',
      clusterValue: 'measured',
    });
    expect([200, 201], JSON.stringify(put.body)).toContain(put.status);
    const source = await waitFor(
      'a measurement',
      async () => {
        const read = TrafficSourceSchema.parse((await client().get(`/v1/clusters/${cluster.id}/traffic-source`)).body);
        return read.lastAttemptAt !== null && new Date(read.lastAttemptAt) >= before && read.status !== 'pending'
          ? read
          : null;
      },
      60_000,
    );
    expect(source.status, source.lastError ?? '').toBe('ok');
  }, 300_000);

  afterAll(async () => {
    await prometheus?.stop();
    await exporter?.stop();
    await stack?.stop();
  });

  it('as-routed cost, realised and missed savings follow the measured share; the model stays beside it', async () => {
    const byKey = new Map((await services()).map((service) => [key(service), service]));
    for (const plan of [contradicting, agreeing, opportunity]) {
      const service = byKey.get(key(plan))!;
      const gb = service.measured!.trafficGb;
      const model = service.crossZone.withHints;
      expect(service.measured!.crossZone).toBeCloseTo(plan.crossZone, 9);
      expect(service.monthly.inputs).toMatchObject({
        trafficSource: 'measured',
        trafficGb: gb,
        crossZoneSource: 'measured',
        modelCrossZone: model,
        measuredCrossZone: service.measured!.crossZone,
      });
      // As routed: the measured share; without hints: the model's (it cannot be measured).
      expect(service.monthly.withHints.crossZoneGb).toBeCloseTo(gb * plan.crossZone, 6);
      expect(service.monthly.withHints.cost).toBeCloseTo(gb * plan.crossZone * PRICE, 2);
      expect(service.monthly.withoutHints.crossZoneGb).toBeCloseTo(gb * service.crossZone.withoutHints, 6);
      expect(service.monthly.realizedSavings.cost).toBeCloseTo(
        gb * (service.crossZone.withoutHints - plan.crossZone) * PRICE,
        2,
      );
      // The model's own figure is kept beside it.
      expect(service.modelVsMeasured!.estimated.crossZone).toBe(model);
    }
    const open = byKey.get(key(opportunity))!;
    const gb = open.measured!.trafficGb;
    expect(open.monthly.missedSavings!.crossZoneGb).toBeCloseTo(
      gb * (opportunity.crossZone - open.ifAutoEnabled!.crossZoneWithHints),
      6,
    );
    expect(open.monthly.missedSavings!.cost).toBeCloseTo(
      gb * (opportunity.crossZone - open.ifAutoEnabled!.crossZoneWithHints) * PRICE,
      2,
    );
  });

  it('flags a populated Service whose measured share contradicts its verdict, and only that one', async () => {
    const byKey = new Map((await services()).map((service) => [key(service), service]));
    const flagged = [...byKey.values()].filter((service) => service.contradiction !== null);
    expect(flagged.map(key)).toEqual([key(contradicting)]);
    const service = byKey.get(key(contradicting))!;
    expect(service.contradiction).toMatchObject({
      modelCrossZone: service.crossZone.withHints,
      measuredCrossZone: service.measured!.crossZone,
    });
    expect(service.contradiction!.reason).toMatch(/hints are populated.*ignores the hints, or clients outside/);
    expect(byKey.get(key(agreeing))!.contradiction).toBeNull();

    const graphql = await client().post('/graphql', {
      query: `query($id: ID!) { cluster(id: $id) { services(first: 200) { nodes { namespace name
        contradiction { measuredCrossZone reason } monthly { inputs { crossZoneSource modelCrossZone } } } } } }`,
      variables: { id: cluster.id },
    });
    expect(graphql.status, JSON.stringify(graphql.body)).toBe(200);
    const nodes = (
      graphql.body as {
        data: {
          cluster: {
            services: {
              nodes: {
                namespace: string;
                name: string;
                contradiction: { measuredCrossZone: number } | null;
                monthly: { inputs: { crossZoneSource: string } };
              }[];
            };
          };
        };
      }
    ).data.cluster.services.nodes;
    expect(nodes.filter((node) => node.contradiction !== null).map(key)).toEqual([key(contradicting)]);
    expect(nodes.find((node) => key(node) === key(opportunity))!.monthly.inputs.crossZoneSource).toBe('measured');
  });

  it('savings over a range use the measured share and say how much of each figure is measured', async () => {
    const byKey = new Map((await services()).map((service) => [key(service), service]));
    const from = new Date(snapshotAt.getTime() - 60_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const answer = await client().get(
      `/v1/savings?clusterId=${cluster.id}&groupBy=service&limit=1000&from=${from}&to=${to}`,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const savings = SavingsSchema.parse(answer.body);
    let measuredWith = 0;
    let measuredWithout = 0;
    let measuredMissed = 0;
    for (const plan of [contradicting, agreeing, opportunity]) {
      const group = savings.groups.find((g) => key({ namespace: g.namespace!, name: g.name! }) === key(plan))!;
      const service = byKey.get(key(plan))!;
      // trafficGb is the measured volume times the months the state held in the range.
      expect(group.trafficGb).toBeCloseTo(service.measured!.trafficGb * group.months, 6);
      expect(group.withHints.crossZoneGb).toBeCloseTo(group.trafficGb * plan.crossZone, 6);
      expect(group.withoutHints.crossZoneGb).toBeCloseTo(group.trafficGb * service.crossZone.withoutHints, 6);
      expect(group.measured.services).toBe(1);
      expect(group.measured.withHints.crossZoneGb).toBeCloseTo(group.withHints.crossZoneGb, 6);
      expect(group.measured.withHintsCostShare).toBeCloseTo(1, 9);
      measuredWith += group.trafficGb * plan.crossZone * PRICE;
      measuredWithout += group.trafficGb * service.crossZone.withoutHints * PRICE;
      if (plan === opportunity) {
        const missed = group.trafficGb * (plan.crossZone - service.ifAutoEnabled!.crossZoneWithHints);
        expect(group.missedSavings.crossZoneGb).toBeCloseTo(missed, 6);
        measuredMissed += missed * PRICE;
      }
    }
    const totals = savings.totals;
    expect(totals.measured.services).toBe(3);
    expect(totals.inputs.servicesWithMeasuredCrossZone).toBe(3);
    expect(totals.measured.withHints.cost).toBeCloseTo(measuredWith, 2);
    expect(totals.measured.realizedSavings.cost).toBeCloseTo(measuredWithout - measuredWith, 2);
    expect(totals.measured.missedSavings.cost).toBeCloseTo(measuredMissed, 2);
    expect(totals.measured.withHints.cost).toBeGreaterThan(1);
    expect(totals.measured.withHintsCostShare).toBeCloseTo(
      totals.measured.withHints.crossZoneGb / totals.withHints.crossZoneGb,
      9,
    );
    // The unmeasured Services' share is the model's: the total is the sum of both.
    expect(totals.measured.withHintsCostShare!).toBeLessThan(1);
  });

  it('the fleet summary prices the cluster as routed by the measurement and says how much is measured', async () => {
    const all = await services();
    const asRouted = all.reduce((sum, service) => sum + service.monthly.withHints.crossZoneGb, 0);
    const measuredGb = [contradicting, agreeing, opportunity].reduce((sum, plan) => {
      const service = all.find((s) => key(s) === key(plan))!;
      return sum + service.measured!.trafficGb * plan.crossZone;
    }, 0);
    const answer = await client().get('/v1/fleet');
    expect(answer.status).toBe(200);
    const view = FleetSchema.parse(answer.body);
    const monthly = view.clusters.find((c) => c.id === cluster.id)!.monthly!;
    expect(monthly.withHints.crossZoneGb).toBeCloseTo(asRouted, 6);
    expect(monthly.measured.services).toBe(3);
    expect(monthly.measured.withHints.crossZoneGb).toBeCloseTo(measuredGb, 6);
    expect(monthly.measured.withHints.cost).toBeCloseTo(measuredGb * PRICE, 2);
    expect(monthly.measured.withHintsCostShare).toBeCloseTo(measuredGb / asRouted, 9);
    expect(view.totals.monthly.measured.withHints.cost).toBeCloseTo(measuredGb * PRICE, 2);
    // Every cost says its currency, in REST and in GraphQL.
    expect(view.currency).toBe('USD');
    expect(monthly.pricing).toMatchObject({ pricePerGb: PRICE, currency: 'USD' });
    const graphql = await client().post('/graphql', {
      query: '{ fleet { currency clusters { id monthly { pricing { currency } } } } }',
    });
    expect(graphql.body.errors, JSON.stringify(graphql.body)).toBeUndefined();
    const fleet = (graphql.body as { data: { fleet: { currency: string; clusters: unknown[] } } }).data.fleet;
    expect(fleet.currency).toBe('USD');
    expect(fleet.clusters).toEqual([{ id: cluster.id, monthly: { pricing: { currency: 'USD' } } }]);
  });

  it("a report's documents say how much of each total is measured and flag the contradiction", async () => {
    const admin = client();
    const created = await admin.post('/v1/report-schedules', {
      name: 'Measured',
      cadence: 'daily',
      timeZone: 'UTC',
      scope: { kind: 'clusters', clusterIds: [cluster.id] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await admin.post(`/v1/report-schedules/${created.body.schedule.id}/run`, { period: 'previous' });
    expect(run.status, JSON.stringify(run.body)).toBe(202);
    const report = await waitFor(
      'the report',
      async () => {
        const answer = await admin.get(`/v1/reports/${run.body.report.id}`);
        if (answer.body.status === 'failed') throw new Error(`report failed: ${answer.body.error}`);
        return answer.body.status === 'ready' ? ReportSchema.parse(answer.body) : null;
      },
      60_000,
    );
    const download = async (format: string) =>
      (await admin.get(`/v1/reports/${report.id}/download?format=${format}`)).body;
    const document = (await download('json')) as ReportDocument;
    const byKey = new Map((await services()).map((service) => [key(service), service]));

    // Yesterday, whole: each measured Service's as-routed GB is its period traffic times its measured share.
    let measuredGb = 0;
    for (const plan of [contradicting, agreeing, opportunity]) {
      const line = document.services.find((l) => key(l) === key(plan))!;
      expect(line.months).toBeCloseTo(24 / 730, 9);
      expect(line.trafficGb).toBeCloseTo(byKey.get(key(plan))!.measured!.trafficGb * (24 / 730), 6);
      expect(line).toMatchObject({ crossZoneSource: 'measured', fullyMeasured: true });
      expect(line.measuredCrossZone).toBeCloseTo(plan.crossZone, 9);
      expect(line.withHints.crossZoneGb).toBeCloseTo(line.trafficGb * plan.crossZone, 6);
      measuredGb += line.trafficGb * plan.crossZone;
    }
    const { measured } = document.totals;
    expect(document.currency).toBe('USD');
    expect(measured.services).toBe(3);
    expect(measured.withHints.crossZoneGb).toBeCloseTo(measuredGb, 6);
    // Money in the answers is in cents.
    expect(measured.withHints.cost).toBeCloseTo(measuredGb * PRICE, 2);
    expect(measured.withHintsCostShare).toBeCloseTo(measured.withHints.cost / document.totals.withHints.cost, 3);
    expect(measured.withHintsCostShare!).toBeLessThan(1);
    expect(document.clusters[0].totals.measured).toEqual(measured);

    // The same figures as GET /v1/savings over the report's period.
    const savings = SavingsSchema.parse(
      (await admin.get(`/v1/savings?clusterId=${cluster.id}&from=${document.period.start}&to=${document.period.end}`))
        .body,
    );
    expect(measured.withHints.cost).toBeCloseTo(savings.totals.measured.withHints.cost, 2);
    expect(measured.realizedSavings.cost).toBeCloseTo(savings.totals.measured.realizedSavings.cost, 2);
    expect(measured.missedSavings.cost).toBeCloseTo(savings.totals.measured.missedSavings.cost, 2);

    // Flagged: the populated Service whose measured share contradicts the model, and only it.
    expect(document.contradictions.map(key)).toEqual([key(contradicting)]);
    expect(document.contradictions[0].measuredCrossZone).toBeCloseTo(contradicting.crossZone, 9);
    expect(document.totals.contradictions).toBe(1);

    const [header, ...rows] = parseCsv((await download('csv')) as string);
    const row = rows.find(
      (fields) =>
        key({ namespace: fields[header.indexOf('namespace')], name: fields[header.indexOf('service')] }) ===
        key(contradicting),
    )!;
    expect(row[header.indexOf('cross_zone_source')]).toBe('measured');
    expect(row[header.indexOf('contradiction')]).toMatch(/hints are populated/);
    const html = (await download('html')) as string;
    expect(html).toContain('<div class="label">Cost measured</div>');
    expect(html).toContain(`<td>${key(contradicting)}</td>`);
  });
});
