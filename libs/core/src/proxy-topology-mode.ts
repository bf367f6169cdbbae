/**
 * kube-proxy's topology mode for one node (upstream `pkg/proxy/topology.go topologyModeFromHints`, v1.33+;
 * `canUseTopology` before): whether the ready endpoints' hints let it narrow a Service's cluster endpoints
 * to the node (PreferSameNode) or its zone (PreferSameZone), and the message it logs when they do not.
 * Shared with the traffic model.
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

/** What the topology decision reads from an endpoint. Shared with the traffic model. */
export interface TopologyCandidate {
  readonly ready: boolean;
  readonly zoneHints: readonly string[];
  readonly nodeHints: readonly string[];
}

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

export function noTopology(): TopologyDecision {
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
