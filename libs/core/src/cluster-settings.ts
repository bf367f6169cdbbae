/**
 * The List annotations that tell the analysis which Kubernetes version and which data plane a cluster
 * runs. The agent writes what it detects; the API's per-cluster overrides replace them before the
 * analysis reads them; `zonewise analyze` reads them from any snapshot file.
 */

/** `MAJOR.MINOR` of the control plane, e.g. `1.31`. */
export const KUBERNETES_VERSION_ANNOTATION = 'zonewise.io/kubernetes-version';
/** One of {@link DATA_PLANE_NAMES}: what routes Service traffic in the cluster. */
export const DATA_PLANE_ANNOTATION = 'zonewise.io/data-plane';
/** JSON written by the agent: what it saw of each data plane, and what it could not read. For people. */
export const DATA_PLANE_DETAIL_ANNOTATION = 'zonewise.io/data-plane-detail';

/**
 * Every data plane name a snapshot, the API or the CLI may state:
 * - `kube-proxy`: kube-proxy on Linux (iptables, ipvs or nftables) routes Service traffic;
 * - `cilium`: Cilium's kube-proxy replacement with service topology on;
 * - `cilium-no-topology`: Cilium's kube-proxy replacement with service topology off;
 * - `calico-ebpf`: Calico's eBPF data plane with Traffic Distribution support;
 * - `calico-ebpf-legacy`: Calico's eBPF data plane before it (hints only for the older annotation);
 * - `antrea`: Antrea Proxy;
 * - `windows-kube-proxy`: kube-proxy on Windows nodes;
 * - `istio-sidecar`, `linkerd`: a service mesh's sidecars route the workloads' traffic.
 */
export const DATA_PLANE_NAMES = [
  'kube-proxy',
  'cilium',
  'cilium-no-topology',
  'calico-ebpf',
  'calico-ebpf-legacy',
  'antrea',
  'windows-kube-proxy',
  'istio-sidecar',
  'linkerd',
] as const;

export type DataPlaneName = (typeof DATA_PLANE_NAMES)[number];

/** `MAJOR.MINOR` without leading zeros, e.g. `1.31`. */
export const KUBERNETES_VERSION_PATTERN = /^(0|[1-9]\d{0,3})\.(0|[1-9]\d{0,3})$/;

export function isDataPlaneName(name: string): name is DataPlaneName {
  return (DATA_PLANE_NAMES as readonly string[]).includes(name);
}

/** A cluster's overrides, set through the API (null: not overridden). */
export interface ClusterOverrides {
  kubernetesVersion: string | null;
  dataPlane: string | null;
}

export const NO_OVERRIDES: ClusterOverrides = { kubernetesVersion: null, dataPlane: null };

type Json = Record<string, unknown>;

/**
 * Applies a cluster's overrides to a parsed snapshot document before the analysis reads it: each one sets
 * (or replaces what the agent wrote in) its List annotation, so an override always wins over what the
 * agent detected. Returns which overrides were applied. A value that is not a valid version or data plane
 * name (the API never stores one) is not applied. A document whose metadata is not an object is left
 * alone: parsing then rejects it with its own message.
 */
export function applyClusterOverrides(document: unknown, overrides: ClusterOverrides): ClusterOverrides {
  const applied: ClusterOverrides = {
    kubernetesVersion:
      overrides.kubernetesVersion !== null && KUBERNETES_VERSION_PATTERN.test(overrides.kubernetesVersion)
        ? overrides.kubernetesVersion
        : null,
    dataPlane: overrides.dataPlane !== null && isDataPlaneName(overrides.dataPlane) ? overrides.dataPlane : null,
  };
  if (applied.kubernetesVersion === null && applied.dataPlane === null) return applied;
  const annotations = listAnnotations(document);
  if (!annotations) return NO_OVERRIDES;
  if (applied.kubernetesVersion !== null) annotations[KUBERNETES_VERSION_ANNOTATION] = applied.kubernetesVersion;
  if (applied.dataPlane !== null) annotations[DATA_PLANE_ANNOTATION] = applied.dataPlane;
  return applied;
}

/** The document's List annotations, created when absent; null when the document's shape forbids it. */
function listAnnotations(document: unknown): Record<string, string> | null {
  if (!isObject(document)) return null;
  document.metadata ??= {};
  if (!isObject(document.metadata)) return null;
  document.metadata.annotations ??= {};
  return isObject(document.metadata.annotations) ? (document.metadata.annotations as Record<string, string>) : null;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
