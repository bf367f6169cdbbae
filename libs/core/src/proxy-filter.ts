import type { AddressType, Endpoint, EndpointSlice, Service, ServicePort } from './k8s-objects.js';
import { isCanonicalIPv4 } from './ip-addresses.js';

/**
 * kube-proxy's endpoint selection for one node (upstream `pkg/proxy/topology.go CategorizeEndpoints`):
 * which endpoints a Service's traffic may reach from that node, and why topology hints were or were not
 * honoured. Models current Kubernetes (v1.35), where kube-proxy reads only the hints on the slices (never
 * the annotation or `spec.trafficDistribution`) and honours node hints (PreferSameTrafficDistribution
 * GA); the options carry what earlier versions do differently.
 *
 * Reading order: the per-Service view, the per-port traffic policy, kube-proxy's preprocessing of
 * EndpointSlices, CategorizeEndpoints, the topology mode, and finally address canonicalisation.
 */

export type TopologyMode = 'PreferSameNode' | 'PreferSameZone';

/** kube-proxy's own log wording for each topology fallback (`pkg/proxy/topology.go topologyModeFromHints`, v1.33+). */
export const TOPOLOGY_FALLBACK = {
  noNodeHintForNode: 'Ignoring same-node topology hints for service since no hints were provided for node',
  endpointMissingNodeHint:
    'Ignoring same-node topology hints for service since one or more endpoints is missing a node hint',
  nodeMissingZoneLabel: 'Ignoring same-zone topology hints for service since node is missing label',
  noZoneHintForZone: 'Ignoring same-zone topology hints for service since no hints were provided for zone',
  endpointMissingZoneHint:
    'Ignoring same-zone topology hints for service since one or more endpoints is missing a zone hint',
} as const;

export interface ProxyNode {
  name: string;
  /** The node's `topology.kubernetes.io/zone` label, `''` when the node has none. */
  zone: string;
}

export interface ProxyOptions {
  /** Whether kube-proxy reads `hints.forNodes` (PreferSameTrafficDistribution; locked on in v1.35). */
  nodeHintsEnabled?: boolean;
  /**
   * Whether a node without a zone label may still filter by zone hints (a hint naming the zone `""`):
   * true from 1.33 (`topologyModeFromHints`), false before (`canUseTopology`). Default: true.
   */
  filtersOnNodeWithoutZone?: boolean;
}

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

// ---------------------------------------------------------------------------------------------
// The per-Service view
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Per-port traffic policy (upstream `pkg/proxy/serviceport.go UsesClusterEndpoints` / `UsesLocalEndpoints`)
// ---------------------------------------------------------------------------------------------

export interface PortTrafficPolicy {
  /** The port ever sends traffic by the Cluster policy (so kube-proxy builds cluster endpoints). */
  usesCluster: boolean;
  /** The port ever sends traffic by the Local policy (so kube-proxy builds local endpoints). */
  usesLocal: boolean;
}

export function portTrafficPolicy(service: Service, servicePort: ServicePort, family: AddressType): PortTrafficPolicy {
  const spec = service.spec ?? {};
  const internalLocal = spec.internalTrafficPolicy === 'Local';
  const externalLocal = externallyReachableByType(service) && spec.externalTrafficPolicy === 'Local';
  const externallyAccessible =
    (servicePort.nodePort ?? 0) !== 0 ||
    loadBalancerVIPsOfFamily(service, family).length > 0 ||
    externalIPsOfFamily(service, family).length > 0;
  return {
    // Even with externalTrafficPolicy Local, externally reachable ports need cluster endpoints
    // for traffic that originates inside the cluster.
    usesCluster: !internalLocal || externallyAccessible,
    usesLocal: internalLocal || (externalLocal && externallyAccessible),
  };
}

/** Decision: a missing `spec.type` is `ClusterIP`, as the API server defaults it. */
function externallyReachableByType(service: Service): boolean {
  const type = service.spec?.type ?? 'ClusterIP';
  return (
    type === 'LoadBalancer' ||
    type === 'NodePort' ||
    (type === 'ClusterIP' && (service.spec?.externalIPs ?? []).length > 0)
  );
}

