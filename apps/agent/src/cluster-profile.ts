import { loadYaml } from '@kubernetes/client-node';
import {
  DATA_PLANE_ANNOTATION,
  DATA_PLANE_DETAIL_ANNOTATION,
  type DataPlaneName,
  KUBERNETES_VERSION_ANNOTATION,
  KUBERNETES_VERSION_PATTERN,
} from '@zw/core';
import type { ClusterReadings, NamespaceMarks, Read } from './cluster-reader.js';

/**
 * What the readings say about the cluster: its Kubernetes version (`MAJOR.MINOR` of the API server) and
 * the data plane that routes its Service traffic, as the snapshot's List annotations.
 *
 * The data plane is decided by the first of these that applies, each overriding those after it:
 * 1. every node runs Windows → `windows-kube-proxy`. Decision: a cluster with both Linux and Windows
 *    nodes gets the answer for its Linux nodes (the Windows ones are counted in the detail): Linux nodes
 *    run the data plane that the steps below find, and usually most of the clients;
 * 2. a service mesh injects sidecars into every namespace that has a Service with a selector (the
 *    `kube-*` and mesh control-plane namespaces aside) → `istio-sidecar` / `linkerd`: the sidecars, not
 *    kube-proxy, pick the endpoints. Decision: a mesh in some namespaces only does not decide (it is
 *    listed in the detail): one name describes the whole cluster, and most of it routes without the mesh;
 * 3. Cilium replaces kube-proxy (`kube-proxy-replacement: true`) → `cilium` when its service topology is
 *    on (`enable-service-topology: true`), else `cilium-no-topology`;
 * 4. Calico's FelixConfiguration `default` has `bpfEnabled: true` → `calico-ebpf`, or
 *    `calico-ebpf-legacy` when its ClusterInformation `default` names a release before v3.32. Decision:
 *    Felix's cluster-wide configuration is what the eBPF data plane is switched on with, whether by hand
 *    or by the Tigera operator (from the Installation's `linuxDataplane: BPF`), so it is the one object
 *    read for the switch;
 * 5. Antrea is installed with Antrea Proxy on (its default) → `antrea`;
 * 6. kube-proxy's ConfigMap exists → `kube-proxy` (its `mode` goes into the detail).
 * A step whose source could not be read (refused, failing) leaves the data plane unknown rather than
 * guessing past it; a missing object just does not apply. Unknown means no annotation: the analysis then
 * assumes its default, and says so.
 */

