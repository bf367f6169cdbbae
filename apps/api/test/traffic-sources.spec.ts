import { type KubernetesList, type TrafficPreset } from '@zw/core';
import { openAuthHeader, sealAuthHeader } from '@zw/db';
import { redisConnectionFromUrl, TRAFFIC_QUEUE, trafficSchedulerId } from '@zw/queue';
import { parseKeyring, sealedKeyId } from '@zw/secrets';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrafficMeasurer } from '../../worker/src/traffic/traffic-measurer.service.js';
import { TrafficScheduler } from '../../worker/src/traffic/traffic-scheduler.service.js';
import {
  startCountingProxy,
  startExporter,
  startPrometheus,
  prometheusMissing,
  type CountingProxy,
  type RunningExporter,
  type RunningPrometheus,
  freePort,
  scrapesHeld,
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
import { sealedHeaderless } from '../../../test/support/legacy-secrets.js';
import { TEST_REDIS_URL } from '../../../test/support/redis.js';
import { waitFor } from '../../../test/support/wait.js';
import { ProblemSchema } from '../src/http/schemas.js';
import { ServiceListSchema } from '../src/services/services.schemas.js';
import { TrafficComparisonSchema, TrafficSourceSchema } from '../src/traffic-sources/traffic-sources.schemas.js';

/**
 * Traffic sources end to end: a real Prometheus scrapes an exporter whose counters are known and
 * consistent with the cluster (pushed through the real ingest route); the real worker queries it through a
 * counting proxy in its own queue; the API shows measured volumes and model against measurement.
 */
const missing = prometheusMissing();
if (missing) console.warn(missing);

const CUSTOM_TEMPLATE = 'sum by (namespace, service) (increase(zw_test_service_bytes_total[$window]))';
/** The deployment's keyring, and the key auth headers were sealed with before it (test-only keys). */
const SECRET_KEYS = 'k2:a-test-only-secret-keyring-key';
const TRAFFIC_KEY = 'a-test-only-traffic-sources-key';

let stack: QueryStack;
let tenant: Tenant;
let cluster: { id: string; token: string };
let list: KubernetesList;
let plans: TrafficPlan[];
let exporter: RunningExporter;
let prometheus: RunningPrometheus;
let proxy: CountingProxy;

function admin() {
  return apiClient(stack.url, tenant.adminKey);
}

async function configure(body: Record<string, unknown>, clusterId = cluster.id) {
  const before = new Date();
  const answer = await admin().put(`/v1/clusters/${clusterId}/traffic-source`, { clusterValue: 'measured', ...body });
  expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
  return { before, source: TrafficSourceSchema.parse(answer.body) };
}

/** Waits until the worker has tried the source since `after` (and, with `attempts`, that many times). */
async function attempted(after: Date, attempts = 1, clusterId = cluster.id) {
  return waitFor(
    'a measurement attempt',
    async () => {
      const answer = await admin().get(`/v1/clusters/${clusterId}/traffic-source`);
      const source = TrafficSourceSchema.parse(answer.body);
      const tried = source.lastAttemptAt !== null && new Date(source.lastAttemptAt) >= after;
      const enough = source.status === 'ok' || source.consecutiveFailures >= attempts;
      return tried && enough ? source : null;
    },
    20_000,
  );
}

async function services() {
  const answer = await admin().get(`/v1/clusters/${cluster.id}/services?limit=500&sort=name`);
  expect(answer.status).toBe(200);
  return ServiceListSchema.parse(answer.body).services;
}

describe.skipIf(missing !== null)('traffic sources through a real Prometheus', () => {
  beforeAll(async () => {
    stack = await startQueryStack('traffic', {
      TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: 'true',
      TRAFFIC_SOURCE_MIN_WINDOW_SECONDS: '1',
      TRAFFIC_SOURCE_ATTEMPTS: '2',
      TRAFFIC_SOURCE_BACKOFF_MS: '100',
      TRAFFIC_SOURCE_TIMEOUT_MS: '1500',
      SECRET_ENCRYPTION_KEYS: SECRET_KEYS,
      TRAFFIC_SOURCES_ENCRYPTION_KEY: TRAFFIC_KEY,
    });
    tenant = await createTenant(stack.prisma, 'traffic');
    cluster = await createCluster(stack.prisma, tenant, 'measured', { cloud: 'aws', region: 'us-east-1' });
    list = withWorkloads(capturedAt(fleet(8, 3), new Date(Date.now() - 60_000)));
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, list)]);
    const names = (await services()).filter((service) => service.name.startsWith('svc-')).slice(0, 3);
    plans = names.map((service, index) => ({
      namespace: service.namespace,
      name: service.name,
      gbPerMonth: 100 * (index + 1),
      crossZone: [0.25, 0.5, 0.1][index],
    }));
    exporter = await startExporter(presetCounters(list, plans));
    prometheus = await startPrometheus([exporter.target]);
    proxy = await startCountingProxy(prometheus.url);
    // A 5 s window needs a few scrapes behind it.
    await scrapesHeld(prometheus, 'zw_test_service_bytes_total', 8);
  }, 90_000);

  afterAll(async () => {
    await proxy?.stop();
    await prometheus?.stop();
    await exporter?.stop();
    await stack?.stop();
  });

  const presets: { preset: TrafficPreset; zones: boolean; extra?: Record<string, string> }[] = [
    { preset: 'istio', zones: true },
    { preset: 'istio-ambient', zones: true },
    { preset: 'linkerd', zones: true },
    { preset: 'beyla', zones: true },
    { preset: 'opencost', zones: true },
    { preset: 'custom', zones: false, extra: { queryTemplate: CUSTOM_TEMPLATE } },
  ];

  it.each(presets)(
    '$preset: one query per interval gives each Service its measured volume, the model against it',
    async ({ preset, zones, extra }) => {
      const queriesBefore = proxy.queries.length;
      const { before, source } = await configure({
        preset,
        url: proxy.url,
        window: '5s',
        interval: '1h',
        ...extra,
      });
      expect(source.status).toBe('pending');
      const measured = await attempted(before);
      expect(measured.status, measured.lastError ?? '').toBe('ok');
      expect(measured.coverage === null || measured.coverage === 1).toBe(true);
      expect(measured.servicesMeasured).toBe(plans.length);
      // One Prometheus round trip for the whole cluster, whatever its number of Services.
      expect(proxy.queries.length - queriesBefore).toBe(1);
      expect(proxy.queries.at(-1)).toBe(measured.query);
      if (preset === 'beyla') expect(measured.unmatchedSeries).toBe(1);

      const byName = new Map((await services()).map((service) => [`${service.namespace}/${service.name}`, service]));
      for (const plan of plans) {
        const service = byName.get(`${plan.namespace}/${plan.name}`)!;
        expect(service.monthly.inputs.trafficSource).toBe('measured');
        expect(service.monthly.inputs.trafficEstimate).toBe(false);
        expect(service.monthly.inputs.trafficNote).toMatch(
          new RegExp(`^measured: ${preset}, query .+, window 5s, at `),
        );
        // Scrapes land about a second apart: the rate is within a few percent of the exporter's.
        expect(service.measured!.trafficGb).toBeGreaterThan(plan.gbPerMonth * 0.95);
        expect(service.measured!.trafficGb).toBeLessThan(plan.gbPerMonth * 1.05);
        expect(service.monthly.inputs.trafficGb).toBe(service.measured!.trafficGb);
        const vs = service.modelVsMeasured!;
        expect(vs.measured.trafficGb).toBe(service.measured!.trafficGb);
        expect(vs.estimated.crossZone).toBe(service.crossZone.withHints);
        if (zones) {
          // Every series of one scrape shares its timestamps: the fraction is exact.
          expect(service.measured!.crossZone).toBeCloseTo(plan.crossZone, 9);
          expect(vs.error.crossZone).toBeCloseTo(service.crossZone.withHints - plan.crossZone, 9);
          // Money is written in cents.
          expect(vs.measured.cost).toBeCloseTo(service.measured!.trafficGb * plan.crossZone * 0.02, 2);
        } else {
          expect(service.measured!.crossZone).toBeNull();
          expect(vs.measured.cost).toBeNull();
        }
      }
      const [first] = plans;
      const detail = (await admin().get(`/v1/clusters/${cluster.id}/services/${first.namespace}/${first.name}`))
        .body as {
        current: { measured: unknown; modelVsMeasured: unknown; monthly: { inputs: unknown } };
      };
      const listed = byName.get(`${first.namespace}/${first.name}`)!;
      expect(detail.current.measured).toEqual({ ...listed.measured, ageSeconds: expect.any(Number) });
      expect(detail.current.modelVsMeasured).toEqual(listed.modelVsMeasured);
      expect(detail.current.monthly.inputs).toEqual(listed.monthly.inputs);
      const others = [...byName.values()].filter((service) => service.measured === null);
      expect(others.length).toBeGreaterThan(0);
      for (const service of others) expect(service.monthly.inputs.trafficSource).not.toBe('measured');

      const comparison = TrafficComparisonSchema.parse(
        (await admin().get(`/v1/clusters/${cluster.id}/measured-traffic`)).body,
      );
      expect(comparison.servicesMeasured).toBe(plans.length);
      expect(comparison.servicesWithMeasuredZones).toBe(zones ? plans.length : 0);
      const measuredGb = plans.reduce(
        (sum, plan) => sum + byName.get(`${plan.namespace}/${plan.name}`)!.measured!.trafficGb,
        0,
      );
      const totalGb = [...byName.values()].reduce((sum, service) => sum + service.monthly.inputs.trafficGb, 0);
      expect(comparison.measured.trafficGb).toBeCloseTo(measuredGb, 6);
      expect(comparison.measuredShare).toBeCloseTo(measuredGb / totalGb, 6);
      if (zones) {
        const crossGb = plans.reduce(
          (sum, plan) => sum + byName.get(`${plan.namespace}/${plan.name}`)!.measured!.trafficGb * plan.crossZone,
          0,
        );
        expect(comparison.measured.crossZoneGb).toBeCloseTo(crossGb, 6);
        expect(comparison.error.cost).toBeCloseTo(comparison.estimated.cost - crossGb * 0.02, 2);
      } else {
        expect(comparison.measured.crossZoneGb).toBeNull();
      }

      const savings = (await admin().get(`/v1/savings?groupBy=cluster`)).body as {
        totals: { inputs: { trafficSources: Record<string, number>; measuredShare: number | null } };
      };
      expect(savings.totals.inputs.trafficSources.measured).toBe(plans.length);
      expect(savings.totals.inputs.measuredShare).toBeGreaterThan(0);
    },
    30_000,
  );

  it('the cluster, the fleet summary and GraphQL say what is measured and where it came from', async () => {
    const { before } = await configure({
      preset: 'opencost',
      url: proxy.url,
      window: '5s',
      interval: '1h',
    });
    expect((await attempted(before)).status).toBe('ok');
    const comparison = TrafficComparisonSchema.parse(
      (await admin().get(`/v1/clusters/${cluster.id}/measured-traffic`)).body,
    );
    const rest = (await admin().get(`/v1/clusters/${cluster.id}`)).body as { trafficSource: { status: string } };
    expect(rest.trafficSource).toMatchObject({ preset: 'opencost', status: 'ok', lastError: null });

    const fleet = (await admin().get('/v1/fleet')).body as {
      clusters: { id: string; trafficSource: { status: string }; monthly: Record<string, number> }[];
      totals: { monthly: { measuredShare: number } };
    };
    const entry = fleet.clusters.find((candidate) => candidate.id === cluster.id)!;
    expect(entry.trafficSource.status).toBe('ok');
    expect(entry.monthly.servicesWithMeasuredTraffic).toBe(plans.length);
    expect(entry.monthly.measuredTrafficGb).toBeCloseTo(comparison.measured.trafficGb!, 6);
    expect(entry.monthly.measuredShare).toBeCloseTo(comparison.measuredShare!, 6);
    expect(fleet.totals.monthly.measuredShare).toBeCloseTo(comparison.measuredShare!, 6);

    const response = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.readKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query($id: ID!) { cluster(id: $id) {
          trafficSource { preset status lastError }
          monthly { servicesWithMeasuredTraffic measuredTrafficGb measuredShare }
          measuredTraffic { servicesMeasured measuredShare measured { crossZone cost } error { crossZone cost } }
          services(first: 100) { nodes { namespace name
            monthly { inputs { trafficSource trafficNote } }
            measured { trafficGb crossZone ageSeconds source { preset windowSeconds query } }
            modelVsMeasured { estimated { crossZone cost } measured { crossZone cost } error { crossZone cost } } } } } }`,
        variables: { id: cluster.id },
      }),
    });
    const graph = ((await response.json()) as { data: { cluster: Record<string, any> } }).data.cluster; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(graph.trafficSource).toEqual({ preset: 'opencost', status: 'ok', lastError: null });
    expect(graph.monthly.measuredShare).toBeCloseTo(comparison.measuredShare!, 6);
    expect(graph.measuredTraffic).toEqual({
      servicesMeasured: comparison.servicesMeasured,
      measuredShare: comparison.measuredShare,
      measured: { crossZone: comparison.measured.crossZone, cost: comparison.measured.cost },
      error: { crossZone: comparison.error.crossZone, cost: comparison.error.cost },
    });
    const rows = new Map(
      (graph.services.nodes as { namespace: string; name: string }[]).map((node) => [
        `${node.namespace}/${node.name}`,
        node,
      ]),
    );
    for (const plan of plans) {
      const node = rows.get(`${plan.namespace}/${plan.name}`) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(node.monthly.inputs.trafficSource).toBe('measured');
      expect(node.measured.source).toMatchObject({ preset: 'opencost', windowSeconds: 5 });
      expect(node.measured.crossZone).toBeCloseTo(plan.crossZone, 9);
      expect(node.modelVsMeasured.measured.crossZone).toBeCloseTo(plan.crossZone, 9);
    }

    // Reports say how much of their traffic is measured, in every format.
    const schedule = (
      await admin().post('/v1/report-schedules', {
        name: 'Measured',
        cadence: 'daily',
        timeZone: 'UTC',
        scope: { kind: 'clusters', clusterIds: [cluster.id] },
      })
    ).body as { schedule: { id: string } };
    const run = (await admin().post(`/v1/report-schedules/${schedule.schedule.id}/run`, {})).body as {
      report: { id: string };
    };
    await waitFor(
      'the report',
      async () => (await admin().get(`/v1/reports/${run.report.id}`)).body.status === 'ready',
      30_000,
    );
    const download = (format: string) => admin().get(`/v1/reports/${run.report.id}/download?format=${format}`);
    const document = (await download('json')).body as {
      totals: { trafficSources: Record<string, number>; measuredTrafficGb: number; measuredShare: number };
      notes: string[];
      measuredTraffic: { cluster: { id: string }; measured: { crossZone: number }; error: { cost: number } }[];
    };
    expect(document.totals.trafficSources.measured).toBe(plans.length);
    expect(document.totals.measuredShare).toBeGreaterThan(0);
    expect(document.totals.measuredShare).toBeLessThan(1);
    expect(document.notes.join('\n')).toMatch(/3 Service\(s\) use volumes measured by their cluster's traffic source/);
    const csvRows = String((await download('csv')).body)
      .split('\r\n')
      .map((line) => line.split(','));
    const sourceColumn = csvRows[0].indexOf('traffic_source');
    const measuredRows = csvRows.filter((row) => row[sourceColumn] === 'measured');
    expect(new Set(measuredRows.map((row) => `${row[4]}/${row[5]}`))).toEqual(
      new Set(plans.map((plan) => `${plan.namespace}/${plan.name}`)),
    );
    const html = String((await download('html')).body);
    expect(html).toContain('Traffic measured');
    expect(html).toContain('Model against measurement');
    // The model against the measurement, as the API's measured-traffic answer gives it.
    expect(document.measuredTraffic).toHaveLength(1);
    expect(document.measuredTraffic[0].cluster.id).toBe(cluster.id);
    expect(document.measuredTraffic[0].measured.crossZone).toBeCloseTo(comparison.measured.crossZone!, 9);
    expect(document.measuredTraffic[0].error.cost).toBeCloseTo(comparison.error.cost!, 2);
  }, 30_000);

  it.each([
    { mode: 'drop' as const, status: 'unreachable' },
    { mode: 'hang' as const, status: 'timeout' },
    { mode: 'html' as const, status: 'bad-response' },
  ])(
    'a Prometheus that fails ($mode) is the status $status, retried, keeping the last measurement',
    async ({ mode, status }) => {
      const body = { preset: 'custom', url: proxy.url, window: '5s', interval: '1h', queryTemplate: CUSTOM_TEMPLATE };
      proxy.mode = 'forward';
      const good = await configure(body);
      expect((await attempted(good.before)).status).toBe('ok');
      const queriesBefore = proxy.queries.length;
      proxy.mode = mode;
      try {
        const { before } = await configure(body);
        const failed = await attempted(before, 2);
        expect(failed.status).toBe(status);
        expect(failed.lastError).toBeTruthy();
        expect(failed.consecutiveFailures).toBe(2);
        expect(proxy.queries.length - queriesBefore).toBe(2);
        // The same source set again keeps its measurements: they stay, with their age.
        const kept = (await services()).filter((service) => service.measured !== null);
        expect(kept).toHaveLength(plans.length);
        for (const service of kept) expect(service.monthly.inputs.trafficSource).toBe('measured');
        // The snapshot path never depends on the source.
        const next = capturedAt(list, new Date(Date.now() - 30_000));
        await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, next)]);
      } finally {
        proxy.mode = 'forward';
      }
    },
    40_000,
  );

  it('a query that returns nothing, or series without the labels, is a status and no measurement', async () => {
    const empty = await configure({
      preset: 'custom',
      url: proxy.url,
      window: '5s',
      interval: '1h',
      queryTemplate: 'sum by (namespace, service) (increase(zw_no_such_metric_total[$window]))',
    });
    const answer = await attempted(empty.before, 2);
    expect(answer.status).toBe('empty');
    // A different source: the old measurements are not shown under its name.
    expect((await services()).every((service) => service.measured === null)).toBe(true);

    const wrong = await configure({
      preset: 'custom',
      url: proxy.url,
      window: '5s',
      interval: '1h',
      queryTemplate: 'sum by (job) (increase(zw_test_service_bytes_total{namespace!="", service!=""}[$window]))',
    });
    const labelled = await attempted(wrong.before, 2);
    expect(labelled.status).toBe('wrong-labels');
    expect(labelled.lastError).toMatch(/namespace and service; labels the series carry: job/);
  }, 40_000);

  it('an unreachable address is the status unreachable', async () => {
    const closed = await freePort();
    const { before } = await configure({
      preset: 'istio',
      url: `http://127.0.0.1:${closed}`,
      window: '5s',
      interval: '1h',
    });
    const failed = await attempted(before, 2);
    expect(failed.status).toBe('unreachable');
    expect(failed.lastError).toMatch(/ECONNREFUSED/);
  }, 30_000);

  it('refuses bad configuration at the door, naming the field', async () => {
    const path = `/v1/clusters/${cluster.id}/traffic-source`;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ preset: 'datadog', url: proxy.url }, /preset/],
      [{ preset: 'istio', url: 'not a url' }, /url.*not a URL/],
      [{ preset: 'istio', url: 'ftp://prometheus.example.com' }, /url/],
      [{ preset: 'istio', url: 'https://user:pw@prometheus.example.com' }, /url.*credentials/],
      [{ preset: 'istio', url: proxy.url, window: 'an hour' }, /window/],
      [{ preset: 'istio', url: proxy.url, window: '90d' }, /window/],
      [{ preset: 'custom', url: proxy.url }, /queryTemplate.*required/],
      [
        { preset: 'custom', url: proxy.url, queryTemplate: 'sum(increase(x[$window]))' },
        /queryTemplate.*namespace, service/,
      ],
      [
        { preset: 'custom', url: proxy.url, queryTemplate: 'sum by (namespace, service) (x)' },
        /queryTemplate.*\$window/,
      ],
      [{ preset: 'istio', url: proxy.url, queryTemplate: CUSTOM_TEMPLATE }, /queryTemplate.*only for the custom/],
      [{ preset: 'istio', url: proxy.url, colour: 'blue' }, /colour/],
    ];
    for (const [body, detail] of cases) {
      const answer = await admin().put(path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(ProblemSchema.parse(answer.body).detail).toMatch(detail);
    }
  });

  it('is the tenant’s own: read keys read, only admin keys write, other tenants get 404', async () => {
    const path = `/v1/clusters/${cluster.id}/traffic-source`;
    const reader = apiClient(stack.url, tenant.readKey);
    expect((await reader.get(path)).status).toBe(200);
    expect((await reader.put(path, { preset: 'istio', url: proxy.url })).status).toBe(403);
    expect((await reader.delete(path)).status).toBe(403);
    const other = await createTenant(stack.prisma, 'traffic-other');
    const stranger = apiClient(stack.url, other.adminKey);
    expect((await stranger.get(path)).status).toBe(404);
    expect((await stranger.get(`/v1/clusters/${cluster.id}/measured-traffic`)).status).toBe(404);
    expect((await stranger.put(path, { preset: 'istio', url: proxy.url })).status).toBe(404);
    expect((await stranger.delete(path)).status).toBe(404);
    const source = (await admin().get(path)).body as Record<string, unknown>;
    expect(source).not.toHaveProperty('authHeader');
  });

  it('DELETE removes the source and its measurements: Services fall back to their estimates', async () => {
    const { before } = await configure({
      preset: 'custom',
      url: proxy.url,
      window: '5s',
      interval: '1h',
      queryTemplate: CUSTOM_TEMPLATE,
    });
    expect((await attempted(before)).status).toBe('ok');
    expect((await services()).some((service) => service.measured !== null)).toBe(true);
    expect((await admin().delete(`/v1/clusters/${cluster.id}/traffic-source`)).status).toBe(204);
    expect((await admin().get(`/v1/clusters/${cluster.id}/traffic-source`)).status).toBe(404);
    const after = await services();
    expect(
      after.every((service) => service.measured === null && service.monthly.inputs.trafficSource !== 'measured'),
    ).toBe(true);
    // Every change is in the audit log, never the auth header.
    const audit = (await admin().get('/v1/audit-log?action=cluster&limit=500')).body as {
      entries: { action: string; details: Record<string, unknown> }[];
    };
    const actions = new Set(audit.entries.map((entry) => entry.action));
    for (const action of ['create', 'change', 'delete']) expect(actions).toContain(`cluster.traffic_source_${action}`);
    expect(audit.entries.find((entry) => entry.action === 'cluster.traffic_source_change')?.details).toMatchObject({
      preset: 'custom',
      authHeaderSet: false,
    });
  }, 30_000);

  it('a Service gone from the answer loses its measurement and falls back to its estimate', async () => {
    const body = { preset: 'custom', url: proxy.url, window: '5s', interval: '1h', queryTemplate: CUSTOM_TEMPLATE };
    const first = await configure(body);
    expect((await attempted(first.before)).servicesMeasured).toBe(plans.length);
    const [gone, ...kept] = plans;
    const all = presetCounters(list, plans);
    exporter.setCounters(
      all.filter(
        (counter) =>
          counter.name !== 'zw_test_service_bytes_total' ||
          counter.labels.service !== gone.name ||
          counter.labels.namespace !== gone.namespace,
      ),
    );
    try {
      // Its samples leave the 5 s window.
      await new Promise((resolve) => setTimeout(resolve, 7000));
      const again = await configure(body);
      expect((await attempted(again.before)).servicesMeasured).toBe(kept.length);
      const byName = new Map((await services()).map((service) => [`${service.namespace}/${service.name}`, service]));
      const fallback = byName.get(`${gone.namespace}/${gone.name}`)!;
      expect(fallback.measured).toBeNull();
      expect(fallback.monthly.inputs.trafficSource).not.toBe('measured');
      for (const plan of kept) expect(byName.get(`${plan.namespace}/${plan.name}`)!.measured).not.toBeNull();
    } finally {
      exporter.setCounters(all);
    }
  }, 40_000);

  it('the worker owns one job scheduler per source: made on PUT, re-made at boot if Redis lost it, gone on DELETE', async () => {
    const queue = new Queue(TRAFFIC_QUEUE, {
      connection: redisConnectionFromUrl(TEST_REDIS_URL),
      prefix: stack.prefix,
    });
    const id = trafficSchedulerId(cluster.id);
    try {
      await configure({
        preset: 'custom',
        url: proxy.url,
        window: '5s',
        interval: '2h',
        queryTemplate: CUSTOM_TEMPLATE,
      });
      const scheduled = await waitFor(
        'the scheduler',
        async () => (await queue.getJobScheduler(id))?.every === 7_200_000,
      );
      expect(scheduled).toBe(true);
      await queue.removeJobScheduler(id);
      await stack.worker.get(TrafficScheduler).onApplicationBootstrap();
      expect((await queue.getJobScheduler(id))?.every).toBe(7_200_000);
      expect((await admin().delete(`/v1/clusters/${cluster.id}/traffic-source`)).status).toBe(204);
      await waitFor('the scheduler to go', async () => !(await queue.getJobScheduler(id)));
    } finally {
      await queue.close();
    }
  }, 30_000);

  it('an auth header stored before the keyring is still sent, and re-sealed with the keyring when saved', async () => {
    const body = { preset: 'custom', url: proxy.url, window: '5s', interval: '1h', queryTemplate: CUSTOM_TEMPLATE };
    const first = await configure(body);
    expect((await attempted(first.before)).status).toBe('ok');
    // Stored the old way: `iv ‖ tag ‖ ciphertext` under one SHA-256 of TRAFFIC_SOURCES_ENCRYPTION_KEY.
    const header = 'Bearer from-before-the-keyring';
    const legacy = sealedHeaderless(TRAFFIC_KEY, header);
    await stack.prisma.clusterTrafficSource.update({ where: { clusterId: cluster.id }, data: { authHeader: legacy } });
    const sent = proxy.authorizations.length;
    expect(await stack.worker.get(TrafficMeasurer).measure(cluster.id)).toMatchObject({ measured: true });
    expect(proxy.authorizations.slice(sent)).toContain(header);
    const read = await stack.prisma.clusterTrafficSource.findUniqueOrThrow({ where: { clusterId: cluster.id } });
    expect(Buffer.from(read.authHeader!).equals(Buffer.from(legacy))).toBe(true); // reading rewrites nothing

    // The next save re-seals it: version 2 under the keyring's current key, bound to this cluster's
    // source; the keyring alone opens it (the old key is no longer needed for it).
    const second = await configure(body);
    expect(second.source.hasAuthHeader).toBe(true);
    const saved = (await stack.prisma.clusterTrafficSource.findUniqueOrThrow({ where: { clusterId: cluster.id } }))
      .authHeader!;
    expect(saved[0]).toBe(2);
    expect(sealedKeyId(saved)).toBe('k2');
    expect(Buffer.from(saved).toString('latin1')).not.toContain('from-before');
    expect(openAuthHeader(parseKeyring(SECRET_KEYS), cluster.id, saved)).toBe(header);
    expect((await attempted(second.before)).status).toBe('ok');
    expect(proxy.authorizations.at(-1)).toBe(header);
    // Saved again, it is left as it is.
    await configure(body);
    const again = (await stack.prisma.clusterTrafficSource.findUniqueOrThrow({ where: { clusterId: cluster.id } }))
      .authHeader!;
    expect(Buffer.from(again).equals(Buffer.from(saved))).toBe(true);
  }, 30_000);

  it('a sealed header copied to another cluster, or under a key the keyring lost, is refused and says why', async () => {
    const other = await createCluster(stack.prisma, tenant, 'copied-to', { cloud: 'aws' });
    const body = { preset: 'custom', url: proxy.url, window: '5s', interval: '1h', queryTemplate: CUSTOM_TEMPLATE };
    await configure({ ...body, authHeader: 'Bearer mine' });
    // Its own first measurement done, so none runs alongside the ones below.
    await attempted((await configure(body, other.id)).before, 2, other.id);
    const measurer = stack.worker.get(TrafficMeasurer);
    const refusedWith = async (authHeader: Uint8Array<ArrayBuffer>, reason: RegExp) => {
      await stack.prisma.clusterTrafficSource.update({ where: { clusterId: other.id }, data: { authHeader } });
      await expect(measurer.measure(other.id)).rejects.toThrow(/bad-credentials/);
      const answer = await admin().get(`/v1/clusters/${other.id}/traffic-source`);
      const source = TrafficSourceSchema.parse(answer.body);
      expect(source.status).toBe('bad-credentials');
      expect(source.lastError).toMatch(reason);
    };
    const mine = (await stack.prisma.clusterTrafficSource.findUniqueOrThrow({ where: { clusterId: cluster.id } }))
      .authHeader!;
    await refusedWith(mine, /cannot be decrypted: sealed with key "k2", but it does not open with that key/);
    const gone = sealAuthHeader(parseKeyring('gone-1:a-key-no-longer-configured'), other.id, 'Bearer lost');
    await refusedWith(gone, /sealed with key "gone-1", which the keyring does not hold .*set it again/);
  }, 30_000);

  it('a Pod-mapped preset before the cluster has a snapshot is the status no-snapshot', async () => {
    const fresh = await createCluster(stack.prisma, tenant, 'not-yet-pushed', { cloud: 'aws' });
    const { before } = await configure({ preset: 'opencost', url: proxy.url, window: '5s', interval: '1h' }, fresh.id);
    const failed = await attempted(before, 2, fresh.id);
    expect(failed.status).toBe('no-snapshot');
    expect(failed.lastError).toMatch(/no stored snapshot/);
  }, 30_000);
});