/** Load-balancer ingress IPs kube-proxy programs itself: ipMode `VIP` or absent (not `Proxy`). */
function loadBalancerVIPsOfFamily(service: Service, family: AddressType): string[] {
  return (service.status?.loadBalancer?.ingress ?? [])
    .filter((ingress) => ingress.ip && (ingress.ipMode ?? 'VIP') === 'VIP')
    .map((ingress) => ingress.ip as string)
    .filter((ip) => parseIP(ip)?.family === family);
}

function externalIPsOfFamily(service: Service, family: AddressType): string[] {
  return (service.spec?.externalIPs ?? []).filter((ip) => parseIP(ip)?.family === family);
}

// ---------------------------------------------------------------------------------------------
// kube-proxy's preprocessing of EndpointSlices (upstream `pkg/proxy/endpointslicecache.go`)
// ---------------------------------------------------------------------------------------------

/** What the topology decision reads from an endpoint. Shared with the traffic model. */
export interface TopologyCandidate {
  readonly ready: boolean;
  readonly zoneHints: readonly string[];
  readonly nodeHints: readonly string[];
}

/** One endpoint of one Service port as kube-proxy holds it. Node-independent: locality is decided per node. */
export interface ProxyEndpoint extends TopologyCandidate {
  /** `IP:port`, IPv6 as `[IP]:port`. */
  readonly identity: string;
  /** The endpoint's first address, canonically re-serialised. */
  readonly ip: string;
  readonly nodeName: string | null;
  readonly serving: boolean;
  readonly terminating: boolean;
}

export interface ProxyConditions {
  ready: boolean;
  serving: boolean;
  terminating: boolean;
}

/**
 * kube-proxy's reading of endpoint conditions: `ready` and `serving` default to TRUE when absent,
 * `terminating` to false. This is deliberately not the controller's meaning (where absent `ready`
 * is not ready); the two must never share a helper.
 */
export function proxyConditions(endpoint: Endpoint): ProxyConditions {
  const conditions = endpoint.conditions;
  return {
    ready: conditions?.ready ?? true,
    serving: conditions?.serving ?? true,
    terminating: conditions?.terminating ?? false,
  };
}

const NO_HINTS: readonly string[] = Object.freeze([]);

export function zoneHintsOf(endpoint: Endpoint): readonly string[] {
  const forZones = endpoint.hints?.forZones;
  return forZones && forZones.length > 0 ? forZones.map((hint) => hint.name) : NO_HINTS;
}

export function nodeHintsOf(endpoint: Endpoint): readonly string[] {
  const forNodes = endpoint.hints?.forNodes;
  return forNodes && forNodes.length > 0 ? forNodes.map((hint) => hint.name) : NO_HINTS;
}

/**
 * The same endpoint seen twice (e.g. while it moves between slices, or a reused pod IP): the later
 * sighting replaces the earlier unless the later one is terminating, so a running pod wins over a
 * terminating one.
 */
export function preferredDuplicate<T extends { readonly terminating: boolean }>(earlier: T | undefined, later: T): T {
  return earlier === undefined || !later.terminating ? later : earlier;
}

/**
 * Decision: kube-proxy visits slices in Go map order (random), which only matters for duplicates
 * with the same terminating state. We visit slices in ascending name order (names are unique per
 * namespace), so the result never depends on the order slices are listed in; FQDN slices are never
 * proxied.
 */
export function slicesInVisitOrder(slices: readonly EndpointSlice[]): EndpointSlice[] {
  return slices
    .filter((slice) => slice.addressType !== 'FQDN')
    .sort((a, b) => compareStrings(a.metadata.name, b.metadata.name));
}

interface PortKey {
  name: string;
  protocol: string;
}

/** Decision: an absent port name is `""` and an absent protocol `TCP`, as the API server defaults them. */
function portKey(port: { name?: string; protocol?: string }): PortKey {
  return { name: port.name ?? '', protocol: port.protocol ?? 'TCP' };
}

