import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { DATA_PLANE_ANNOTATION, KUBERNETES_VERSION_ANNOTATION, SERVICE_CIDR_ANNOTATION } from '@zw/core';
import { createPrismaClient, type PrismaClient, registerCluster } from '@zw/db';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { waitFor } from '../../../test/support/wait.js';
import { createApiApp } from '../../api/src/http-app.js';
import { Agent } from '../src/agent.js';
import { parseAgentConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { ownerOfService, realisticCluster } from './support/cluster.js';
import { FakeApiServer } from './support/fake-apiserver.js';
import { buildAgentAndCli, expectedAnalysis, storedAnalysis, zonewiseAnalyze } from './support/pipeline.js';
import { startInProcessWorker } from '../../../test/support/worker.js';

/**
 * The agent end to end: the real @kubernetes/client-node against the fake API server, pushing to the
 * real API, whose snapshots the real worker turns into history in the real Postgres through the real
 * Redis. The stored history must say what `zonewise analyze` says about the same objects.
 */

const SERVICE_CIDR = '10.96.0.0/16';
const quiet = { logger: ['error' as const] };

let db: TestDatabase;
let prisma: PrismaClient;
let prefix: string;
let api: INestApplication | null = null;
let apiPort = 0;
let worker: INestApplicationContext;
let dir: string;
const agents: Agent[] = [];
const servers: FakeApiServer[] = [];

async function startApi(port = 0): Promise<void> {
  api = await createApiApp(quiet);
  await api.listen(port, '127.0.0.1');
  apiPort = Number(new URL(await api.getUrl()).port);
}

async function stopApi(): Promise<void> {
  await api?.close();
  api = null;
}

async function fakeCluster(seed: number): Promise<FakeApiServer> {
  const server = new FakeApiServer();
  await server.start();
  server.unserve('ServiceCIDR'); // a cluster before 1.33: the CIDR comes from --service-cidr
  for (const item of realisticCluster({ services: 30, seed })) server.apply(item);
  servers.push(server);
  return server;
}

async function startAgent(
  server: FakeApiServer,
  token: string,
  flags: string[] = [],
): Promise<{ agent: Agent; spoolDir: string }> {
  const spoolDir = mkdtempSync(join(dir, 'spool-'));
  const config = parseAgentConfig(
    [
      '--api-url',
      `http://127.0.0.1:${apiPort}`,
      '--kubeconfig',
      server.writeKubeconfig(join(spoolDir, '..', `kubeconfig-${servers.length}-${agents.length}`)),
      '--service-cidr',
      SERVICE_CIDR,
      '--spool-dir',
      spoolDir,
      '--settle',
      '100ms',
      '--push-min-interval',
      '300ms',
      '--push-max-interval',
      '1h',
      '--retry-initial',
      '100ms',
      '--retry-max',
      '400ms',
      '--health-host',
      '127.0.0.1',
      '--health-port',
      '0',
      '--log-level',
      'silent',
      ...flags,
    ],
    { ZONEWISE_AGENT_TOKEN: token },
  )!;
  const agent = await Agent.create(config, createLogger(config.logLevel));
  await agent.start();
  agents.push(agent);
  return { agent, spoolDir };
}

async function newCluster(name: string) {
  const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug: 'agent-tests', name });
  return { id: cluster.id, token: agentToken };
}

/** Waits until the newest recorded snapshot of the cluster says what `zonewise analyze` says of the fake cluster now. */
async function expectHistoryToMatchCli(server: FakeApiServer, clusterId: string) {
  const expected = expectedAnalysis(zonewiseAnalyze(server.list(), { [SERVICE_CIDR_ANNOTATION]: SERVICE_CIDR }));
  const seen: { stored: Awaited<ReturnType<typeof storedAnalysis>>; pending: number } = { stored: null, pending: 0 };
  const view = () => seen.stored && { summary: seen.stored.summary, services: seen.stored.services };
  const matches = () => {
    try {
      expect(view()).toEqual(expected);
      return true;
    } catch {
      return false;
    }
  };
  try {
    await waitFor(
      'the history to catch up with the cluster',
      async () => {
        seen.stored = await storedAnalysis(prisma, clusterId);
        seen.pending = await prisma.snapshot.count({ where: { clusterId, status: { in: ['queued', 'processing'] } } });
        return seen.pending === 0 && matches();
      },
      30_000,
      200,
    );
  } finally {
    // On a timeout, show the difference rather than only "timed out".
    expect(view()).toEqual(expected);
    expect(seen.pending).toBe(0);
  }
  return seen.stored!;
}

