import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { analyzeSnapshot, type AnalysisReport, parseSnapshot } from '@zw/core';
import { createPrismaClient, type PrismaClient } from '@zw/db';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { createTenant, type Tenant } from '../../../test/support/query-api.js';
import { waitFor } from '../../../test/support/wait.js';
import { createApiApp } from '../../api/src/http-app.js';
import {
  CAPTURED_AT_ANNOTATION,
  DATA_PLANE_ANNOTATION,
  DATA_PLANE_DETAIL_ANNOTATION,
  KUBERNETES_VERSION_ANNOTATION,
} from '@zw/core';
import { DEMO_FLEET, spotNodes } from '../src/simulator/fleet.js';
import { simulatedSnapshot } from '../src/simulator/simulation.js';
import { buildAgentAndCli, ROOT } from './support/pipeline.js';
import { startInProcessWorker } from '../../../test/support/worker.js';

const at = new Date('2026-05-01T10:00:00Z');
const scenario = (name: string) => DEMO_FLEET.find((cluster) => cluster.name === name)!;

function analysis(name: string, tick: number, seed = 1): AnalysisReport {
  return analyzeSnapshot(parseSnapshot(JSON.parse(simulatedSnapshot(scenario(name), seed, tick, at).json)));
}

function service(report: AnalysisReport, name: string) {
  return report.services.find((candidate) => candidate.name === name)!;
}

describe('the demo fleet', () => {
  it('is the same for the same seed, and another for another seed', () => {
    for (const cluster of DEMO_FLEET) {
      for (const tick of [0, 3, 7]) {
        const a = simulatedSnapshot(cluster, 42, tick, at);
        expect(simulatedSnapshot(cluster, 42, tick, new Date(at.getTime() + 1000)).contentKey).toBe(a.contentKey);
        expect(JSON.parse(a.json).metadata.annotations[CAPTURED_AT_ANNOTATION]).toBe(at.toISOString());
      }
    }
    const differs = DEMO_FLEET.some(
      (cluster) => simulatedSnapshot(cluster, 1, 5, at).contentKey !== simulatedSnapshot(cluster, 2, 5, at).contentKey,
    );
    expect(differs).toBe(true);
  });

  it('has an AWS 3-AZ and a smaller GCP 3-zone cluster', () => {
    const zones = (report: AnalysisReport) => report.nodeInfo.zones.map((zone) => zone.name);
    const aws = analysis('aws-prod-us-east-1', 0);
    const gcp = analysis('gcp-analytics-europe-west1', 0);
    expect(zones(aws)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect(zones(gcp)).toEqual(['europe-west1-b', 'europe-west1-c', 'europe-west1-d']);
    expect(gcp.services.length).toBeLessThan(aws.services.length);
    expect(gcp.services.filter((s) => s.routing === 'PreferClose').length).toBeGreaterThan(gcp.services.length / 3);
  });

  it('has a Service with 4 endpoints in 3 zones that trips the overload threshold', () => {
    const checkout = service(analysis('aws-prod-us-east-1', 0), 'checkout');
    expect(checkout.routing).toBe('Auto');
    expect(checkout.readyEndpoints).toBe(4);
    expect(checkout.hints).toEqual({ state: 'removed', reason: expect.stringMatching(/overload threshold/) });
  });

  it('has the cluster DNS on its static ClusterIP and a static address in the dynamic band', () => {
    const report = analysis('aws-prod-us-east-1', 0);
    const [range] = report.serviceCIDRs;
    expect(range.risks).toEqual([
      expect.objectContaining({
        kind: 'static-ip-in-dynamic-band',
        ip: '10.100.200.50',
        service: 'payments/ledger-proxy',
        staticBecause: 'last-applied',
      }),
    ]);
    expect(JSON.stringify(range.wellKnown)).toContain('10.100.0.10');
    const dns = simulatedSnapshot(scenario('aws-prod-us-east-1'), 1, 0, at).json;
    expect(dns).toMatch(
      /"name":"kube-dns","namespace":"kube-system","labels":\{"app":"kube-dns","k8s-app":"kube-dns"\}[^}]*\}[^]*?"clusterIP":"10.100.0.10"/,
    );
  });

  it('has spot nodes in one zone that come and go, so the hints of its Auto Services flap', () => {
    const counts = Array.from({ length: 24 }, (_, tick) => spotNodes(tick, 1));
    expect(new Set(counts).size).toBeGreaterThan(2);
    const states = Array.from(
      { length: 24 },
      (_, tick) => service(analysis('aws-batch-us-west-2', tick), 'worker-queue').hints.state,
    );
    const flips = states.filter((state, i) => i > 0 && state !== states[i - 1]).length;
    expect(flips).toBeGreaterThanOrEqual(3);
    // Its controller lags a tick: the observed hints drift from the computed ones while it catches up.
    expect(
      Array.from({ length: 24 }, (_, tick) => analysis('aws-batch-us-west-2', tick).summary.servicesWithDrift).some(
        (n) => n > 0,
      ),
    ).toBe(true);
  });

  it('has a node without a zone label now and then, which stops every CPU-heuristic hint in its cluster', () => {
    const labelled = analysis('onprem-lab', 0);
    const joining = analysis('onprem-lab', 4);
    expect(labelled.nodeInfo.sufficient).toBe(true);
    expect(joining.nodeInfo).toMatchObject({ sufficient: false });
    expect(joining.nodeInfo.reason).toBeTruthy();
    expect(service(joining, 'runner-gateway').hints.state).toBe('removed');
    // No ServiceCIDR objects there: the range comes as the agent's --service-cidr annotation.
    const list = JSON.parse(simulatedSnapshot(scenario('onprem-lab'), 1, 0, at).json);
    expect(list.metadata.annotations['zonewise.io/service-cidr']).toBe('10.96.0.0/12');
  });

  it("reports each cluster's Kubernetes version and data plane as the agent detects them", () => {
    for (const cluster of DEMO_FLEET) {
      const annotations = JSON.parse(simulatedSnapshot(cluster, 1, 0, at).json).metadata.annotations;
      expect(annotations[KUBERNETES_VERSION_ANNOTATION]).toBe(cluster.kubernetesVersion);
      expect(annotations[DATA_PLANE_ANNOTATION]).toBe(cluster.dataPlane);
    }
    const legacy = JSON.parse(simulatedSnapshot(scenario('eks-legacy-eu-central-1'), 1, 0, at).json);
    expect(legacy.metadata.annotations[KUBERNETES_VERSION_ANNOTATION]).toBe('1.31');
    const orderApi = legacy.items.find((item: { metadata: { name: string } }) => item.metadata.name === 'order-api');
    expect(orderApi.spec.trafficDistribution).toBe('PreferSameZone');
    const cilium = JSON.parse(simulatedSnapshot(scenario('azure-cilium-westeurope'), 1, 0, at).json);
    expect(JSON.parse(cilium.metadata.annotations[DATA_PLANE_DETAIL_ANNOTATION])).toMatchObject({
      dataPlane: 'cilium-no-topology',
      cilium: { status: 'found', kubeProxyReplacement: 'true', serviceTopology: false },
      kubeProxy: { status: 'missing' },
      nodes: { linux: 9, windows: 0 },
    });
  });
});

