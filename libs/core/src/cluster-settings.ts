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