async function spooledCapturedAts(spoolDir: string): Promise<Date[]> {
  return readdirSync(spoolDir)
    .filter((name) => name.endsWith('.json.gz'))
    .sort()
    .map((name) => new Date(Number(name.slice(0, 15))));
}

function toggleTopology(server: FakeApiServer, name: string): void {
  const service = server
    .list()
    .find((item) => item.kind === 'Service' && (item.metadata as { name: string }).name === name)!;
  const metadata = service.metadata as { annotations?: Record<string, string> };
  const annotations = { ...(metadata.annotations ?? {}) };
  if (annotations['service.kubernetes.io/topology-mode']) delete annotations['service.kubernetes.io/topology-mode'];
  else annotations['service.kubernetes.io/topology-mode'] = 'Auto';
  server.apply({ ...service, metadata: { ...metadata, annotations } });
}

beforeAll(async () => {
  buildAgentAndCli();
  dir = mkdtempSync(join(tmpdir(), 'zw-agent-e2e-'));
  db = await createTestDatabase('agent');
  prefix = uniquePrefix('agent');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 3 });
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    JOB_BACKOFF_MS: '100',
    SWEEP_GRACE_MS: '1000',
    SWEEP_EVERY_MS: '500',
  };
  Object.assign(process.env, env);
  await startApi();
  worker = await startInProcessWorker(env, quiet);
}, 120_000);

afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.shutdown()));
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  if (!api) await startApi(apiPort);
});

