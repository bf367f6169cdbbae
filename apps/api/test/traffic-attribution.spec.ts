import type { KubernetesList, TrafficPreset } from '@zw/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ExportedCounter,
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
import { privateCa, startTlsProxy } from '../../../test/support/tls.js';
import { type Call, truthOf, upstreamCounters, withWorkloads } from '../../../test/support/traffic.js';
import { waitFor } from '../../../test/support/wait.js';
import { ServiceListSchema } from '../src/services/services.schemas.js';
import { TrafficComparisonSchema, TrafficSourceSchema } from '../src/traffic-sources/traffic-sources.schemas.js';

/**
 * Attribution against hand-computed truth: a real Prometheus scrapes an exporter emitting each preset's
 * upstream metric in its exact shape, for two clusters at once (a shared Prometheus), with Services
 * calling each other (their own calls are not their traffic), a Service whose Pods belong to a
 * StatefulSet named otherwise, one on plain TCP, and both spellings of Kubecost's zone label. A second,
 * young Prometheus has less history than the window, series with the wrong labels, broken values and
 * values near 1e300.
 */
const missing = prometheusMissing();
if (missing) console.warn(missing);

let stack: QueryStack;
let tenant: Tenant;
let cluster: { id: string; token: string };
let list: KubernetesList;
let calls: Call[];
const stoppers: { stop(): Promise<void> }[] = [];
let shared: RunningPrometheus;
let young: RunningPrometheus;
let youngExporter: RunningExporter;

const admin = () => apiClient(stack.url, tenant.adminKey);

async function measure(body: Record<string, unknown>, attempts = 1) {
  const before = new Date();
  const answer = await admin().put(`/v1/clusters/${cluster.id}/traffic-source`, { interval: '1h', ...body });
  expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
  return waitFor(
    'a measurement attempt',
    async () => {
      const source = TrafficSourceSchema.parse((await admin().get(`/v1/clusters/${cluster.id}/traffic-source`)).body);
      const tried = source.lastAttemptAt !== null && new Date(source.lastAttemptAt) >= before;
      const done = source.status === 'ok' || source.status === 'partial' || source.consecutiveFailures >= attempts;
      return tried && done ? source : null;
    },
    30_000,
  );
}

async function services() {
  const answer = await admin().get(`/v1/clusters/${cluster.id}/services?limit=500&sort=name`);
  return new Map(
    ServiceListSchema.parse(answer.body).services.map((service) => [`${service.namespace}/${service.name}`, service]),
  );
}