export interface ClusterProfile {
  kubernetesVersion: string | null;
  dataPlane: DataPlaneName | null;
  /** For people: what was seen of each source, and how the data plane was decided or why it is unknown. */
  detail: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const NOT_READ = { denied: 'refused (RBAC)', failed: 'could not be read' } as const;

export function clusterProfile(
  readings: ClusterReadings,
  nodes: readonly unknown[],
  services: readonly unknown[],
): ClusterProfile {
  const nodeCounts = countNodes(nodes);
  const meshes = meshesOf(readings.namespaces, applicationNamespaces(services));
  const steps: DataPlaneStep[] = [
    windowsStep(nodeCounts),
    meshStep(readings.namespaces, meshes),
    ciliumStep(readings.cilium),
    calicoStep(readings.felix, readings.calicoInfo),
    antreaStep(readings.antrea),
    kubeProxyStep(readings.kubeProxy),
  ];
  let dataPlane: DataPlaneName | null = null;
  let reason = 'no kube-proxy ConfigMap, Cilium, Calico eBPF, Antrea or service mesh found';
  for (const step of steps) {
    if (step.outcome === 'unknown' || step.outcome === 'decided') {
      dataPlane = step.outcome === 'decided' ? step.dataPlane : null;
      reason = step.reason;
      break;
    }
  }
  return {
    kubernetesVersion: versionOf(readings.version),
    dataPlane,
    detail: {
      dataPlane,
      reason,
      kubernetesVersion: describeRead(readings.version, (version) => ({ gitVersion: version.gitVersion })),
      nodes: nodeCounts,
      ...Object.fromEntries(steps.filter((step) => step.seen).map((step) => [step.source, step.seen])),
    },
  };
}

/** The List annotations of a profile: version and data plane only when known, the detail always. */
export function profileAnnotations(profile: ClusterProfile): Record<string, string> {
  return {
    ...(profile.kubernetesVersion ? { [KUBERNETES_VERSION_ANNOTATION]: profile.kubernetesVersion } : {}),
    ...(profile.dataPlane ? { [DATA_PLANE_ANNOTATION]: profile.dataPlane } : {}),
    [DATA_PLANE_DETAIL_ANNOTATION]: JSON.stringify(profile.detail),
  };
}

type DataPlaneStep = { source: string; seen: Json | null } & (
  | { outcome: 'decided'; dataPlane: DataPlaneName; reason: string }
  | { outcome: 'unknown'; reason: string }
  | { outcome: 'not-applicable' }
);

/** `MAJOR.MINOR` from `/version`; managed clusters write the minor as e.g. `31+`. */
function versionOf(read: Read<{ major: string; minor: string; gitVersion: string | null }>): string | null {
  if (read.status !== 'found') return null;
  const fromFields = `${digits(read.value.major)}.${digits(read.value.minor)}`;
  if (KUBERNETES_VERSION_PATTERN.test(fromFields)) return fromFields;
  const fromGit = /^v?(\d+)\.(\d+)/.exec(read.value.gitVersion ?? '');
  const candidate = fromGit ? `${Number(fromGit[1])}.${Number(fromGit[2])}` : '';
  return KUBERNETES_VERSION_PATTERN.test(candidate) ? candidate : null;
}

function digits(text: string): string {
  const match = /^\d+/.exec(text ?? '');
  return match ? String(Number(match[0])) : '';
}

function countNodes(nodes: readonly unknown[]): { linux: number; windows: number; other: number } {
  const counts = { linux: 0, windows: 0, other: 0 };
  for (const node of nodes) {
    const os = operatingSystemOf(node as Json);
    if (os === 'linux' || os === 'windows') counts[os]++;
    else counts.other++;
  }
  return counts;
}

function operatingSystemOf(node: Json): string | null {
  const labels = ((node.metadata as Json | undefined)?.labels ?? {}) as Record<string, string>;
  const nodeInfo = ((node.status as Json | undefined)?.nodeInfo ?? {}) as Json;
  const os = labels['kubernetes.io/os'] ?? nodeInfo.operatingSystem;
  return typeof os === 'string' ? os.toLowerCase() : null;
}

function windowsStep(nodes: { linux: number; windows: number; other: number }): DataPlaneStep {
  if (nodes.windows > 0 && nodes.linux === 0 && nodes.other === 0) {
    return {
      source: 'nodes',
      seen: null,
      outcome: 'decided',
      dataPlane: 'windows-kube-proxy',
      reason: 'every node runs Windows',
    };
  }
  return { source: 'nodes', seen: null, outcome: 'not-applicable' };
}

// ─── Meshes ─────────────────────────────────────────────────────────────────────────────────────

interface Meshes {
  /** Namespaces with a Service that has a selector, the kube-* and mesh control-plane ones aside. */
  applicationNamespaces: number;
  istio: string[];
  linkerd: string[];
  /** Istio ambient mode (no sidecars): listed, never decides. */
  istioAmbient: string[];
}

const SYSTEM_NAMESPACE = /^(kube-.*|istio-system|linkerd.*)$/;

function applicationNamespaces(services: readonly unknown[]): Set<string> {
  const names = new Set<string>();
  for (const service of services as Json[]) {
    const selector = (service.spec as Json | undefined)?.selector;
    const namespace = String((service.metadata as Json | undefined)?.namespace ?? 'default');
    const selects = typeof selector === 'object' && selector !== null && Object.keys(selector).length > 0;
    if (selects && !SYSTEM_NAMESPACE.test(namespace)) names.add(namespace);
  }
  return names;
}

function meshesOf(read: Read<NamespaceMarks[]>, applications: Set<string>): Meshes | null {
  if (read.status !== 'found') return null;
  const meshes: Meshes = { applicationNamespaces: applications.size, istio: [], linkerd: [], istioAmbient: [] };
  for (const namespace of [...read.value].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!applications.has(namespace.name)) continue;
    const { labels, annotations } = namespace;
    const istioInjection = labels['istio-injection'];
    if (istioInjection === 'enabled' || (labels['istio.io/rev'] !== undefined && istioInjection !== 'disabled')) {
      meshes.istio.push(namespace.name);
    }
    if (labels['istio.io/dataplane-mode'] === 'ambient') meshes.istioAmbient.push(namespace.name);
    const linkerd = annotations['linkerd.io/inject'];
    if (linkerd === 'enabled' || linkerd === 'ingress') meshes.linkerd.push(namespace.name);
  }
  return meshes;
}

