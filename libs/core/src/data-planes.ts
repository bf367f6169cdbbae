/**
 * What routes a Service's in-cluster traffic, and whether it reads the EndpointSlice hints. Hints only
 * change where requests go when the component that picks an endpoint reads them; each data plane below
 * is modelled from its project's code or documentation (docs/kubernetes-versions-and-data-planes.md
 * cites each one).
 */
import { type DataPlaneName, isDataPlaneName } from './cluster-settings.js';
import type { Service } from './k8s-objects.js';
import { type VersionFeatures, type SettingSource } from './kubernetes-versions.js';
import { hintsEnabledByAnnotation, TOPOLOGY_AWARE_HINTS_ANNOTATION, TOPOLOGY_MODE_ANNOTATION } from './routing-mode.js';

export const DEFAULT_DATA_PLANE: DataPlaneName = 'kube-proxy';

export interface DataPlaneSetting {
  name: DataPlaneName;
  source: SettingSource;
}

export interface DataPath {
  /** Whether the hints on the Service's slices change which endpoint a request reaches. */
  honoursHints: boolean;
  /** Why hints change nothing here; null when they are honoured. */
  reason: string | null;
}

/** {@link DataPath} plus what the analysis needs to know about it. */
export interface DataPathVerdict extends DataPath {
  /** Whether node hints (`hints.forNodes`) are read too. */
  nodeHints: boolean;
  /**
   * What decided a `false`: the Service's type (headless, ExternalName), the data plane, or the Service's
   * internal traffic policy. Enabling topology routing cannot help in the first two cases.
   */
  cause: 'service-type' | 'data-plane' | 'traffic-policy' | null;
}

export function dataPlaneSetting(flag: string | undefined, annotation: string | null | undefined): DataPlaneSetting {
  if (flag !== undefined && isDataPlaneName(flag)) return { name: flag, source: 'flag' };
  if (annotation && isDataPlaneName(annotation)) return { name: annotation, source: 'snapshot' };
  return { name: DEFAULT_DATA_PLANE, source: 'default' };
}

const HEADLESS_REASON =
  'headless Service (clusterIP: None): clients resolve the Pod IPs through DNS and connect directly, so no proxy applies hints';
/** The label of a Service whose traffic another Service proxy implements (upstream `pkg/proxy/apis`). */
export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
/** The label the EndpointSlice controller puts on a headless Service's slices (`v1.IsHeadlessService`). */
export const HEADLESS_SERVICE_LABEL = 'service.kubernetes.io/headless';
const EXTERNAL_NAME_REASON =
  'ExternalName Service: clients resolve a DNS name (CNAME) and connect to it; no proxy sees the traffic';
const INTERNAL_LOCAL_REASON =
  'internalTrafficPolicy is Local: kube-proxy sends in-cluster traffic only to endpoints on the client node and ignores topology hints';

/**
 * The data path of one Service. The Service itself comes first (no data plane proxies a headless or
 * ExternalName Service, and kube-proxy skips the Services its informers filter out by label), then the
 * data plane's own rule, then the internal traffic policy.
 */
export function dataPathOf(service: Service, dataPlane: DataPlaneName, features: VersionFeatures): DataPathVerdict {
  const serviceRefusal = serviceTypeRefusal(service, dataPlane);
  if (serviceRefusal !== null) return refused(serviceRefusal, 'service-type');
  const planeRefusal = dataPlaneRefusal(service, dataPlane, features);
  if (planeRefusal !== null) return refused(planeRefusal, 'data-plane');
  if (service.spec?.internalTrafficPolicy === 'Local') return refused(INTERNAL_LOCAL_REASON, 'traffic-policy');
  return { honoursHints: true, reason: null, nodeHints: readsNodeHints(dataPlane, features), cause: null };
}

/**
 * Why no setting of any data plane makes the Service's hints matter: its type (ExternalName, headless),
 * its labels (below), or `internalTrafficPolicy: Local`. Null when a data plane that reads hints would
 * apply them. A data-plane fix (e.g. enabling Cilium's service topology) can only help when this is null.
 */
export function serviceRefusalOf(service: Service, dataPlane: DataPlaneName): string | null {
  const serviceRefusal = serviceTypeRefusal(service, dataPlane);
  if (serviceRefusal !== null) return serviceRefusal;
  return service.spec?.internalTrafficPolicy === 'Local' ? INTERNAL_LOCAL_REASON : null;
}

function serviceTypeRefusal(service: Service, dataPlane: DataPlaneName): string | null {
  const spec = service.spec;
  if (spec?.type === 'ExternalName') return EXTERNAL_NAME_REASON;
  if (spec?.clusterIP === 'None') return HEADLESS_REASON;
  return proxySkipsLabelledServices(dataPlane) ? proxySkipLabelReason(service) : null;
}

/**
 * kube-proxy builds its Service and EndpointSlice informers with the label selector
 * `!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless` (upstream
 * `cmd/kube-proxy/app/server.go`, the informer factory's `WithTweakListOptions`, unchanged from 1.27 to
 * 1.35), so it never programs a Service carrying either label, whatever its hints. The kube-proxy
 * replacements modelled here filter the same way: Cilium (`GetServiceAndEndpointListOptionsModifier`
 * with no `k8s-service-proxy-name` set) and Calico's eBPF proxy (felix `bpf/proxy`, kube-proxy's
 * selector). Decision: AntreaProxy is not verified and keeps its own rule; Istio's and Linkerd's proxies
 * pick endpoints themselves.
 */
