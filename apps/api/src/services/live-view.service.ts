import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  applyClusterOverrides,
  canonicalAddress,
  type ClusterOverrides,
  compareHints,
  computeNodeInfo,
  decodePayloadAsync,
  type EndpointSlice,
  groupSlicesByService,
  isExcludedNode,
  isNodeReady,
  type Node,
  type NodeInfo,
  nodeZone,
  analyzeSnapshot,
  type CrossZonePrice,
  parseSnapshot,
  type Recommendation,
  recommendFixes,
  reconcileSnapshotService,
  type Service,
  type ClusterModel,
  type ServiceEndpointsView,
  serviceProxyView,
  type Snapshot,
  snapshotClusterModel,
} from '@zw/core';
import { type ClusterHeadRow, ReadDb, storedSnapshotPayload } from '@zw/db';
import type { ApiConfig } from '../config.js';

/**
 * How many parsed payloads are kept (each at most LIVE_VIEW_CACHE_MAX_BYTES of JSON; parsed, a snapshot
 * takes a few times its JSON size in memory).
 */
const CACHED_SNAPSHOTS = 2;

interface IndexedSnapshot {
  snapshot: Snapshot;
  services: Map<string, Service>;
  slices: Map<string, EndpointSlice[]>;
  nodeInfo: NodeInfo;
  /**
   * The Kubernetes version and data plane the snapshot names, after the cluster's overrides (else the
   * defaults): what the worker analysed it with.
   */
  cluster: ClusterModel;
}

export interface ProxyViewSummary {
  topologyFiltered: boolean;
  topologyMode: string | null;
  reason: string | null;
  endpoints: number | null;
  endpointsByZone: Record<string, number>;
}

export interface LiveView {
  kubeProxy: {
    available: boolean;
    reason: string | null;
    snapshotId: string | null;
    zones: {
      zone: string;
      node: string;
      nodesInZone: number;
      observed: ProxyViewSummary;
      computed: ProxyViewSummary;
    }[];
  };
  drift: { available: boolean; endpoints: number | null; observedHints: boolean | null; details: unknown[] };
}

/**
 * kube-proxy's view per zone and the hint drift of one Service, computed on demand from the raw payload
 * of the newest processed snapshot (core's kubeProxyView, reconcileSnapshotService and compareHints).
 *
 * Decision: computed from the payload rather than stored by the worker. Both depend on endpoint
 * addresses, which change with every pod restart: storing them per Service would split the history at
 * each rollout, and computing them for every Service of every snapshot would cost the worker more than
 * the analysis itself, for a view only the Service detail shows. The price is that they are unavailable
 * once the newest payload is past PAYLOAD_RETENTION_DAYS (an agent silent that long); the answer then
 * says so. Small payloads stay parsed in memory so a detail page does not re-parse them.
 *
 * The cluster's overrides are applied to the payload as the worker applies them before its analysis, and
 * are part of the cache key: changing one changes the next answer at once.
 *
 * Decision: a zone is represented by one node: the first ready, non-control-plane node of the zone in
 * name order (kube-proxy's view differs between nodes of a zone only for node hints, PreferSameNode).
 */