function meshStep(read: Read<NamespaceMarks[]>, meshes: Meshes | null): DataPlaneStep {
  const source = 'meshes';
  if (read.status === 'denied' || read.status === 'failed') {
    return {
      source,
      seen: { status: read.status },
      outcome: 'unknown',
      reason: `the namespaces (mesh injection) ${NOT_READ[read.status]}`,
    };
  }
  if (!meshes) return { source, seen: { status: read.status }, outcome: 'not-applicable' };
  const seen = { status: 'found', ...meshes };
  const all = meshes.applicationNamespaces;
  if (all > 0 && meshes.istio.length === all) {
    const reason = 'Istio injects sidecars in every namespace with Services';
    return { source, seen, outcome: 'decided', dataPlane: 'istio-sidecar', reason };
  }
  if (all > 0 && meshes.linkerd.length === all) {
    const reason = 'Linkerd injects proxies in every namespace with Services';
    return { source, seen, outcome: 'decided', dataPlane: 'linkerd', reason };
  }
  return { source, seen, outcome: 'not-applicable' };
}

// ─── Cilium, Calico, Antrea, kube-proxy ─────────────────────────────────────────────────────────

function ciliumStep(read: Read<Record<string, string>>): DataPlaneStep {
  const source = 'cilium';
  const early = unreadable(source, read, 'ConfigMap kube-system/cilium-config');
  if (early) return early;
  const data = (read as { value: Record<string, string> }).value;
  // Cilium 1.14+ writes true/false; older releases strict/partial/probe/disabled. An absent key is
  // Cilium 1.14+'s default: false.
  const replacement = (data['kube-proxy-replacement'] ?? 'false').toLowerCase();
  const serviceTopology = (data['enable-service-topology'] ?? 'false').toLowerCase() === 'true';
  const seen = { status: 'found', kubeProxyReplacement: replacement, serviceTopology };
  if (replacement === 'true' || replacement === 'strict') {
    return serviceTopology
      ? {
          source,
          seen,
          outcome: 'decided',
          dataPlane: 'cilium',
          reason: 'Cilium replaces kube-proxy, service topology on',
        }
      : {
          source,
          seen,
          outcome: 'decided',
          dataPlane: 'cilium-no-topology',
          reason: 'Cilium replaces kube-proxy, service topology off',
        };
  }
  if (replacement === 'partial' || replacement === 'probe') {
    // Decision: in these legacy modes Cilium takes over some Service paths and kube-proxy the rest,
    // depending on further settings and the kernel: no single name is right.
    return { source, seen, outcome: 'unknown', reason: `Cilium's kube-proxy-replacement is "${replacement}"` };
  }
  return { source, seen, outcome: 'not-applicable' };
}

/**
 * The first Calico minor with Traffic Distribution and `topology-mode` support in its eBPF data plane
 * (calico#11751, merged in February 2026, first released in v3.32). Decision: before it, Calico's eBPF
 * kube-proxy read hints only for the older `topology-aware-hints` annotation (`calico-ebpf-legacy`).
 */
const CALICO_TRAFFIC_DISTRIBUTION_MINOR = 32;

