import { KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait.js';
import { RESOURCES, type ResourceName } from '../src/kubernetes.js';
import { createLogger } from '../src/logger.js';
import { AgentMetrics } from '../src/metrics.js';
import { ResourceWatcher } from '../src/resource-watcher.js';
import { FakeApiServer } from './support/fake-apiserver.js';

/**
 * The real @kubernetes/client-node informers, wrapped by ResourceWatcher, against the fake API server:
 * lists in pages, follows watch events, and survives what real clusters do to watches.
 */

let dir: string;
let server: FakeApiServer;
let kubeConfig: KubeConfig;
const watchers: ResourceWatcher[] = [];

function node(name: string, zone = 'zone-a', cpu = '4'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
    status: { allocatable: { cpu }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function watcher(resource: ResourceName, options: { relistIntervalMs?: number; stallTimeoutMs?: number } = {}) {
  const metrics = new AgentMetrics({ processMetrics: false });
  let changes = 0;
  const created = new ResourceWatcher({
    kubeConfig,
    definition: RESOURCES.find((definition) => definition.name === resource)!,
    relistIntervalMs: options.relistIntervalMs ?? 600_000,
    stallTimeoutMs: options.stallTimeoutMs ?? 600_000,
    retryInitialMs: 50,
    retryMaxMs: 200,
    logger: createLogger('silent'),
    metrics,
    onChange: () => changes++,
  });
  watchers.push(created);
  created.start();
  return { watcher: created, metrics, changes: () => changes };
}

const names = (w: ResourceWatcher) =>
  w
    .objects()
    .map((object) => object.metadata!.name!)
    .sort();

async function restarts(metrics: AgentMetrics, reason: string): Promise<number> {
  const metric = await metrics.watchRestarts.get();
  return metric.values.filter((value) => value.labels.reason === reason).reduce((sum, value) => sum + value.value, 0);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zw-agent-watch-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeEach(async () => {
  server = new FakeApiServer();
  await server.start();
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(server.writeKubeconfig(join(dir, `kubeconfig-${Date.now()}`)));
});

afterEach(async () => {
  await Promise.all(watchers.splice(0).map((w) => w.stop()));
  await server.stop();
});

describe('ResourceWatcher', () => {
  it('lists every page, then follows added, modified and deleted objects', async () => {
    for (let i = 0; i < 1100; i++) server.apply(node(`node-${String(i).padStart(4, '0')}`));
    const { watcher: nodes } = watcher('nodes');
    await waitFor('the initial list', async () => nodes.synced);
    expect(nodes.objects()).toHaveLength(1100);
    const lists = server.requestsFor('Node', 'list');
    expect(lists.map((request) => request.query.limit)).toEqual(['500', '500', '500']);
    expect(lists[1].query.continue).toBeTruthy();

    server.apply(node('node-new'));
    server.apply(node('node-0000', 'zone-b'));
    server.remove('Node', 'node-0001');
    await waitFor('the watch events', async () => nodes.objects().length === 1100 && names(nodes).includes('node-new'));
    expect(names(nodes)).not.toContain('node-0001');
    const changed = nodes.objects().find((object) => object.metadata!.name === 'node-0000') as unknown as {
      metadata: { labels: Record<string, string> };
    };
    expect(changed.metadata.labels['topology.kubernetes.io/zone']).toBe('zone-b');
  });

  it('re-watches from the last resourceVersion when the server ends a watch cleanly', async () => {
    server.apply(node('a'));
    const { watcher: nodes, metrics } = watcher('nodes');
    await waitFor('synced', async () => nodes.synced && server.openWatches('Node') === 1);
    server.apply(node('b'));
    await waitFor('b', async () => names(nodes).includes('b'));
    expect(server.endWatches('Node')).toBe(1);
    server.apply(node('c'));
    await waitFor('c after the re-watch', async () => names(nodes).includes('c'), 10_000);
    expect(server.requestsFor('Node', 'list')).toHaveLength(1); // no relist needed
    const watches = server.requestsFor('Node', 'watch');
    expect(Number(watches[1].query.resourceVersion)).toBeGreaterThan(Number(watches[0].query.resourceVersion));
    expect(await restarts(metrics, 'reconnect')).toBeGreaterThanOrEqual(1);
  });

  it('keeps one watch open past 30 s while events flow (client-node 2.0.0 ended every watch at 30 s)', async () => {
    server.apply(node('a'));
    const { watcher: nodes, metrics } = watcher('nodes');
    await waitFor('synced', async () => nodes.synced && server.openWatches('Node') === 1);
    const started = Date.now();
    for (let i = 0; Date.now() - started < 34_000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 4000));
      server.apply(node('a', 'zone-a', String(4 + i)));
    }
    await waitFor('the last event', async () => JSON.stringify(nodes.objects()).includes(`"cpu":"${4 + 8}"`));
    expect(server.requestsFor('Node', 'watch')).toHaveLength(1);
    expect(server.requestsFor('Node', 'list')).toHaveLength(1);
    expect(await restarts(metrics, 'reconnect')).toBe(0);
  }, 60_000);

  it('starts again with a fresh list when a watch connection drops (client-node would stop)', async () => {
    server.apply(node('a'));
    server.apply(node('b'));
    const { watcher: nodes, metrics } = watcher('nodes');
    await waitFor('synced', async () => nodes.synced && server.openWatches('Node') === 1);
    expect(server.dropWatches('Node')).toBe(1);
    server.remove('Node', 'a');
    server.apply(node('c'));
    await waitFor('the state after the drop', async () => names(nodes).join() === 'b,c', 10_000);
    expect(await restarts(metrics, 'error')).toBeGreaterThanOrEqual(1);
    expect(server.requestsFor('Node', 'list').length).toBeGreaterThanOrEqual(2);
    expect(nodes.state).toBe('synced');
  });

  for (const style of ['event', 'status'] as const) {
    it(`lists again after 410 Gone (${style === 'event' ? 'ERROR event in the stream' : 'HTTP 410'})`, async () => {
      server.goneStyle = style;
      server.apply(node('a'));
      server.apply(node('b'));
      const { watcher: nodes, metrics } = watcher('nodes');
      await waitFor('synced', async () => nodes.synced && server.openWatches('Node') === 1);
      // Events the watch never sees: it ends, and its resourceVersion is compacted away.
      server.compact('Node');
      server.remove('Node', 'a');
      server.apply(node('c'));
      server.compact('Node');
      await waitFor('the relisted state', async () => names(nodes).join() === 'b,c', 15_000);
      expect(server.goneAnswers).toBeGreaterThanOrEqual(1);
      expect(server.requestsFor('Node', 'list').length).toBeGreaterThanOrEqual(2);
      // The informer itself relisted (410 is not an error that stops it).
      expect(await restarts(metrics, 'gone')).toBeGreaterThanOrEqual(1);
      expect(await restarts(metrics, 'error')).toBe(0);
    });
  }

  it('retries a failing list with backoff until it succeeds', async () => {
    server.apply(node('a'));
    server.failLists('Node', 500, 3);
    const { watcher: nodes, metrics } = watcher('nodes');
    await waitFor('synced after the failures', async () => nodes.synced, 10_000);
    expect(names(nodes)).toEqual(['a']);
    expect(server.requestsFor('Node', 'list').map((request) => request.status)).toEqual([500, 500, 500, 200]);
    expect(await restarts(metrics, 'error')).toBe(3);
  });

  it('treats a 404 on an optional resource (ServiceCIDR before 1.33) as absent, not as failing', async () => {
    server.unserve('ServiceCIDR');
    const { watcher: cidrs } = watcher('servicecidrs', { relistIntervalMs: 300 });
    await waitFor('resolved', async () => cidrs.synced);
    expect(cidrs.state).toBe('unavailable');
    expect(cidrs.objects()).toEqual([]);
    // It looks again later, and stays ready meanwhile.
    await waitFor('a second probe', async () => server.requestsFor('ServiceCIDR', 'list').length >= 2);
    expect(cidrs.synced).toBe(true);
  });

  it('keeps only the owner fields of Pods, listed or watched, so memory does not grow with Pod specs', async () => {
    const pod = (name: string, owner: string, image: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'shop',
        labels: { app: 'cart', 'pod-template-hash': '7c9' },
        annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' },
        managedFields: [{ manager: 'kube-controller-manager', fieldsV1: { 'f:spec': {} } }],
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: 'r-1', controller: true },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'not-the-controller', uid: 'c-1' },
        ],
      },
      spec: { containers: [{ name: 'cart', image, env: [{ name: 'X', value: 'y'.repeat(4096) }] }] },
      status: { phase: 'Running', podIP: '10.0.0.9' },
    });
    server.apply(pod('cart-7c9-a', 'cart-7c9', 'cart:1'));
    const { watcher: pods } = watcher('pods');
    await waitFor('the initial list', async () => pods.synced);
    server.apply(pod('cart-7c9-b', 'cart-7c9', 'cart:2'));
    await waitFor('the watch event', async () => pods.objects().length === 2);
    for (const cached of pods.objects()) {
      expect(Object.keys(cached)).toEqual(['metadata']);
      expect(cached.metadata).toEqual({
        name: cached.metadata!.name,
        namespace: 'shop',
        resourceVersion: expect.any(String),
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cart-7c9', uid: '', controller: true }],
      });
    }
    expect(JSON.stringify(pods.objects()).length).toBeLessThan(600);
  });

  it('treats a 403 on Pods or ReplicaSets (an older chart’s RBAC) as unavailable: snapshots go on without them', async () => {
    server.forbid('/api/v1/pods');
    server.forbid('/apis/apps/v1/replicasets');
    const pods = watcher('pods', { relistIntervalMs: 300 });
    const sets = watcher('replicasets', { relistIntervalMs: 300 });
    await waitFor('resolved', async () => pods.watcher.synced && sets.watcher.synced);
    expect([pods.watcher.state, sets.watcher.state]).toEqual(['unavailable', 'unavailable']);
    expect(pods.watcher.objects()).toEqual([]);
  });

  it('replaces a watch that has gone silent, and relists periodically without losing the cache', async () => {
    server.apply(node('a'));
    const stalled = watcher('nodes', { stallTimeoutMs: 1000 });
    await waitFor('synced', async () => stalled.watcher.synced);
    await waitFor('the watchdog', async () => (await restarts(stalled.metrics, 'stalled')) >= 1, 10_000);
    expect(names(stalled.watcher)).toEqual(['a']);

    const periodic = watcher('services', { relistIntervalMs: 300 });
    await waitFor('three periodic relists', async () => server.requestsFor('Service', 'list').length >= 4, 10_000);
    expect(await restarts(periodic.metrics, 'periodic')).toBeGreaterThanOrEqual(3);
    expect(periodic.watcher.state).toBe('synced');
  });
});