afterAll(async () => {
  await worker?.close();
  await stopApi();
  await prisma?.$disconnect();
  await deletePrefixKeys(prefix);
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('agent → API → worker', () => {
  it('records what `zonewise analyze` says about the same objects, and follows the cluster as it changes', async () => {
    const server = await fakeCluster(11);
    const cluster = await newCluster('analysis');
    const { agent } = await startAgent(server, cluster.token);

    const first = await expectHistoryToMatchCli(server, cluster.id);
    expect(first.services.length).toBe(33); // 30 generated + kubernetes, kube-dns, legacy-ldap

    // The Pods and ReplicaSets the agent watched lead every replicas fix to the real workload.
    const contents = await prisma.serviceFixContent.findMany({ where: { clusterId: cluster.id } });
    type StoredFixes = {
      namespace: string;
      name: string;
      recommendations: { kind: string; workload?: unknown; patch: string }[];
    };
    const replicas = contents.flatMap(({ fixes }) => {
      const stored = fixes as StoredFixes;
      return (stored.recommendations ?? [])
        .filter((fix) => fix.kind === 'replicas' && fix.patch.includes('kubectl scale'))
        .map((fix) => ({ service: stored.name, namespace: stored.namespace, fix }));
    });
    expect(new Set(replicas.map((entry) => ownerOfService(entry.service).kind))).toEqual(
      new Set(['Deployment', 'StatefulSet']),
    );
    for (const { service, namespace, fix } of replicas) {
      const owner = ownerOfService(service);
      expect(fix.workload).toEqual({ ...owner, namespace });
      expect(fix.patch).toContain(`kubectl scale ${owner.kind.toLowerCase()}/${owner.name} -n ${namespace}`);
    }

    // Health and metrics, as the Helm chart's probes and Prometheus see them.
    const health = `http://127.0.0.1:${agent.healthPort}`;
    expect((await fetch(`${health}/livez`)).status).toBe(200);
    expect((await fetch(`${health}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${health}/healthz`)).json()).toMatchObject({
      live: true,
      ready: true,
      details: {
        resources: { nodes: 'synced', services: 'synced', endpointslices: 'synced', servicecidrs: 'unavailable' },
      },
    });
    const exposition = await (await fetch(`${health}/metrics`)).text();
    for (const name of [
      'pushes_total',
      'push_failures_total',
      'spool_snapshots',
      'watch_restarts_total',
      'process_cpu_seconds_total',
    ]) {
      expect(exposition).toContain(`zonewise_agent_${name}`);
    }

    // The stored payload is the compact List with the agent's annotations.
    const snapshot = await prisma.snapshot.findFirstOrThrow({
      where: { clusterId: cluster.id },
      include: { payload: true },
    });
    const payload = JSON.parse(gunzipSync(snapshot.payload!.gzip).toString()) as {
      metadata: { annotations: Record<string, string> };
    };
    expect(payload.metadata.annotations[SERVICE_CIDR_ANNOTATION]).toBe(SERVICE_CIDR);
    expect(new Date(payload.metadata.annotations['zonewise.io/captured-at'])).toEqual(snapshot.capturedAt);
    expect(gunzipSync(snapshot.payload!.gzip).toString()).not.toContain('managedFields');

    // The cluster changes: topology routing switched on and off, a node leaves, a Service goes away.
    toggleTopology(server, 'svc-00003');
    toggleTopology(server, 'svc-00001');
    server.remove('Node', 'node-00009');
    server.remove('Service', 'svc-00030', 'team-30');
    server.remove('EndpointSlice', 'svc-00030-xxxx0', 'team-30');
    const second = await expectHistoryToMatchCli(server, cluster.id);
    expect(second.services.length).toBe(32);
    expect(second.capturedAt.getTime()).toBeGreaterThan(first.capturedAt.getTime());

    // A dropped watch and a 410 Gone in the middle of changes lose nothing.
    server.dropWatches('Service');
    toggleTopology(server, 'svc-00005');
    server.compact('EndpointSlice');
    server.remove('EndpointSlice', 'svc-00006-xxxx0', 'team-06');
    await expectHistoryToMatchCli(server, cluster.id);

    const metrics = await agent.metrics.registry.getMetricsAsJSON();
    const pushes = metrics.find((metric) => metric.name === 'zonewise_agent_pushes_total')!;
    expect(pushes.values.find((value) => value.labels.result === 'accepted')?.value).toBeGreaterThanOrEqual(3);
  }, 90_000);

  it('delivers what it spooled while the API was down, keeping the newest when the spool is full', async () => {
    const server = await fakeCluster(12);
    const cluster = await newCluster('outage');
    const { agent, spoolDir } = await startAgent(server, cluster.token, ['--spool-max-snapshots', '3']);
    await expectHistoryToMatchCli(server, cluster.id);
    const before = await prisma.snapshot.count({ where: { clusterId: cluster.id } });

    await stopApi();
    // Five distinct states, each snapshotted (one per push interval) while nothing can be delivered.
    const states = ['svc-00002', 'svc-00004', 'svc-00007', 'svc-00008', 'svc-00010'];
    for (const [i, name] of states.entries()) {
      toggleTopology(server, name);
      await waitFor(`snapshot ${i + 1} taken`, async () => {
        const taken = (await agent.metrics.snapshots.get()).values.reduce((sum, value) => sum + value.value, 0);
        return taken >= 2 + i;
      });
    }
    // The snapshot counter moves before the spool is written: wait for the fifth write (its drop) too.
    const droppedSoFar = async () => (await agent.metrics.spoolDropped.get()).values[0]?.value ?? 0;
    await waitFor(
      'the spool to hold the newest three',
      async () => (await spooledCapturedAts(spoolDir)).length === 3 && (await droppedSoFar()) >= 2,
    );
    const spooled = await spooledCapturedAts(spoolDir);
    const dropped = await droppedSoFar();
    expect(dropped).toBe(2);
    const failures = (await agent.metrics.pushFailures.get()).values.reduce((sum, value) => sum + value.value, 0);
    expect(failures).toBeGreaterThan(0);

    await startApi(apiPort); // the API is back on the same address
    await waitFor('the spool to drain', async () => (await spooledCapturedAts(spoolDir)).length === 0, 20_000);
    await expectHistoryToMatchCli(server, cluster.id);
    const arrived = await prisma.snapshot.findMany({
      where: { clusterId: cluster.id },
      orderBy: { capturedAt: 'asc' },
      select: { capturedAt: true },
    });
    expect(arrived).toHaveLength(before + 3);
    expect(arrived.slice(-3).map((row) => row.capturedAt)).toEqual(spooled);
  }, 90_000);

  it("records the cluster's Kubernetes version and data plane as the agent detected them", async () => {
    const server = await fakeCluster(14);
    server.setVersion({ major: '1', minor: '31', gitVersion: 'v1.31.7' });
    server.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cilium-config', namespace: 'kube-system' },
      data: { 'kube-proxy-replacement': 'true', 'enable-service-topology': 'false' },
    });
    const cluster = await newCluster('cilium');
    await startAgent(server, cluster.token);
    const summary = await waitFor('the first analysis', () =>
      prisma.snapshotSummary.findFirst({ where: { clusterId: cluster.id } }),
    );
    expect(summary).toMatchObject({
      kubernetesVersion: '1.31',
      kubernetesVersionSource: 'snapshot',
      dataPlane: 'cilium-no-topology',
      dataPlaneSource: 'snapshot',
    });
    const snapshot = await prisma.snapshot.findFirstOrThrow({
      where: { clusterId: cluster.id },
      include: { payload: true },
    });
    const annotations = (
      JSON.parse(gunzipSync(snapshot.payload!.gzip).toString()) as { metadata: { annotations: Record<string, string> } }
    ).metadata.annotations;
    expect(annotations[KUBERNETES_VERSION_ANNOTATION]).toBe('1.31');
    expect(annotations[DATA_PLANE_ANNOTATION]).toBe('cilium-no-topology');
  }, 60_000);

  it('records a selector-less Service with hand-written slices as managed by no one, never an opportunity', async () => {
    const server = await fakeCluster(15);
    // An external database fronted by a Service without a selector; its slice is written by hand (no
    // managed-by label), with one ready endpoint per node: the EndpointSlice controller never touches it.
    server.apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'external-db', namespace: 'infra' },
      spec: {
        type: 'ClusterIP',
        clusterIP: '10.96.210.20',
        clusterIPs: ['10.96.210.20'],
        ipFamilies: ['IPv4'],
        ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
      },
    });
    const nodes = server.list().filter((item) => item.kind === 'Node') as {
      metadata: { name: string; labels: Record<string, string> };
    }[];
    server.apply({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: 'external-db-manual',
        namespace: 'infra',
        labels: { 'kubernetes.io/service-name': 'external-db' },
      },
      addressType: 'IPv4',
      endpoints: nodes.map((node, i) => ({
        addresses: [`10.250.0.${i + 10}`],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: node.metadata.name,
        zone: node.metadata.labels['topology.kubernetes.io/zone'],
      })),
      ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    });
    const cluster = await newCluster('selectorless');
    await startAgent(server, cluster.token);
    await expectHistoryToMatchCli(server, cluster.id);

    const interval = await prisma.serviceInterval.findFirstOrThrow({
      where: { clusterId: cluster.id, validTo: null, service: { namespace: 'infra', name: 'external-db' } },
    });
    expect(interval).toMatchObject({ routing: 'None', managedBy: 'none', hintState: 'none', previewState: null });
    // Controller-managed Services without routing, with selectors, still get their previews.
    const previewed = await prisma.serviceInterval.count({
      where: {
        clusterId: cluster.id,
        validTo: null,
        previewState: { not: null },
        managedBy: 'endpointslice-controller',
      },
    });
    expect(previewed).toBeGreaterThan(0);
  }, 60_000);

  it('sends heartbeat snapshots of an unchanged cluster, which add no history', async () => {
    const server = await fakeCluster(13);
    const cluster = await newCluster('heartbeat');
    await startAgent(server, cluster.token, ['--push-max-interval', '1500ms', '--push-min-interval', '200ms']);
    await waitFor(
      'three snapshots of the same state',
      async () => (await prisma.snapshot.count({ where: { clusterId: cluster.id } })) >= 3,
      15_000,
    );
    const stored = await storedAnalysis(prisma, cluster.id);
    expect(stored).not.toBeNull();
    // One interval per Service: the heartbeats recorded no change.
    expect(await prisma.serviceInterval.count({ where: { clusterId: cluster.id } })).toBe(stored!.services.length);
  }, 60_000);
});
