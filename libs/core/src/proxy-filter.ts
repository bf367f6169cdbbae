import type { AddressType, EndpointSlice, Service, ServicePort } from './k8s-objects.js';
import { byteOrder as compareStrings } from './lists.js';
import { parseIP } from './proxy-addresses.js';
import { type CategorizedEndpoints, categorizeEndpoints, type ProxyOptions } from './proxy-categorize-endpoints.js';
import { portKey, type ProxyEndpoint, proxyEndpointsForPort, slicesInVisitOrder } from './proxy-endpointslice-cache.js';
import type { ProxyNode, TopologyMode } from './proxy-topology-mode.js';
import { type PortTrafficPolicy, portTrafficPolicy } from './proxy-traffic-policy.js';

/**
 * kube-proxy's endpoint selection for one node (upstream `pkg/proxy/topology.go CategorizeEndpoints`):
 * which endpoints a Service's traffic may reach from that node, and why topology hints were or were not
 * honoured. Models current Kubernetes (v1.35), where kube-proxy reads only the hints on the slices (never
 * the annotation or `spec.trafficDistribution`) and honours node hints (PreferSameTrafficDistribution
 * GA); the options carry what earlier versions do differently.
 *
 * This module is the per-Service view. Reading on: the per-port traffic policy (proxy-traffic-policy.ts),
 * kube-proxy's preprocessing of EndpointSlices (proxy-endpointslice-cache.ts), CategorizeEndpoints
 * (proxy-categorize-endpoints.ts), the topology mode (proxy-topology-mode.ts), and address
 * canonicalisation (proxy-addresses.ts).
 */

/** What kube-proxy programs for one Service port of one IP family on this node. */
export interface PortEndpointsView {
  ipFamily: AddressType;
  portName: string;
  protocol: string;
  usesClusterEndpoints: boolean;
  usesLocalEndpoints: boolean;
  /** `IP:port` identities (IPv6 as `[IP]:port`), sorted; null when the port never uses Cluster policy. */
  clusterEndpoints: string[] | null;
  /** `IP:port` identities, sorted; null when the port never uses Local policy. */
  localEndpoints: string[] | null;
  allReachableEndpoints: string[];
  hasAnyEndpoints: boolean;
  topologyMode: TopologyMode | null;
  reason: string | null;
  /** Every topology message kube-proxy logs for this port, in its order. */
  kubeProxyLogs: string[];
}

export interface ServiceEndpointsView {
  namespace: string;
  name: string;
  /** Named by each endpoint's first address (canonical), sorted, unique; null when kube-proxy builds no such list. */
  clusterEndpoints: string[] | null;
  localEndpoints: string[] | null;
  topologyFiltered: boolean;
  topologyMode: TopologyMode | null;
  /** Why kube-proxy fell back to all endpoints; null when it filtered or when no ready endpoint carries a hint. */
  reason: string | null;
  hasAnyEndpoints: boolean;
  ports: PortEndpointsView[];
}

/**
 * What kube-proxy on `node` uses for `service`, given that Service's EndpointSlices (the caller
 * selects them by the `kubernetes.io/service-name` label in the Service's namespace).
 *
 * Decision: a node runs kube-proxy for both IP families (a dual-stack node); each family only sees
 * the Service's ClusterIP of that family and the slices of that address type, and the per-family
 * results are merged. On a single-stack cluster the other family simply contributes nothing.
 */
export function kubeProxyView(
  service: Service,
  slices: readonly EndpointSlice[],
  node: ProxyNode,
  options: ProxyOptions = {},
): ServiceEndpointsView {
  const orderedSlices = slicesInVisitOrder(slices);
  const results: PortResult[] = [];
  for (const family of proxiedFamilies(service, orderedSlices)) {
    const familySlices = orderedSlices.filter((slice) => slice.addressType === family);
    for (const servicePort of service.spec?.ports ?? []) {
      const endpoints = proxyEndpointsForPort(familySlices, portKey(servicePort));
      const policy = portTrafficPolicy(service, servicePort, family);
      const categorized = categorizeEndpoints(endpoints, policy, node, options);
      results.push({
        view: portView(family, servicePort, policy, categorized),
        clusterIPs: categorized.clusterEndpoints && categorized.clusterEndpoints.map((endpoint) => endpoint.ip),
        localIPs: categorized.localEndpoints && categorized.localEndpoints.map((endpoint) => endpoint.ip),
        // With no ready endpoint kube-proxy considers no hints at all.
        topologyDecided: policy.usesCluster && endpoints.some((endpoint) => endpoint.ready),
      });
    }
  }
  return {
    namespace: service.metadata.namespace ?? '',
    name: service.metadata.name,
    clusterEndpoints: mergeAddressLists(results.map((result) => result.clusterIPs)),
    localEndpoints: mergeAddressLists(results.map((result) => result.localIPs)),
    ...summarizeTopology(results.filter((result) => result.topologyDecided).map((result) => result.view)),
    hasAnyEndpoints: results.some((result) => result.view.hasAnyEndpoints),
    ports: results.map((result) => result.view),
  };
}

