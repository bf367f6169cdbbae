/**
 * kube-proxy's preprocessing of EndpointSlices (upstream `pkg/proxy/endpointslicecache.go`): the endpoints
 * it holds for one Service port, read with its own meaning of the endpoint conditions, addresses
 * re-serialised, and one endpoint kept where slices list it twice.
 */
import type { Endpoint, EndpointSlice } from './k8s-objects.js';
import { byteOrder as compareStrings } from './lists.js';
import { canonicalAddress } from './proxy-addresses.js';
import type { TopologyCandidate } from './proxy-topology-mode.js';

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
export function portKey(port: { name?: string; protocol?: string }): PortKey {
  return { name: port.name ?? '', protocol: port.protocol ?? 'TCP' };
}

/** The endpoints kube-proxy holds for one Service port: unique by identity, sorted by identity. */
export function proxyEndpointsForPort(slices: readonly EndpointSlice[], port: PortKey): ProxyEndpoint[] {
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