@Injectable()
export class LiveViewService {
  private readonly cache = new Map<string, IndexedSnapshot>();
  private readonly maxCachedBytes: number;

  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.maxCachedBytes = config.get('LIVE_VIEW_CACHE_MAX_BYTES', { infer: true });
  }

  async view(
    snapshotId: string | null,
    overrides: ClusterOverrides,
    namespace: string,
    name: string,
  ): Promise<LiveView> {
    const indexed = snapshotId ? await this.load(snapshotId, overrides) : null;
    if (!indexed) {
      const reason = snapshotId
        ? 'the raw payload of the newest snapshot is past its retention period'
        : 'no processed snapshot yet';
      return unavailable(reason, snapshotId);
    }
    const key = `${namespace}/${name}`;
    const service = indexed.services.get(key);
    if (!service) return unavailable('the Service is not in the newest snapshot', snapshotId);
    const observed = indexed.slices.get(key) ?? [];
    const computed = reconcileSnapshotService(service, observed, indexed.nodeInfo, indexed.cluster).endpointSlices;
    const zoneOf = addressZones(observed);
    const drift = compareHints(observed, computed);
    return {
      kubeProxy: {
        available: true,
        reason: null,
        snapshotId,
        zones: representativeNodes(indexed.snapshot.nodes).map(({ zone, node, nodesInZone }) => {
          const proxyNode = { name: node.metadata.name, zone };
          return {
            zone,
            node: node.metadata.name,
            nodesInZone,
            observed: summarize(serviceProxyView(service, observed, proxyNode, indexed.cluster), zoneOf),
            computed: summarize(serviceProxyView(service, computed, proxyNode, indexed.cluster), zoneOf),
          };
        }),
      },
      drift: {
        available: true,
        endpoints: drift.endpoints,
        observedHints: drift.observedHints,
        details: drift.details,
      },
    };
  }

  /**
   * The parsed payload of a snapshot with the cluster's overrides applied (shared with the cache: callers
   * must not change it), null once pruned.
   */
  async snapshot(snapshotId: string, overrides: ClusterOverrides): Promise<Snapshot | null> {
    return (await this.load(snapshotId, overrides))?.snapshot ?? null;
  }

  /**
   * The stability fix of a Service whose hints came and went while its ready endpoints moved between
   * `countsSeen` (its timeline): the replica floor from which every count of that swing keeps hints,
   * checked by the core on the newest payload. Null when there is none (or no payload).
   *
   * Decision: computed when asked, not by the worker: it depends on the history before the snapshot,
   * and the worker's stored analysis of a snapshot must not depend on the order snapshots are recorded in.
   * The Service is analysed alone (with every node), which is what its fixes depend on.
   */
  async stabilityFix(
    snapshotId: string | null,
    namespace: string,
    name: string,
    countsSeen: readonly number[],
    price: CrossZonePrice,
    trafficGb: number,
    overrides: ClusterOverrides,
  ): Promise<Recommendation | null> {
    const indexed = snapshotId ? await this.load(snapshotId, overrides) : null;
    const key = `${namespace}/${name}`;
    const service = indexed?.services.get(key);
    if (!indexed || !service) return null;
    const alone = { ...indexed.snapshot, services: [service], endpointSlices: indexed.slices.get(key) ?? [] };
    const fixes = recommendFixes(alone, analyzeSnapshot(alone), {
      price,
      trafficGb: new Map([[key, trafficGb]]),
      history: new Map([[key, countsSeen]]),
    });
    return fixes.services[0]?.recommendations.find((fix) => fix.stability !== undefined) ?? null;
  }

  private async load(snapshotId: string, overrides: ClusterOverrides): Promise<IndexedSnapshot | null> {
    const key = cacheKey(snapshotId, overrides);
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const row = await storedSnapshotPayload(this.db, snapshotId);
    if (!row) return null;
    const { document } = await decodePayloadAsync(row.gzip, { subject: 'stored payload' });
    applyClusterOverrides(document, overrides);
    const snapshot = parseSnapshot(document);
    const indexed: IndexedSnapshot = {
      snapshot,
      services: new Map(snapshot.services.map((s) => [`${s.metadata.namespace ?? 'default'}/${s.metadata.name}`, s])),
      slices: groupSlicesByService(snapshot.endpointSlices),
      nodeInfo: computeNodeInfo(snapshot.nodes),
      cluster: snapshotClusterModel(snapshot),
    };
    if (row.sizeBytes <= this.maxCachedBytes) {
      this.cache.set(key, indexed);
      if (this.cache.size > CACHED_SNAPSHOTS) this.cache.delete(this.cache.keys().next().value!);
    }
    return indexed;
  }
}

/** The cluster's overrides as its row stores them. */
export function overridesOf(head: Pick<ClusterHeadRow, 'kubernetes_version' | 'data_plane'>): ClusterOverrides {
  return { kubernetesVersion: head.kubernetes_version, dataPlane: head.data_plane };
}

/** One entry per snapshot and overrides: a changed override misses the cache rather than reading stale settings. */
function cacheKey(snapshotId: string, overrides: ClusterOverrides): string {
  return JSON.stringify([snapshotId, overrides.kubernetesVersion, overrides.dataPlane]);
}

function unavailable(reason: string, snapshotId: string | null): LiveView {
  return {
    kubeProxy: { available: false, reason, snapshotId, zones: [] },
    drift: { available: false, endpoints: null, observedHints: null, details: [] },
  };
}

function representativeNodes(nodes: readonly Node[]): { zone: string; node: Node; nodesInZone: number }[] {
  const byZone = new Map<string, Node[]>();
  for (const node of nodes) {
    const zone = nodeZone(node);
    if (zone === '') continue;
    byZone.set(zone, [...(byZone.get(zone) ?? []), node]);
  }
  return [...byZone.keys()].sort().map((zone) => {
    const members = byZone.get(zone)!.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    const node = members.find((n) => isNodeReady(n) && !isExcludedNode(n)) ?? members[0];
    return { zone, node, nodesInZone: members.length };
  });
}

/** Endpoint addresses (as kube-proxy names them) to the zone of their endpoint. */
function addressZones(slices: readonly EndpointSlice[]): Map<string, string> {
  const zones = new Map<string, string>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      if (endpoint.zone) for (const address of endpoint.addresses) zones.set(canonicalAddress(address), endpoint.zone);
    }
  }
  return zones;
}

function summarize(view: ServiceEndpointsView, zoneOf: Map<string, string>): ProxyViewSummary {
  // Counted in a Map: a zone is a label value, and `constructor` or `__proto__` are names a plain object inherits.
  const counts = new Map<string, number>();
  for (const address of view.clusterEndpoints ?? []) {
    const zone = zoneOf.get(address) ?? '(unknown)';
    counts.set(zone, (counts.get(zone) ?? 0) + 1);
  }
  const endpointsByZone = Object.fromEntries(counts);
  return {
    topologyFiltered: view.topologyFiltered,
    topologyMode: view.topologyMode,
    reason: view.reason,
    endpoints: view.clusterEndpoints?.length ?? null,
    endpointsByZone,
  };
}