function calicoStep(felix: Read<Record<string, unknown>>, info: Read<Record<string, unknown>>): DataPlaneStep {
  const source = 'calico';
  const early = unreadable(source, felix, 'FelixConfiguration default');
  if (early) return early;
  const bpfEnabled = (felix as { value: Json }).value.bpfEnabled === true;
  if (!bpfEnabled) return { source, seen: { status: 'found', bpfEnabled }, outcome: 'not-applicable' };
  const calicoVersion = info.status === 'found' ? info.value.calicoVersion : undefined;
  const release = /^v?(\d+)\.(\d+)/.exec(typeof calicoVersion === 'string' ? calicoVersion : '');
  const seen = { status: 'found', bpfEnabled, calicoVersion: typeof calicoVersion === 'string' ? calicoVersion : null };
  if (!release) {
    const why =
      info.status === 'found' ? 'names no version' : info.status === 'missing' ? 'is missing' : NOT_READ[info.status];
    return {
      source,
      seen,
      outcome: 'unknown',
      reason: `Calico's eBPF data plane is on; its ClusterInformation default ${why}`,
    };
  }
  const [major, minor] = [Number(release[1]), Number(release[2])];
  return major > 3 || (major === 3 && minor >= CALICO_TRAFFIC_DISTRIBUTION_MINOR)
    ? { source, seen, outcome: 'decided', dataPlane: 'calico-ebpf', reason: "Calico's eBPF data plane is on" }
    : {
        source,
        seen,
        outcome: 'decided',
        dataPlane: 'calico-ebpf-legacy',
        reason: `Calico's eBPF data plane is on, in a release before Traffic Distribution support (${String(calicoVersion)})`,
      };
}

function antreaStep(read: Read<Record<string, string>>): DataPlaneStep {
  const source = 'antrea';
  const early = unreadable(source, read, 'ConfigMap kube-system/antrea-config');
  if (early) return early;
  const config = yamlObject((read as { value: Record<string, string> }).value['antrea-agent.conf']);
  const featureGates = (config.featureGates ?? {}) as Json;
  const antreaProxy = (config.antreaProxy ?? {}) as Json;
  const proxy = featureGates.AntreaProxy !== false && antreaProxy.enable !== false;
  const seen = { status: 'found', proxy, proxyAll: antreaProxy.proxyAll === true };
  return proxy
    ? { source, seen, outcome: 'decided', dataPlane: 'antrea', reason: 'Antrea Proxy routes Service traffic' }
    : { source, seen, outcome: 'not-applicable' };
}

function kubeProxyStep(read: Read<Record<string, string>>): DataPlaneStep {
  const source = 'kubeProxy';
  const early = unreadable(source, read, 'ConfigMap kube-system/kube-proxy');
  if (early) return early;
  const data = (read as { value: Record<string, string> }).value;
  const config = data['config.conf'] === undefined ? null : yamlObject(data['config.conf']);
  // kube-proxy's default mode on Linux is iptables; a ConfigMap without config.conf (EKS keeps the
  // configuration in another one) says kube-proxy runs, not how.
  const mode =
    config === null ? null : typeof config.mode === 'string' && config.mode !== '' ? config.mode : 'iptables';
  return {
    source,
    seen: { status: 'found', mode },
    outcome: 'decided',
    dataPlane: 'kube-proxy',
    reason: `kube-proxy runs${mode ? ` in ${mode} mode` : ''}`,
  };
}

/** The step's outcome when its source was not found (does not apply) or not read (unknown). */
function unreadable(source: string, read: Read<unknown>, what: string): DataPlaneStep | null {
  if (read.status === 'missing') return { source, seen: { status: 'missing' }, outcome: 'not-applicable' };
  if (read.status === 'denied' || read.status === 'failed') {
    return { source, seen: { status: read.status }, outcome: 'unknown', reason: `${what} ${NOT_READ[read.status]}` };
  }
  return null;
}

function yamlObject(text: string | undefined): Json {
  if (!text) return {};
  try {
    const parsed = loadYaml<unknown>(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Json) : {};
  } catch {
    return {};
  }
}

function describeRead<T>(read: Read<T>, found: (value: T) => Json): Json {
  return read.status === 'found' ? { status: 'found', ...found(read.value) } : { status: read.status };
}
