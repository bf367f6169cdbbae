import { KubeConfig } from '@kubernetes/client-node';
import {
  CAPTURED_AT_ANNOTATION,
  DATA_PLANE_ANNOTATION,
  DATA_PLANE_DETAIL_ANNOTATION,
  isDataPlaneName,
  KUBERNETES_VERSION_ANNOTATION,
} from '@zw/core';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait.js';
import { Agent } from '../src/agent.js';
import { clusterProfile, profileAnnotations } from '../src/cluster-profile.js';
import { ClusterReader } from '../src/cluster-reader.js';
import { parseAgentConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { realisticCluster } from './support/cluster.js';
import { FakeApiServer, objectPath } from './support/fake-apiserver.js';
import { freePort } from './support/pipeline.js';

/**
 * Detection of the Kubernetes version and the data plane: the real @kubernetes/client-node reading the
 * fake API server's `/version`, ConfigMaps, FelixConfiguration and namespaces, including the refusals
 * (403) and absences (404) a least-privilege or partly installed cluster gives.
 */

type Json = Record<string, unknown>;

let dir: string;
const servers: FakeApiServer[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zw-agent-profile-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Log lines, as the agent prints them. */
function logSink() {
  const lines: Json[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Json);
      done();
    },
  });
  return { lines, logger: createLogger('info', 'zonewise-agent', stream) };
}

async function fakeCluster(): Promise<FakeApiServer> {
  const server = new FakeApiServer();
  await server.start();
  for (const item of realisticCluster({ services: 4, nodes: 3 })) server.apply(item);
  servers.push(server);
  return server;
}

function configMap(name: string, data: Record<string, string>): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'kube-system' }, data };
}

function kubeProxy(mode: string): Json {
  return configMap('kube-proxy', {
    'config.conf': `apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: "${mode}"\n`,
    'kubeconfig.conf': 'apiVersion: v1\nkind: Config\n',
  });
}

function cilium(kubeProxyReplacement: string, serviceTopology?: boolean): Json {
  return configMap('cilium-config', {
    'kube-proxy-replacement': kubeProxyReplacement,
    ...(serviceTopology === undefined ? {} : { 'enable-service-topology': String(serviceTopology) }),
    'routing-mode': 'native',
  });
}

function namespace(name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): Json {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels, annotations } };
}

/** The namespaces of the fake cluster's Services, each with `marks` (labels) unless listed in `except`. */
function namespacesOfServices(server: FakeApiServer): string[] {
  const names = server
    .list()
    .filter((item) => item.kind === 'Service')
    .map((item) => String((item.metadata as Json).namespace));
  return [...new Set(names)].sort();
}

function reader(server: FakeApiServer, logger = logSink().logger, timeoutMs?: number): ClusterReader {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(server.writeKubeconfig(join(dir, `kubeconfig-${servers.length}-${Date.now()}`)));
  return new ClusterReader(kubeConfig, logger, timeoutMs);
}

async function profileOf(server: FakeApiServer, clusterReader = reader(server)) {
  const items = server.list();
  const profile = clusterProfile(
    await clusterReader.read(),
    items.filter((item) => item.kind === 'Node'),
    items.filter((item) => item.kind === 'Service'),
  );
  return { ...profile, annotations: profileAnnotations(profile) };
}

describe('Kubernetes version', () => {
  it('is MAJOR.MINOR of /version, also when a managed cluster writes the minor as "31+"', async () => {
    const server = await fakeCluster();
    server.setVersion({ major: '1', minor: '31+', gitVersion: 'v1.31.4-eks-2d98532' });
    const profile = await profileOf(server);
    expect(profile.kubernetesVersion).toBe('1.31');
    expect(profile.annotations[KUBERNETES_VERSION_ANNOTATION]).toBe('1.31');
    expect(profile.detail.kubernetesVersion).toEqual({ status: 'found', gitVersion: 'v1.31.4-eks-2d98532' });
    expect(server.requests.some((request) => request.path.startsWith('/version'))).toBe(true);
  });

  it('falls back to the git version when major and minor are empty', async () => {
    const server = await fakeCluster();
    server.setVersion({ major: '', minor: '', gitVersion: 'v1.33.2+k3s1' });
    expect((await profileOf(server)).kubernetesVersion).toBe('1.33');
  });
});