/** The endpoints kube-proxy holds for one Service port: unique by identity, sorted by identity. */
function proxyEndpointsForPort(slices: readonly EndpointSlice[], port: PortKey): ProxyEndpoint[] {
  const byIdentity = new Map<string, ProxyEndpoint>();
  for (const slice of slices) {
    for (const slicePort of slice.ports ?? []) {
      const key = portKey(slicePort);
      if (key.name !== port.name || key.protocol !== port.protocol) continue;
      if (!slicePort.port) continue; // kube-proxy ignores slice ports without a (non-zero) number
      for (const endpoint of slice.endpoints ?? []) {
        const proxyEndpoint = toProxyEndpoint(endpoint, slicePort.port);
        if (!proxyEndpoint) continue;
        byIdentity.set(
          proxyEndpoint.identity,
          preferredDuplicate(byIdentity.get(proxyEndpoint.identity), proxyEndpoint),
        );
      }
    }
  }
  return [...byIdentity.values()].sort((a, b) => compareStrings(a.identity, b.identity));
}

function toProxyEndpoint(endpoint: Endpoint, portNumber: number): ProxyEndpoint | null {
  const address = endpoint.addresses?.[0];
  if (address === undefined) return null;
  const ip = canonicalAddress(address);
  return {
    identity: joinHostPort(ip, portNumber),
    ip,
    nodeName: endpoint.nodeName ?? null,
    ...proxyConditions(endpoint),
    zoneHints: zoneHintsOf(endpoint),
    nodeHints: nodeHintsOf(endpoint),
  };
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

// ---------------------------------------------------------------------------------------------
// CategorizeEndpoints (upstream `pkg/proxy/topology.go CategorizeEndpoints`)
// ---------------------------------------------------------------------------------------------

export interface CategorizedEndpoints {
  /** Usable endpoints for Cluster policy, topology applied; null when the port never uses it. */
  clusterEndpoints: ProxyEndpoint[] | null;
  /** Usable local endpoints for Local policy (never topology-filtered); null when the port never uses it. */
  localEndpoints: ProxyEndpoint[] | null;
  /** Everything reachable from this node: the union of the two lists, sorted by identity. */
  allReachableEndpoints: ProxyEndpoint[];
  /** Whether the Service has usable endpoints anywhere in the cluster (even if none is reachable here). */
  hasAnyEndpoints: boolean;
  topologyMode: TopologyMode | null;
  reason: string | null;
  kubeProxyLogs: string[];
}

/**
 * Splits one port's endpoints (sorted by identity, unique) into what kube-proxy on `node` uses.
 *
 * Decision: upstream returns nil lists when there are no endpoints at all; since nil there only
 * means "empty", a list the port uses is returned as `[]` and only a list it never uses is null.
 */
export function categorizeEndpoints(
  endpoints: readonly ProxyEndpoint[],
  policy: PortTrafficPolicy,
  node: ProxyNode,
  options: ProxyOptions = {},
): CategorizedEndpoints {
  const emptyUnlessUnused = (used: boolean) => (used ? [] : null);
  if (endpoints.length === 0) {
    return {
      clusterEndpoints: emptyUnlessUnused(policy.usesCluster),
      localEndpoints: emptyUnlessUnused(policy.usesLocal),
      allReachableEndpoints: [],
      hasAnyEndpoints: false,
      ...noTopology(),
    };
  }

  const topology = policy.usesCluster
    ? decideTopology(
        hintCoverage(endpoints),
        node,
        options.nodeHintsEnabled ?? true,
        options.filtersOnNodeWithoutZone ?? true,
      )
    : noTopology();
  const clusterEndpoints = policy.usesCluster ? clusterEndpointsFor(endpoints, topology.topologyMode, node) : null;
  const clusterSide = {
    clusterEndpoints,
    hasAnyEndpoints: clusterEndpoints !== null && clusterEndpoints.length > 0,
    ...topology,
  };
  if (!policy.usesLocal) {
    return { ...clusterSide, localEndpoints: null, allReachableEndpoints: clusterEndpoints ?? [] };
  }

  const local = localEndpointsFor(endpoints, node);
  const hasAnyEndpoints = clusterSide.hasAnyEndpoints || local.anyUsableInCluster;
  if (clusterEndpoints === null) {
    return { ...clusterSide, hasAnyEndpoints, localEndpoints: local.endpoints, allReachableEndpoints: local.endpoints };
  }
  // With no topology and ready-only local endpoints, every local endpoint is already a cluster endpoint.
  const allReachableEndpoints =
    topology.topologyMode === null && !local.usesTerminating
      ? clusterEndpoints
      : unionByIdentity(clusterEndpoints, local.endpoints);
  return { ...clusterSide, hasAnyEndpoints, localEndpoints: local.endpoints, allReachableEndpoints };
}

/**
 * Ready endpoints available for the mode; if there are none, every serving-and-terminating
 * endpoint regardless of topology (a mode is only chosen when some ready endpoint fits it, so an
 * empty first pass means nothing is ready anywhere).
 */
function clusterEndpointsFor(
  endpoints: readonly ProxyEndpoint[],
  mode: TopologyMode | null,
  node: ProxyNode,
): ProxyEndpoint[] {
  const ready = endpoints.filter((endpoint) => endpoint.ready && isAvailableForTopology(endpoint, mode, node));
  if (ready.length > 0) return ready;
  return endpoints.filter(isServingTerminating);
}

interface LocalEndpoints {
  endpoints: ProxyEndpoint[];
  usesTerminating: boolean;
  anyUsableInCluster: boolean;
}

/** Local ready endpoints, else local serving-terminating ones. Topology hints never apply here. */
function localEndpointsFor(endpoints: readonly ProxyEndpoint[], node: ProxyNode): LocalEndpoints {
  const usable = endpoints.filter((endpoint) => endpoint.ready || isServingTerminating(endpoint));
  const anyUsableInCluster = usable.length > 0;
  const localReady = endpoints.filter((endpoint) => endpoint.ready && isLocalTo(endpoint, node));
  if (localReady.length > 0) return { endpoints: localReady, usesTerminating: false, anyUsableInCluster };
  const localServingTerminating = endpoints.filter(
    (endpoint) => isServingTerminating(endpoint) && isLocalTo(endpoint, node),
  );
  if (localServingTerminating.length > 0) {
    return { endpoints: localServingTerminating, usesTerminating: true, anyUsableInCluster };
  }
  return { endpoints: [], usesTerminating: false, anyUsableInCluster };
}

function isServingTerminating(endpoint: ProxyEndpoint): boolean {
  return endpoint.serving && endpoint.terminating;
}

function isLocalTo(endpoint: ProxyEndpoint, node: ProxyNode): boolean {
  return node.name !== '' && endpoint.nodeName === node.name;
}

/** Decision: upstream merges through a Go map (random order); we sort by identity. */
function unionByIdentity(first: readonly ProxyEndpoint[], second: readonly ProxyEndpoint[]): ProxyEndpoint[] {
  const byIdentity = new Map<string, ProxyEndpoint>();
  for (const endpoint of [...first, ...second]) byIdentity.set(endpoint.identity, endpoint);
  return [...byIdentity.values()].sort((a, b) => compareStrings(a.identity, b.identity));
}

// ---------------------------------------------------------------------------------------------
// Topology mode (upstream `pkg/proxy/topology.go topologyModeFromHints`, v1.33+; `canUseTopology` before).
// Shared with the traffic model.
// ---------------------------------------------------------------------------------------------

/** What the ready endpoints' hints say, independent of the node asking. */
export interface HintCoverage {
  readonly readyCount: number;
  readonly allReadyHaveZoneHints: boolean;
  readonly allReadyHaveNodeHints: boolean;
  readonly anyReadyHasZoneHints: boolean;
  readonly anyReadyHasNodeHints: boolean;
  /** Every zone named by a ready endpoint's zone hints. */
  readonly hintedZones: ReadonlySet<string>;
  /** Every node named by a ready endpoint's node hints. */
  readonly hintedNodes: ReadonlySet<string>;
}

/** Hints of non-ready endpoints are irrelevant to kube-proxy. */
export function hintCoverage(endpoints: Iterable<TopologyCandidate>): HintCoverage {
  let readyCount = 0;
  let withZoneHints = 0;
  let withNodeHints = 0;
  const hintedZones = new Set<string>();
  const hintedNodes = new Set<string>();
  for (const endpoint of endpoints) {
    if (!endpoint.ready) continue;
    readyCount += 1;
    if (endpoint.zoneHints.length > 0) withZoneHints += 1;
    if (endpoint.nodeHints.length > 0) withNodeHints += 1;
    for (const zone of endpoint.zoneHints) hintedZones.add(zone);
    for (const nodeName of endpoint.nodeHints) hintedNodes.add(nodeName);
  }
  return {
    readyCount,
    allReadyHaveZoneHints: withZoneHints === readyCount,
    allReadyHaveNodeHints: withNodeHints === readyCount,
    anyReadyHasZoneHints: withZoneHints > 0,
    anyReadyHasNodeHints: withNodeHints > 0,
    hintedZones,
    hintedNodes,
  };
}

export interface TopologyDecision {
  topologyMode: TopologyMode | null;
  /** Why kube-proxy fell back to all endpoints; null when it filtered or no ready endpoint is hinted. */
  reason: string | null;
  /** The messages kube-proxy logs while deciding, in its order. */
  kubeProxyLogs: string[];
}

function noTopology(): TopologyDecision {
  return { topologyMode: null, reason: null, kubeProxyLogs: [] };
}

/**
 * PreferSameNode when node hints are honoured, every ready endpoint has one and one names this node;
 * else PreferSameZone when every ready endpoint has a zone hint and one names this node's zone; else
 * no topology. One unhinted ready endpoint disables the filtering on every node.
 *
 * Decision: the reason is the zone-level message (the final one, which decides the fallback), followed
 * by "; " and the node-level message only when node hints were complete but named another node (the
 * "missing a node hint" message is noise whenever the Service does not use node hints at all).
 *
 * As upstream from 1.33 (`topologyModeFromHints`), zones and nodes are compared as plain strings, so a
 * node without a zone label (zone `''`) matches a hint literally named `''` (the 1.31–1.32 PreferClose
 * heuristic writes one for an endpoint without a zone). Before 1.33 (`canUseTopology`,
 * `filtersOnNodeWithoutZone` false) such a node never filters: "node is missing label".
 */
export function decideTopology(
  coverage: HintCoverage,
  node: ProxyNode,
  nodeHintsEnabled: boolean,
  filtersOnNodeWithoutZone = true,
): TopologyDecision {
  if (coverage.readyCount === 0) return noTopology();
  const kubeProxyLogs: string[] = [];
  let nodeLevel: string | null = null;
  if (nodeHintsEnabled) {
    if (coverage.allReadyHaveNodeHints) {
      if (coverage.hintedNodes.has(node.name)) return { topologyMode: 'PreferSameNode', reason: null, kubeProxyLogs };
      nodeLevel = TOPOLOGY_FALLBACK.noNodeHintForNode;
      kubeProxyLogs.push(nodeLevel);
    } else {
      kubeProxyLogs.push(TOPOLOGY_FALLBACK.endpointMissingNodeHint);
    }
  }
  let zoneLevel: string;
  if (coverage.allReadyHaveZoneHints) {
    const zoneMayFilter = filtersOnNodeWithoutZone || node.zone !== '';
    if (zoneMayFilter && coverage.hintedZones.has(node.zone))
      return { topologyMode: 'PreferSameZone', reason: null, kubeProxyLogs };
    zoneLevel = node.zone === '' ? TOPOLOGY_FALLBACK.nodeMissingZoneLabel : TOPOLOGY_FALLBACK.noZoneHintForZone;
  } else {
    zoneLevel = TOPOLOGY_FALLBACK.endpointMissingZoneHint;
  }
  kubeProxyLogs.push(zoneLevel);
  const anyHonouredHint = coverage.anyReadyHasZoneHints || (nodeHintsEnabled && coverage.anyReadyHasNodeHints);
  const reason = !anyHonouredHint ? null : nodeLevel === null ? zoneLevel : `${zoneLevel}; ${nodeLevel}`;
  return { topologyMode: null, reason, kubeProxyLogs };
}

/** Whether an endpoint may serve this node under the chosen mode (no fallback here: that is in the mode). */
export function isAvailableForTopology(
  endpoint: TopologyCandidate,
  mode: TopologyMode | null,
  node: ProxyNode,
): boolean {
  switch (mode) {
    case null:
      return true;
    case 'PreferSameNode':
      return endpoint.nodeHints.includes(node.name);
    case 'PreferSameZone':
      return endpoint.zoneHints.includes(node.zone);
  }
}

// ---------------------------------------------------------------------------------------------
// Addresses: kube-proxy re-serialises every endpoint IP (Go's ParseIPSloppy(...).String())
// ---------------------------------------------------------------------------------------------
//
// Decision: not built on ip-addresses.ts, whose strict grammar rejects what kube-proxy's sloppy
// parser accepts (IPv4 parts with leading zeros) and whose bigint values are more than the hot
// path (every endpoint of every Service in `analyze`) needs.

export interface ParsedIP {
  family: AddressType;
  /** Canonical text: dotted decimal, or RFC 5952 IPv6 (lowercase, longest zero run as `::`). */
  text: string;
}

/**
 * Decision: an address that does not parse (impossible past API validation) keeps its text as
 * written, where upstream would print `<nil>`; that names the culprit instead of merging all of them.
 */
export function canonicalAddress(address: string): string {
  if (isCanonicalIPv4(address)) return address;
  return parseIP(address)?.text ?? address;
}

/** Parses like Go's sloppy IP parser: IPv4 parts may carry leading zeros (read as decimal). */
export function parseIP(text: string): ParsedIP | null {
  if (!text.includes(':')) {
    const octets = parseIPv4(text);
    if (!octets) return null;
    const hasLeadingZeros = /(^|\.)0[0-9]/.test(text);
    return { family: 'IPv4', text: hasLeadingZeros ? octets.join('.') : text };
  }
  const groups = parseIPv6(text);
  if (!groups) return null;
  // An IPv4-mapped IPv6 address is an IPv4 address to Go, and prints as one.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return { family: 'IPv4', text: [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.') };
  }
  return { family: 'IPv6', text: formatIPv6(groups) };
}