interface PortResult {
  view: PortEndpointsView;
  clusterIPs: string[] | null;
  localIPs: string[] | null;
  topologyDecided: boolean;
}

/**
 * Decision: ports of a Service normally share their endpoints, so the per-Service lists are the union
 * of the per-port (and per-family) lists, named by address. A list is null only when no port builds
 * it; a Service with no ports (or one kube-proxy skips) therefore gets null for both lists.
 */
function mergeAddressLists(lists: readonly (string[] | null)[]): string[] | null {
  const built = lists.filter((list): list is string[] => list !== null);
  if (built.length === 0) return null;
  return sortedUnique(built.flat());
}

/**
 * Decision: the Service-level topology summary looks only at ports where kube-proxy had a mode to
 * decide, i.e. ports that build a cluster list and have at least one ready endpoint (with no ready
 * endpoint kube-proxy considers no hints at all). The Service counts as topology-filtered only when
 * every such port was filtered; its mode is then PreferSameNode when all of them used it, else
 * PreferSameZone (the weaker narrowing). The reason is the first fallback reason in port order
 * (IPv4 before IPv6, then `spec.ports` order); ports sharing endpoints all give the same one.
 */
function summarizeTopology(
  decided: readonly PortEndpointsView[],
): Pick<ServiceEndpointsView, 'topologyFiltered' | 'topologyMode' | 'reason'> {
  const topologyFiltered = decided.length > 0 && decided.every((port) => port.topologyMode !== null);
  const topologyMode = !topologyFiltered
    ? null
    : decided.every((port) => port.topologyMode === 'PreferSameNode')
      ? 'PreferSameNode'
      : 'PreferSameZone';
  const reason = decided.find((port) => port.reason !== null)?.reason ?? null;
  return { topologyFiltered, topologyMode, reason };
}

function portView(
  ipFamily: AddressType,
  servicePort: ServicePort,
  policy: PortTrafficPolicy,
  categorized: CategorizedEndpoints,
): PortEndpointsView {
  const identities = (list: readonly ProxyEndpoint[]) => list.map((endpoint) => endpoint.identity);
  return {
    ipFamily,
    portName: servicePort.name ?? '',
    protocol: servicePort.protocol ?? 'TCP',
    usesClusterEndpoints: policy.usesCluster,
    usesLocalEndpoints: policy.usesLocal,
    clusterEndpoints: categorized.clusterEndpoints && identities(categorized.clusterEndpoints),
    localEndpoints: categorized.localEndpoints && identities(categorized.localEndpoints),
    allReachableEndpoints: identities(categorized.allReachableEndpoints),
    hasAnyEndpoints: categorized.hasAnyEndpoints,
    topologyMode: categorized.topologyMode,
    reason: categorized.reason,
    kubeProxyLogs: categorized.kubeProxyLogs,
  };
}

/**
 * The IP families kube-proxy programs this Service for: those with a ClusterIP of that family.
 *
 * Decision: ExternalName and headless (`clusterIP: None`) Services are skipped by kube-proxy, so they
 * have no families and both lists are null. A Service that states no ClusterIP at all (a hand-written
 * snapshot; the API server always assigns one) is taken to have one in `spec.ipFamilies`, else in the
 * address types of its slices, else IPv4.
 */
function proxiedFamilies(service: Service, slices: readonly EndpointSlice[]): AddressType[] {
  const spec = service.spec ?? {};
  if (spec.type === 'ExternalName' || spec.clusterIP === 'None') return [];
  const clusterIPs = spec.clusterIPs && spec.clusterIPs.length > 0 ? spec.clusterIPs : null;
  if (clusterIPs && spec.ipFamilies && spec.ipFamilies.length > 0) {
    return spec.ipFamilies.filter(
      (family, index): family is AddressType => isAddressType(family) && index < clusterIPs.length,
    );
  }
  const stated = clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []);
  if (stated.length > 0) {
    const families = stated.map((ip) => parseIP(ip)?.family);
    return (['IPv4', 'IPv6'] as const).filter((family) => families.includes(family));
  }
  if (spec.ipFamilies && spec.ipFamilies.length > 0) return spec.ipFamilies.filter(isAddressType);
  const fromSlices = (['IPv4', 'IPv6'] as const).filter((family) => slices.some((s) => s.addressType === family));
  return fromSlices.length > 0 ? fromSlices : ['IPv4'];
}

function isAddressType(value: string): value is AddressType {
  return value === 'IPv4' || value === 'IPv6';
}

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareStrings);
}