describe('zonewise-simulate → API → worker', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let prefix: string;
  let api: INestApplication;
  let url: string;
  let worker: INestApplicationContext;
  let demo: Tenant;

  beforeAll(async () => {
    buildAgentAndCli();
    db = await createTestDatabase('simulate');
    prefix = uniquePrefix('simulate');
    prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
    demo = await createTenant(prisma, 'demo');
    const env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, JOB_BACKOFF_MS: '100' };
    Object.assign(process.env, env);
    api = await createApiApp({ logger: ['error'] });
    await api.listen(0, '127.0.0.1');
    url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
    worker = await startInProcessWorker({ ...env, WORKER_CONCURRENCY: '4' });
  }, 120_000);

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await prisma?.$disconnect();
    await deletePrefixKeys(prefix);
    await db?.drop();
  });

  async function simulate(args: string[], apiKey?: string): Promise<{ code: number | null; output: string }> {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', 'agent', 'simulate.js'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...(apiKey ? { ZONEWISE_API_KEY: apiKey } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = await once(child, 'exit');
    return { code: code as number | null, output };
  }

  it('creates the clusters through the API and plays N ticks of simulated time into history, then stops', async () => {
    const ticks = 12;
    const run = await simulate(
      [
        '--api-url',
        url,
        '--create-clusters',
        '--ticks',
        String(ticks),
        '--step',
        '5m',
        '--interval',
        '0',
        '--seed',
        '1',
        '--log-level',
        'warn',
      ],
      demo.adminKey,
    );
    expect(run).toMatchObject({ code: 0 });
    const clusters = await prisma.cluster.findMany({
      where: { organization: { slug: 'demo' } },
      orderBy: { name: 'asc' },
    });
    expect(clusters.map((cluster) => [cluster.name, cluster.cloud])).toEqual([
      ['aws-batch-us-west-2', 'aws'],
      ['aws-prod-us-east-1', 'aws'],
      ['azure-cilium-westeurope', 'azure'],
      ['eks-legacy-eu-central-1', 'aws'],
      ['gcp-analytics-europe-west1', 'gcp'],
      ['onprem-lab', 'other'],
    ]);
    // No overrides: the version and data plane come in the snapshots, as from a real agent.
    expect(clusters.map((cluster) => [cluster.kubernetesVersion, cluster.dataPlane])).toEqual(
      clusters.map(() => [null, null]),
    );
    await waitFor(
      'every snapshot processed',
      async () => (await prisma.snapshot.count({ where: { status: 'processed' } })) === ticks * DEMO_FLEET.length,
      60_000,
    );
    const byName = Object.fromEntries(clusters.map((cluster) => [cluster.name, cluster.id]));

    // The newest recorded state of each cluster is what the core says of the simulator's last tick.
    for (const cluster of DEMO_FLEET) {
      const latest = await prisma.snapshotSummary.findFirstOrThrow({
        where: { clusterId: byName[cluster.name] },
        orderBy: { capturedAt: 'desc' },
      });
      const expected = analysis(cluster.name, ticks - 1);
      expect({
        cluster: cluster.name,
        populated: latest.servicesPopulated,
        removed: latest.servicesRemoved,
        sufficient: latest.nodeInfoSufficient,
        kubernetesVersionSource: latest.kubernetesVersionSource,
        dataPlane: [latest.dataPlane, latest.dataPlaneSource],
      }).toEqual({
        cluster: cluster.name,
        populated: expected.summary.services.populated,
        removed: expected.summary.services.removed,
        sufficient: expected.nodeInfo.sufficient,
        kubernetesVersionSource: 'snapshot',
        dataPlane: [cluster.dataPlane, 'snapshot'],
      });
    }
    // History shows the stories: flapping hints, a node without a zone label, the overloaded checkout.
    const workerQueue = await prisma.serviceInterval.findMany({
      where: { clusterId: byName['aws-batch-us-west-2'], service: { name: 'worker-queue' } },
      orderBy: { validFrom: 'asc' },
    });
    expect(new Set(workerQueue.map((interval) => interval.hintState))).toEqual(new Set(['populated', 'removed']));
    expect(
      await prisma.snapshotSummary.count({ where: { clusterId: byName['onprem-lab'], nodeInfoSufficient: false } }),
    ).toBe(3);
    const checkout = await prisma.serviceInterval.findMany({
      where: { clusterId: byName['aws-prod-us-east-1'], service: { name: 'checkout' } },
    });
    // Its expected overload moves with the autoscaled CPU, but the controller never hints it.
    expect(checkout.length).toBeGreaterThanOrEqual(1);
    for (const interval of checkout) {
      expect(interval).toMatchObject({ hintState: 'removed', hintReason: expect.stringMatching(/overload threshold/) });
    }
    const first = await prisma.snapshot.findFirstOrThrow({ orderBy: { capturedAt: 'asc' } });
    const last = await prisma.snapshot.findFirstOrThrow({ orderBy: { capturedAt: 'desc' } });
    expect(last.capturedAt.getTime() - first.capturedAt.getTime()).toBeGreaterThanOrEqual((ticks - 1) * 5 * 60_000);

    // Played again, it gives the existing clusters new tokens and goes on.
    const again = await simulate(
      [
        '--api-url',
        url,
        '--create-clusters',
        '--clusters',
        'onprem-lab',
        '--ticks',
        '2',
        '--interval',
        '10ms',
        '--log-level',
        'warn',
      ],
      demo.adminKey,
    );
    expect(again.code).toBe(0);
    expect(await prisma.cluster.count()).toBe(DEMO_FLEET.length);
    expect(await prisma.snapshot.count({ where: { clusterId: byName['onprem-lab'] } })).toBe(ticks + 2);
  }, 120_000);

  it('exits 2 on bad options', async () => {
    const cases: [string[], RegExp][] = [
      [['--ticks', '0'], /--ticks: expected a whole number ≥ 1/],
      [['--step', '5m'], /--step: needs --ticks/],
      [['--clusters', 'nope', '--token', 'nope=zwa_x'], /no cluster "nope"/],
      [['--token', 'aws-prod-us-east-1=secret'], /--token: expected <cluster>=<zwa_… token>/],
      [[], /no agent token for any cluster/],
      [['--create-clusters'], /--create-clusters needs --api-key/],
      [
        ['--create-clusters', '--api-key', 'zwk_not-a-key'],
        /creating the clusters: GET \/v1\/clusters\?limit=1000: 401/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await simulate(['--api-url', url, ...args]);
      expect({ args, ...run }).toMatchObject({ code: 2, output: expect.stringMatching(message) });
    }
  }, 120_000);
});