/**
 * Four decimal parts of 0-255, leading zeros allowed. A character scan rather than split and regex:
 * this runs for every endpoint of every Service.
 */
function parseIPv4(text: string): number[] | null {
  const octets: number[] = [];
  let value = 0;
  let digits = 0;
  for (let index = 0; index <= text.length; index++) {
    const code = index < text.length ? text.charCodeAt(index) : DOT;
    if (code >= ZERO && code <= NINE) {
      value = value * 10 + (code - ZERO);
      digits += 1;
      if (value > 255) return null;
    } else if (code === DOT && digits > 0 && octets.length < 4) {
      octets.push(value);
      value = 0;
      digits = 0;
    } else {
      return null;
    }
  }
  return octets.length === 4 ? octets : null;
}

const ZERO = 0x30;
const NINE = 0x39;
const DOT = 0x2e;

function parseIPv6(text: string): number[] | null {
  const ellipsis = text.indexOf('::');
  if (ellipsis !== -1 && text.indexOf('::', ellipsis + 1) !== -1) return null;
  const head = ellipsis === -1 ? text : text.slice(0, ellipsis);
  const tail = ellipsis === -1 ? '' : text.slice(ellipsis + 2);
  const headGroups = parseIPv6Groups(head, ellipsis === -1);
  const tailGroups = parseIPv6Groups(tail, true);
  if (!headGroups || !tailGroups) return null;
  const present = headGroups.length + tailGroups.length;
  if (ellipsis === -1) return present === 8 ? headGroups : null;
  if (present >= 8) return null; // "::" must stand for at least one zero group
  return [...headGroups, ...new Array<number>(8 - present).fill(0), ...tailGroups];
}

/** Colon-separated hex groups; the last may be a dotted IPv4 address (two groups) when allowed. */
function parseIPv6Groups(part: string, mayEndWithIPv4: boolean): number[] | null {
  if (part === '') return [];
  const pieces = part.split(':');
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (mayEndWithIPv4 && index === pieces.length - 1 && piece.includes('.')) {
      const octets = parseIPv4(piece);
      if (!octets) return null;
      groups.push((octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]);
      continue;
    }
    if (!/^[0-9a-fA-F]{1,32}$/.test(piece)) return null;
    const value = parseInt(piece, 16);
    if (value > 0xffff) return null;
    groups.push(value);
  }
  return groups;
}

function formatIPv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
    start += length;
  }
  const hex = (slice: readonly number[]) => slice.map((group) => group.toString(16)).join(':');
  // A single zero group is never shortened to "::" (RFC 5952).
  if (bestLength < 2) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

// ---------------------------------------------------------------------------------------------

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareStrings);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