describe.skipIf(missing !== null)('attribution against hand-computed truth, through a real Prometheus', () => {
  beforeAll(async () => {
    stack = await startQueryStack('attribution', {
      TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: 'true',
      TRAFFIC_SOURCE_MIN_WINDOW_SECONDS: '1',
      TRAFFIC_SOURCE_ATTEMPTS: '1',
      TRAFFIC_SOURCE_BACKOFF_MS: '100',
      TRAFFIC_SOURCE_TIMEOUT_MS: '5000',
    });
    tenant = await createTenant(stack.prisma, 'attribution');
    cluster = await createCluster(stack.prisma, tenant, 'measured', { cloud: 'aws', region: 'us-east-1' });
    const generated = capturedAt(fleet(8, 3, 4), new Date(Date.now() - 60_000));
    const names = generated.items
      .filter((item) => item.kind === 'Service' && item.metadata.name.startsWith('svc-'))
      .slice(0, 3)
      .map((item) => ({ namespace: item.metadata.namespace!, name: item.metadata.name }));
    const [a, b, db] = names;
    // The third Service's Pods belong to a StatefulSet named unlike it; the others to `<service>-app`.
    list = withWorkloads(generated, (_namespace, service) =>
      service === db.name ? { kind: 'StatefulSet', name: 'ledger' } : { kind: 'Deployment', name: `${service}-app` },
    );
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, list)]);
    const outside = { namespace: 'load', owner: 'loadgen' };
    calls = [
      { from: outside, to: a, requestGb: 40, responseGb: 160, crossZone: 0.25, protocol: 'http' },
      {
        from: { namespace: a.namespace, owner: `${a.name}-app`, service: a.name },
        to: b,
        requestGb: 30,
        responseGb: 90,
        crossZone: 0.5,
        protocol: 'http',
      },
      { from: outside, to: b, requestGb: 10, responseGb: 20, crossZone: 0.1, protocol: 'http' },
      { from: outside, to: db, requestGb: 50, responseGb: 250, crossZone: 0.4, protocol: 'tcp' },
      {
        from: { namespace: b.namespace, owner: `${b.name}-app`, service: b.name },
        to: db,
        requestGb: 20,
        responseGb: 80,
        crossZone: 0,
        protocol: 'tcp',
      },
    ];
    // Two clusters in one Prometheus: the other moves three times the bytes.
    const exporter = await startExporter(
      upstreamCounters(list, calls, {
        clusters: ['measured', 'other'],
        factors: [1, 3],
        camelCaseZone: new Set([b.name]),
      }),
    );
    shared = await startPrometheus([exporter.target]);
    stoppers.push(shared, exporter);
    youngExporter = await startExporter(youngCounters(list, calls));
    stoppers.push(youngExporter);
    await scrapesHeld(shared, 'zw_test_service_bytes_total', 8);
    // A Prometheus much younger than a 10-minute window.
    young = await startPrometheus([youngExporter.target]);
    stoppers.push(young);
    await scrapesHeld(young, 'tcp_write_bytes_total', 10);
  }, 120_000);

  afterAll(async () => {
    for (const stopper of stoppers.reverse()) await stopper.stop();
    await stack?.stop();
  });

  const presets: { preset: TrafficPreset; clusterLabel?: string; extra?: Record<string, string> }[] = [
    { preset: 'istio' },
    { preset: 'istio-ambient' },
    { preset: 'linkerd' },
    // Beyla names the cluster in its own attribute.
    { preset: 'beyla', clusterLabel: 'k8s_cluster_name' },
    { preset: 'opencost' },
    {
      preset: 'custom',
      extra: {
        queryTemplate: 'sum by (namespace, service) (increase(zw_test_service_bytes_total{$cluster}[$window]))',
      },
    },
  ];

  it.each(presets)(
    '$preset: every Service’s volume, cross-zone share and cost equal the truth; the other cluster is not counted',
    async ({ preset, clusterLabel, extra }) => {
      const source = await measure({
        preset,
        url: shared.url,
        window: '5s',
        clusterLabel: clusterLabel ?? 'cluster',
        clusterValue: 'measured',
        ...extra,
      });
      expect(source.status, source.lastError ?? '').toBe('ok');
      const truth = truthOf(preset, calls);
      expect(source.servicesMeasured).toBe(truth.size);
      const byKey = await services();
      for (const [key, expected] of truth) {
        const service = byKey.get(key)!;
        expect(service.measured, key).not.toBeNull();
        // Scrapes land about a second apart: the rate is within a few percent of the exporter's.
        expect(service.measured!.trafficGb / expected.gbPerMonth, key).toBeGreaterThan(0.95);
        expect(service.measured!.trafficGb / expected.gbPerMonth, key).toBeLessThan(1.05);
        if (expected.crossZone === null) expect(service.measured!.crossZone, key).toBeNull();
        // Every series of one scrape shares its timestamps: the share is exact.
        else expect(service.measured!.crossZone, key).toBeCloseTo(expected.crossZone, 9);
        const cost = expected.crossZone === null ? null : service.measured!.trafficGb * expected.crossZone * 0.02;
        if (cost === null) expect(service.modelVsMeasured!.measured.cost).toBeNull();
        else expect(service.modelVsMeasured!.measured.cost).toBeCloseTo(cost, 2);
      }
      for (const [key, service] of byKey) if (!truth.has(key)) expect(service.measured, key).toBeNull();
      const comparison = TrafficComparisonSchema.parse(
        (await admin().get(`/v1/clusters/${cluster.id}/measured-traffic`)).body,
      );
      const total = [...truth.keys()].reduce((sum, key) => sum + byKey.get(key)!.measured!.trafficGb, 0);
      expect(comparison.measured.trafficGb).toBeCloseTo(total, 6);
    },
    40_000,
  );

  it('a Service’s own calls are not its traffic (Beyla, Linkerd, Istio): its callee gets them', async () => {
    const [a, b] = [calls[0].to, calls[1].to];
    for (const preset of ['beyla', 'linkerd', 'istio'] as const) {
      const clusterLabel = preset === 'beyla' ? 'k8s_cluster_name' : 'cluster';
      expect(
        (await measure({ preset, url: shared.url, window: '5s', clusterLabel, clusterValue: 'measured' })).status,
      ).toBe('ok');
      const byKey = await services();
      // A receives 200 GB from outside and sends 120 GB of calls to B: 200 GB is its traffic.
      expect(byKey.get(`${a.namespace}/${a.name}`)!.measured!.trafficGb / 200, preset).toBeCloseTo(1, 1);
      expect(byKey.get(`${b.namespace}/${b.name}`)!.measured!.trafficGb / 150, preset).toBeCloseTo(1, 1);
    }
  }, 60_000);

  it.each(['istio', 'istio-ambient', 'linkerd', 'opencost', 'beyla'] as const)(
    '%s: series of two clusters and no selector are ambiguous, never ok; naming the other cluster reads its volumes',
    async (preset) => {
      const clusterLabel = preset === 'beyla' ? 'k8s_cluster_name' : 'cluster';
      const source = await measure({ preset, url: shared.url, window: '5s', clusterLabel });
      expect(source.status).toBe('ambiguous');
      expect(source.lastError).toMatch(new RegExp(`span 2 clusters \\(${clusterLabel}: measured, other\\)`));
      expect([...(await services()).values()].every((service) => service.measured === null)).toBe(true);
      const other = await measure({ preset, url: shared.url, window: '5s', clusterLabel, clusterValue: 'other' });
      expect(other.status).toBe('ok');
      const [key, expected] = [...truthOf(preset, calls)][0];
      expect((await services()).get(key)!.measured!.trafficGb / (3 * expected.gbPerMonth)).toBeCloseTo(1, 1);
    },
    40_000,
  );

  it('a source with less history than the window is partial, saying the share covered; volumes are over what it covers', async () => {
    // Enough history that one scrape interval at its start is a small part of it.
    await scrapesHeld(young, 'tcp_write_bytes_total', 30);
    const source = await measure({ preset: 'linkerd', url: young.url, window: '10m', clusterValue: 'measured' });
    expect(source.status, source.lastError ?? '').toBe('partial');
    expect(source.coverage).toBeGreaterThan(0);
    expect(source.coverage).toBeLessThan(0.5);
    expect(source.lastError).toMatch(/the source has data for \d+ % of the 600s window/);
    const byKey = await services();
    for (const [key, expected] of truthOf('linkerd', calls)) {
      const ratio = byKey.get(key)!.measured!.trafficGb / expected.gbPerMonth;
      expect(ratio, key).toBeGreaterThan(0.92);
      expect(ratio, key).toBeLessThan(1.08);
    }
  }, 60_000);

  it('series without the preset’s labels are wrong-labels, listing the labels they do carry', async () => {
    const source = await measure({ preset: 'beyla', url: young.url, window: '5s', clusterValue: 'measured' });
    expect(source.status).toBe('wrong-labels');
    expect(source.lastError).toMatch(
      /labels the series carry: cluster, dst_address, instance, job, src_address, transport \(query: /,
    );
  }, 30_000);

  it('negative or infinite increases are invalid-values, never ok, and store nothing', async () => {
    for (const template of [
      'sum by (namespace, service) (delta(zw_draining_bytes{$cluster}[$window]))',
      'sum by (namespace, service) (increase(zw_test_service_bytes_total{$cluster}[$window])) / 0',
    ]) {
      const source = await measure({
        preset: 'custom',
        url: young.url,
        window: '5s',
        clusterValue: 'measured',
        queryTemplate: template,
      });
      expect(source.status, template).toBe('invalid-values');
      expect(source.lastError).toMatch(/negative or non-finite increase/);
      expect([...(await services()).values()].every((service) => service.measured === null)).toBe(true);
    }
  }, 30_000);

  it('volumes near 1e300 are stored as measured: the Service, its cluster and the fleet agree', async () => {
    const source = await measure({
      preset: 'custom',
      url: young.url,
      window: '5s',
      clusterValue: 'measured',
      queryTemplate: 'sum by (namespace, service) (increase(zw_huge_bytes_total{$cluster}[$window]))',
    });
    expect(source.status, source.lastError ?? '').toBe('ok');
    const byKey = await services();
    const key = `${calls[0].to.namespace}/${calls[0].to.name}`;
    const expected = (1e300 * 730 * 3600) / 1e9; // 1e300 bytes a second, as GB per month
    const measured = byKey.get(key)!.measured!.trafficGb;
    expect(measured / expected).toBeGreaterThan(0.95);
    expect(measured / expected).toBeLessThan(1.05);
    const comparison = TrafficComparisonSchema.parse(
      (await admin().get(`/v1/clusters/${cluster.id}/measured-traffic`)).body,
    );
    expect(comparison.measured.trafficGb! / measured).toBeCloseTo(1, 12);
    const fleet = (await admin().get('/v1/fleet')).body as {
      clusters: { id: string; monthly: { measuredTrafficGb: number | null } }[];
    };
    // Summed in numeric, it may differ from the Service's own figure in the last bit only.
    const fleetGb = fleet.clusters.find((entry) => entry.id === cluster.id)!.monthly.measuredTrafficGb!;
    expect(fleetGb / measured).toBeCloseTo(1, 12);
  }, 30_000);

  it('a Prometheus behind a private CA: refused without the CA bundle, measured with it; a bad bundle is a 400', async () => {
    const ca = privateCa();
    const proxy = await startTlsProxy(ca, shared.url);
    stoppers.push(proxy);
    const body = { preset: 'istio', url: proxy.url, window: '5s', clusterValue: 'measured' };
    const untrusted = await measure(body);
    expect(untrusted.status).toBe('unreachable');
    expect(untrusted.lastError).toMatch(/certificate is not trusted: set the CA bundle/);
    const trusted = await measure({ ...body, caBundle: ca.caPem });
    expect(trusted.status, trusted.lastError ?? '').toBe('ok');
    expect(trusted.caBundle).toBe(ca.caPem);
    const refused = await admin().put(`/v1/clusters/${cluster.id}/traffic-source`, { ...body, caBundle: 'not a PEM' });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/caBundle.*PEM/);
  }, 40_000);
});

/**
 * The young Prometheus' exporter: Linkerd's series of the calls (for the coverage), a Beyla without
 * Kubernetes metadata (addresses only), a draining gauge, and a counter growing by 1e300 a second.
 */
function youngCounters(cluster: KubernetesList, planned: readonly Call[]): ExportedCounter[] {
  const linkerd = upstreamCounters(cluster, planned).filter((counter) => counter.name.startsWith('tcp_'));
  const first = planned[0].to;
  return [
    ...linkerd,
    {
      name: 'beyla_network_flow_bytes_total',
      labels: { cluster: 'measured', src_address: '10.0.0.1', dst_address: '10.0.0.2', transport: 'TCP' },
      bytesPerScrape: 500,
    },
    {
      name: 'zw_draining_bytes',
      labels: { cluster: 'measured', namespace: first.namespace, service: first.name },
      bytesPerScrape: -1000,
    },
    {
      name: 'zw_huge_bytes_total',
      labels: { cluster: 'measured', namespace: first.namespace, service: first.name },
      bytesPerScrape: 1e300,
    },
    {
      name: 'zw_test_service_bytes_total',
      labels: { cluster: 'measured', namespace: first.namespace, service: first.name },
      bytesPerScrape: 1000,
    },
  ];
}