describe('data plane', () => {
  it('is kube-proxy when its ConfigMap is there, with the mode it runs in (empty mode: iptables)', async () => {
    const server = await fakeCluster();
    server.apply(kubeProxy(''));
    const iptables = await profileOf(server);
    expect(iptables.dataPlane).toBe('kube-proxy');
    expect(iptables.annotations[DATA_PLANE_ANNOTATION]).toBe('kube-proxy');
    expect(iptables.detail).toMatchObject({
      dataPlane: 'kube-proxy',
      reason: 'kube-proxy runs in iptables mode',
      kubeProxy: { status: 'found', mode: 'iptables' },
      cilium: { status: 'missing' },
      calico: { status: 'missing' },
      antrea: { status: 'missing' },
      nodes: { linux: 3, windows: 0, other: 0 },
    });
    server.apply(kubeProxy('ipvs'));
    expect((await profileOf(server)).detail.kubeProxy).toEqual({ status: 'found', mode: 'ipvs' });
  });

  it('is cilium or cilium-no-topology when Cilium replaces kube-proxy, by its service topology setting', async () => {
    const server = await fakeCluster();
    server.apply(cilium('true', true));
    const withTopology = await profileOf(server);
    expect(withTopology.dataPlane).toBe('cilium');
    expect(withTopology.detail.cilium).toEqual({
      status: 'found',
      kubeProxyReplacement: 'true',
      serviceTopology: true,
    });

    server.apply(cilium('true', false));
    expect((await profileOf(server)).dataPlane).toBe('cilium-no-topology');
    server.apply(cilium('strict')); // Cilium before 1.14; no topology key: off
    expect((await profileOf(server)).dataPlane).toBe('cilium-no-topology');
  });

  it('is kube-proxy when Cilium is only the CNI, and unknown in its legacy partial mode', async () => {
    const server = await fakeCluster();
    server.apply(kubeProxy('iptables'));
    server.apply(cilium('false', true));
    expect((await profileOf(server)).dataPlane).toBe('kube-proxy');
    server.apply(cilium('partial'));
    const partial = await profileOf(server);
    expect(partial.dataPlane).toBeNull();
    expect(partial.annotations[DATA_PLANE_ANNOTATION]).toBeUndefined();
    expect(partial.detail.reason).toBe('Cilium\'s kube-proxy-replacement is "partial"');
  });

  it("is calico-ebpf when Calico's FelixConfiguration default turns eBPF on, calico-ebpf-legacy before v3.32", async () => {
    const server = await fakeCluster();
    server.apply(kubeProxy('iptables'));
    const felix = (bpfEnabled: boolean) => ({
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'FelixConfiguration',
      metadata: { name: 'default' },
      spec: { bpfEnabled, logSeverityScreen: 'Info' },
    });
    const clusterInformation = (calicoVersion: string) => ({
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'ClusterInformation',
      metadata: { name: 'default' },
      spec: { calicoVersion, clusterType: 'k8s,bgp,kubeadm,kdd', datastoreReady: true },
    });
    server.apply(felix(false));
    expect((await profileOf(server)).dataPlane).toBe('kube-proxy');
    server.apply(felix(true));
    // eBPF on, but which release is not known: not guessed.
    const noVersion = await profileOf(server);
    expect(noVersion.dataPlane).toBeNull();
    expect(noVersion.detail.reason).toBe("Calico's eBPF data plane is on; its ClusterInformation default is missing");
    server.apply(clusterInformation('v3.32.2'));
    const ebpf = await profileOf(server);
    expect(ebpf.dataPlane).toBe('calico-ebpf');
    expect(ebpf.detail.calico).toEqual({ status: 'found', bpfEnabled: true, calicoVersion: 'v3.32.2' });
    server.apply(clusterInformation('v3.30.4'));
    expect((await profileOf(server)).dataPlane).toBe('calico-ebpf-legacy');
    server.forbid(objectPath('ClusterInformation', 'default'));
    expect((await profileOf(server)).detail.reason).toBe(
      "Calico's eBPF data plane is on; its ClusterInformation default refused (RBAC)",
    );
  });

  it('is antrea when Antrea Proxy is on (its default), kube-proxy when it is switched off', async () => {
    const server = await fakeCluster();
    server.apply(kubeProxy('iptables'));
    const antrea = (conf: string) => configMap('antrea-config', { 'antrea-agent.conf': conf });
    server.apply(antrea('featureGates:\n  Multicast: false\nantreaProxy:\n  proxyAll: false\n'));
    const on = await profileOf(server);
    expect(on.dataPlane).toBe('antrea');
    expect(on.detail.antrea).toEqual({ status: 'found', proxy: true, proxyAll: false });
    server.apply(antrea('antreaProxy:\n  enable: false\n'));
    expect((await profileOf(server)).dataPlane).toBe('kube-proxy');
  });

  it('is istio-sidecar or linkerd only when the mesh injects every namespace with Services', async () => {
    const server = await fakeCluster();
    server.apply(kubeProxy('iptables'));
    const applications = namespacesOfServices(server).filter((name) => !name.startsWith('kube-'));
    expect(applications.length).toBeGreaterThan(2);
    server.apply(namespace('kube-system'));
    server.apply(namespace('istio-system'));
    // Istio in all but one namespace: listed, but kube-proxy still routes the rest.
    for (const [i, name] of applications.entries()) {
      server.apply(
        namespace(name, i === 0 ? {} : i === 1 ? { 'istio.io/rev': 'canary' } : { 'istio-injection': 'enabled' }),
      );
    }
    const partial = await profileOf(server);
    expect(partial.dataPlane).toBe('kube-proxy');
    expect(partial.detail.meshes).toMatchObject({
      status: 'found',
      applicationNamespaces: applications.length,
      istio: applications.slice(1),
      linkerd: [],
    });
    server.apply(namespace(applications[0], { 'istio-injection': 'enabled' }));
    expect((await profileOf(server)).dataPlane).toBe('istio-sidecar');

    for (const name of applications) server.apply(namespace(name, {}, { 'linkerd.io/inject': 'enabled' }));
    expect((await profileOf(server)).dataPlane).toBe('linkerd');
    // A revision label with injection explicitly disabled is no injection.
    for (const name of applications) {
      server.apply(namespace(name, { 'istio.io/rev': 'stable', 'istio-injection': 'disabled' }));
    }
    expect((await profileOf(server)).dataPlane).toBe('kube-proxy');
  });

  it('is windows-kube-proxy when every node runs Windows; a mixed cluster gets its Linux answer', async () => {
    const server = await fakeCluster();
    server.apply(kubeProxy('iptables'));
    const nodes = server.list().filter((item) => item.kind === 'Node');
    const onWindows = (node: Json) => {
      const metadata = node.metadata as Json;
      const status = node.status as Json;
      server.apply({
        ...node,
        metadata: { ...metadata, labels: { ...(metadata.labels as Json), 'kubernetes.io/os': 'windows' } },
        status: { ...status, nodeInfo: { ...(status.nodeInfo as Json), operatingSystem: 'windows' } },
      });
    };
    onWindows(nodes[0]);
    const mixed = await profileOf(server);
    expect(mixed.dataPlane).toBe('kube-proxy');
    expect(mixed.detail.nodes).toEqual({ linux: 2, windows: 1, other: 0 });
    for (const node of nodes.slice(1)) onWindows(node);
    const windows = await profileOf(server);
    expect(windows.dataPlane).toBe('windows-kube-proxy');
    expect(windows.detail.reason).toBe('every node runs Windows');
  });

  it('is unknown, with no annotation, when nothing is found', async () => {
    const server = await fakeCluster();
    const profile = await profileOf(server);
    expect(profile.kubernetesVersion).toBeNull();
    expect(profile.dataPlane).toBeNull();
    expect(Object.keys(profile.annotations)).toEqual([DATA_PLANE_DETAIL_ANNOTATION]);
    expect(JSON.parse(profile.annotations[DATA_PLANE_DETAIL_ANNOTATION])).toMatchObject({
      dataPlane: null,
      reason: 'no kube-proxy ConfigMap, Cilium, Calico eBPF, Antrea or service mesh found',
      kubernetesVersion: { status: 'missing' },
      kubeProxy: { status: 'missing' },
    });
  });
});