function proxySkipsLabelledServices(dataPlane: DataPlaneName): boolean {
  return dataPlane !== 'antrea' && dataPlane !== 'istio-sidecar' && dataPlane !== 'linkerd';
}

/** Why kube-proxy never programs the Service because of its labels; null when it does. */
function proxySkipLabelReason(service: Service): string | null {
  const labels = service.metadata.labels ?? {};
  const proxyName = labels[SERVICE_PROXY_NAME_LABEL];
  if (proxyName !== undefined) {
    return `the Service is labelled ${SERVICE_PROXY_NAME_LABEL}=${JSON.stringify(proxyName)}: kube-proxy (and the data planes in its place) never program it, another Service proxy does, so its hints change nothing zonewise models`;
  }
  if (labels[HEADLESS_SERVICE_LABEL] !== undefined) {
    return `the Service is labelled ${HEADLESS_SERVICE_LABEL}: kube-proxy (and the data planes in its place) never program it, so no proxy applies its hints`;
  }
  return null;
}

/** Whether the Service proxy of this data plane skips the Service for its labels (no rules at all). */
export function isSkippedForLabels(service: Service, dataPlane: DataPlaneName): boolean {
  return proxySkipsLabelledServices(dataPlane) && proxySkipLabelReason(service) !== null;
}

function refused(reason: string, cause: DataPathVerdict['cause']): DataPathVerdict {
  return { honoursHints: false, reason, nodeHints: false, cause };
}

/** Why this data plane ignores the Service's hints; null when it reads them. */
function dataPlaneRefusal(service: Service, dataPlane: DataPlaneName, features: VersionFeatures): string | null {
  switch (dataPlane) {
    case 'kube-proxy':
      if (features.proxyReadsHintsAlone || proxyAnnotationEnables(service)) return null;
      return 'kube-proxy before 1.31 (ServiceTrafficDistribution off) reads hints only for Services whose topology annotation is set to a value other than empty or disabled';
    case 'cilium':
      return null;
    case 'cilium-no-topology':
      return "Cilium's kube-proxy replacement ignores hints unless service topology is enabled (loadBalancer.serviceTopology / enable-service-topology)";
    case 'calico-ebpf':
      if (proxyAnnotationEnables(service) || hasTrafficDistribution(service)) return null;
      return "Calico's eBPF data plane reads hints only for Services with a topology annotation or a spec.trafficDistribution";
    case 'calico-ebpf-legacy':
      if (awareHintsAuto(service)) return null;
      return "Calico's eBPF data plane before topology-mode and trafficDistribution support reads hints only for Services annotated service.kubernetes.io/topology-aware-hints: Auto";
    case 'antrea':
      if (proxyAnnotationEnables(service) || hasTrafficDistribution(service)) return null;
      return 'AntreaProxy reads hints only for Services with a topology annotation (not empty or disabled) or a spec.trafficDistribution';
    case 'windows-kube-proxy':
      return 'Windows kube-proxy (winkernel) does not implement topology-aware routing: it balances over every ready endpoint';
    case 'istio-sidecar':
      return "Istio's sidecar picks the endpoint itself (its own locality load balancing), not from EndpointSlice hints; kube-proxy never sees the traffic";
    case 'linkerd':
      if (hintsEnabledByAnnotation(service)) return null;
      return "Linkerd's proxy picks the endpoint itself and reads zone hints only for Services with the topology annotation set to Auto (it does not support trafficDistribution)";
  }
}

/**
 * Node hints: kube-proxy reads them from PreferSameTrafficDistribution on (1.34); Calico eBPF with
 * trafficDistribution support prefers same-node endpoints too. Decision: the other data planes that read
 * hints are modelled on zone hints only (their documentation names zones).
 */
export function readsNodeHints(dataPlane: DataPlaneName, features: VersionFeatures): boolean {
  return (dataPlane === 'kube-proxy' || dataPlane === 'calico-ebpf') && features.preferSameTrafficDistribution;
}

/**
 * kube-proxy's own reading of the annotation (1.27–1.32): the deprecated key wins by presence, and any
 * value but empty, `disabled` or `Disabled` enables hints (kubernetes#116522).
 */
function proxyAnnotationEnables(service: Service): boolean {
  const annotations = service.metadata.annotations ?? {};
  const value = Object.hasOwn(annotations, TOPOLOGY_AWARE_HINTS_ANNOTATION)
    ? annotations[TOPOLOGY_AWARE_HINTS_ANNOTATION]
    : annotations[TOPOLOGY_MODE_ANNOTATION];
  return value !== undefined && value !== '' && value !== 'disabled' && value !== 'Disabled';
}

function awareHintsAuto(service: Service): boolean {
  const value = service.metadata.annotations?.[TOPOLOGY_AWARE_HINTS_ANNOTATION];
  return value === 'Auto' || value === 'auto';
}

function hasTrafficDistribution(service: Service): boolean {
  const value = service.spec?.trafficDistribution;
  return typeof value === 'string' && value !== '';
}
