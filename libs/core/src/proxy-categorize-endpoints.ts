/**
 * CategorizeEndpoints (upstream `pkg/proxy/topology.go CategorizeEndpoints`): one Service port's endpoints
 * split into the cluster endpoints (topology applied) and local endpoints kube-proxy on a node uses,
 * with serving-terminating endpoints as the fallback when none is ready.
 */
import { byteOrder as compareStrings } from './lists.js';
import type { ProxyEndpoint } from './proxy-endpointslice-cache.js';
import {
  decideTopology,
  hintCoverage,
  isAvailableForTopology,
  noTopology,
  type ProxyNode,
  type TopologyMode,
} from './proxy-topology-mode.js';
import type { PortTrafficPolicy } from './proxy-traffic-policy.js';

export interface ProxyOptions {
  /** Whether kube-proxy reads `hints.forNodes` (PreferSameTrafficDistribution; locked on in v1.35). */
  nodeHintsEnabled?: boolean;
  /**
   * Whether a node without a zone label may still filter by zone hints (a hint naming the zone `""`):
   * true from 1.33 (`topologyModeFromHints`), false before (`canUseTopology`). Default: true.
   */
  filtersOnNodeWithoutZone?: boolean;
}

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