describe('refused and missing reads', () => {
  it('degrade to unknown rather than guess past them, each logged once however often it is read', async () => {
    const server = await fakeCluster();
    server.setVersion({ major: '1', minor: '35', gitVersion: 'v1.35.0' });
    server.apply(kubeProxy('iptables'));
    server.forbid(objectPath('ConfigMap', 'cilium-config', 'kube-system'));
    server.forbid('/version');
    const { lines, logger } = logSink();
    const clusterReader = reader(server, logger);
    const first = await profileOf(server, clusterReader);
    expect(first.kubernetesVersion).toBeNull();
    expect(first.dataPlane).toBeNull();
    expect(first.annotations[KUBERNETES_VERSION_ANNOTATION]).toBeUndefined();
    expect(first.annotations[DATA_PLANE_ANNOTATION]).toBeUndefined();
    expect(first.detail).toMatchObject({
      reason: 'ConfigMap kube-system/cilium-config refused (RBAC)',
      cilium: { status: 'denied' },
      kubernetesVersion: { status: 'denied' },
      kubeProxy: { status: 'found', mode: 'iptables' },
    });
    await profileOf(server, clusterReader);
    await profileOf(server, clusterReader);
    const refusals = lines.filter((line) => line.level === 'warn');
    expect(refusals.map((line) => line.source).sort()).toEqual(['/version', 'ConfigMap kube-system/cilium-config']);
    // Missing objects are logged once too, at info.
    const missing = lines.filter((line) => line.level === 'info').map((line) => line.source);
    expect(missing.sort()).toEqual([
      'ClusterInformation default',
      'ConfigMap kube-system/antrea-config',
      'FelixConfiguration default',
    ]);

    // Refused namespaces leave a possible mesh unknown.
    server.forbid('/api/v1/namespaces');
    server.apply(cilium('false'));
    const meshUnknown = await profileOf(server, clusterReader);
    expect(meshUnknown.dataPlane).toBeNull();
    expect(meshUnknown.detail.reason).toBe('the namespaces (mesh injection) refused (RBAC)');
  });

  it('a read that fails otherwise (5xx) is unknown until the source has answered once, never a crash', async () => {
    const server = await fakeCluster();
    server.apply(kubeProxy('iptables'));
    server.failLists('Namespace', 500, 1);
    const { lines, logger } = logSink();
    const clusterReader = reader(server, logger);
    const failed = await profileOf(server, clusterReader);
    expect(failed.dataPlane).toBeNull();
    expect(failed.detail).toMatchObject({
      meshes: { status: 'failed' },
      reason: 'the namespaces (mesh injection) could not be read',
    });
    expect(lines.find((line) => line.source === 'namespaces')).toMatchObject({ level: 'warn' });
    expect((await profileOf(server, clusterReader)).dataPlane).toBe('kube-proxy');

    // Once a source has answered, a passing failure keeps its last answer: the data plane does not flip.
    server.apply(cilium('true', false));
    expect((await profileOf(server, clusterReader)).dataPlane).toBe('cilium-no-topology');
    server.failLists('Namespace', 503, 1);
    const hiccup = await profileOf(server, clusterReader);
    expect(hiccup.dataPlane).toBe('cilium-no-topology');
    expect(hiccup.detail.meshes).toMatchObject({ status: 'found' });
    expect(server.requestsFor('Namespace', 'list').map((request) => request.status)).toEqual([500, 200, 200, 503]);
  });
});

describe('a read that never answers', () => {
  it('fails after the read timeout instead of holding the snapshot', async () => {
    const server = await fakeCluster();
    server.apply(kubeProxy('iptables'));
    server.stall(objectPath('ConfigMap', 'cilium-config', 'kube-system'));
    const { lines, logger } = logSink();
    // The stalled read never answers: only the 300 ms read timeout can end it (or the test's timeout fails it).
    const profile = await profileOf(server, reader(server, logger, 300));
    expect(profile.dataPlane).toBeNull();
    expect(profile.detail).toMatchObject({
      cilium: { status: 'failed' },
      reason: 'ConfigMap kube-system/cilium-config could not be read',
    });
    expect(lines.find((line) => line.source === 'ConfigMap kube-system/cilium-config')).toMatchObject({
      level: 'warn',
      error: 'no answer within 300 ms',
    });
  });
});

describe('the agent', () => {
  it('writes the version, data plane and detail into every snapshot, and keeps taking snapshots when reads are refused', async () => {
    const server = await fakeCluster();
    server.unserve('ServiceCIDR');
    server.setVersion({ major: '1', minor: '31', gitVersion: 'v1.31.9' });
    server.apply(cilium('true', false));
    server.forbid(objectPath('ConfigMap', 'antrea-config', 'kube-system'));
    const spoolDir = mkdtempSync(join(dir, 'spool-'));
    const config = parseAgentConfig(
      [
        '--api-url',
        `http://127.0.0.1:${await freePort()}`, // nothing listens: snapshots stay in the spool
        '--kubeconfig',
        server.writeKubeconfig(join(dir, 'agent-kubeconfig')),
        '--spool-dir',
        spoolDir,
        '--settle',
        '50ms',
        '--push-min-interval',
        '100ms',
        '--push-max-interval',
        '1h',
        '--retry-initial',
        '10s',
        '--health-host',
        '127.0.0.1',
        '--health-port',
        '0',
      ],
      { ZONEWISE_AGENT_TOKEN: 'zwa_test' },
    )!;
    const { lines, logger } = logSink();
    const agent = await Agent.create(config, logger);
    await agent.start();
    try {
      const spooled = () =>
        readdirSync(spoolDir)
          .filter((name) => name.endsWith('.json.gz'))
          .sort()
          .map(
            (name) =>
              JSON.parse(gunzipSync(readFileSync(join(spoolDir, name))).toString()) as {
                metadata: { annotations: Record<string, string> };
                items: Json[];
              },
          );
      await waitFor('a first snapshot', async () => spooled().length >= 1);
      const [first] = spooled();
      expect(first.metadata.annotations[KUBERNETES_VERSION_ANNOTATION]).toBe('1.31');
      // Antrea's ConfigMap is refused, but Cilium's kube-proxy replacement comes first and decides.
      expect(first.metadata.annotations[DATA_PLANE_ANNOTATION]).toBe('cilium-no-topology');
      expect(isDataPlaneName(first.metadata.annotations[DATA_PLANE_ANNOTATION])).toBe(true);
      expect(JSON.parse(first.metadata.annotations[DATA_PLANE_DETAIL_ANNOTATION])).toMatchObject({
        antrea: { status: 'denied' },
        cilium: { status: 'found', kubeProxyReplacement: 'true', serviceTopology: false },
      });
      expect(first.metadata.annotations[CAPTURED_AT_ANNOTATION]).toBeDefined();
      const node = first.items.find((item) => item.kind === 'Node')!;
      expect((node.status as Json).nodeInfo).toEqual({ kubeletVersion: 'v1.35.0' });

      // Cilium's service topology switched on: not a watched object, read at the next snapshot.
      server.apply(cilium('true', true));
      const service = server.list().find((item) => item.kind === 'Service')!;
      server.apply({ ...service, metadata: { ...(service.metadata as Json), labels: { changed: 'yes' } } });
      await waitFor('a second snapshot', async () => spooled().length >= 2);
      expect(spooled()[1].metadata.annotations[DATA_PLANE_ANNOTATION]).toBe('cilium');
      expect(lines.filter((line) => line.source === 'ConfigMap kube-system/antrea-config')).toHaveLength(1);
    } finally {
      await agent.shutdown();
    }
  }, 30_000);
});
