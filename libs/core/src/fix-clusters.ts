/**
 * The cluster a Service's fixes are computed against: as it is today, and with its blocking nodes (no
 * zone label, zero allocatable CPU) fixed, which changes the controller's node count for every Service
 * (upstream `topologycache.go SetNodes`: a node without a zone or CPU makes node info insufficient).
 */
import type { AnalysisReport } from './analyze.js';
import type { BlockingNode } from './fix-patches.js';
import type { Node } from './k8s-objects.js';
import { ZONE_LABEL } from './k8s-objects.js';
import { modelledVersion, type VersionFeatures, versionFeatures } from './kubernetes-versions.js';
import { computeNodeInfo, isExcludedNode, isNodeReady, nodeZone } from './node-info.js';
import { isZeroQuantity, parseQuantity } from './quantity.js';
import type { OutcomeCluster } from './service-outcome.js';
import { snapshotRecordsManagedBy } from './slice-management.js';
import type { Snapshot } from './snapshot-model.js';
import { byteOrder } from './lists.js';

export interface Clusters {
  today: OutcomeCluster;
  /** With the blocking nodes out of the controller's count; null when there are none. */
  fixed: OutcomeCluster | null;
  blockers: BlockingNode[];
  /** Zones with a node that takes new pods (ready, worker, not cordoned). */
  placeable: ReadonlySet<string>;
  fixedPlaceable: ReadonlySet<string>;
  /** Why node info is insufficient (the analysis' `nodeInfo.detail`). */
  nodeDetail: string | null;
}

export function clustersOf(snapshot: Snapshot, report: AnalysisReport): Clusters {
  const { nodes } = snapshot;
  const originShares = new Map(Object.entries(report.trafficOrigin.shares));
  const features = featuresOfReport(report);
  const recordsManagedBy = snapshotRecordsManagedBy(snapshot.endpointSlices);
  const today: OutcomeCluster = {
    ratios: computeNodeInfo(nodes).ratios,
    originShares,
    schedulableNodes: schedulableNodesByZone(nodes),
    features,
    recordsManagedBy,
  };
  const blockers = today.ratios === null ? blockingNodes(nodes) : [];
  if (blockers.length === 0) {
    const nodeDetail = report.nodeInfo.detail;
    return { today, fixed: null, blockers, placeable: placeableZones(nodes), fixedPlaceable: new Set(), nodeDetail };
  }
  const names = new Set(blockers.map((node) => node.name));
  const kept = nodes.filter((node) => !names.has(node.metadata.name));
  const info = computeNodeInfo(kept);
  // Decision: with the nodes fixed, requests originate as the analysis would then assume: per the
  // snapshot's zone weights when it has them, else per allocatable CPU.
  const fixedShares =
    report.trafficOrigin.source === 'zone-traffic-weights' || info.ratios === null
      ? originShares
      : new Map([...info.ratios].sort(([a], [b]) => byteOrder(a, b)));
  const fixed = {
    ratios: info.ratios,
    originShares: fixedShares,
    schedulableNodes: schedulableNodesByZone(kept),
    features,
    recordsManagedBy,
  };
  const placeable = placeableZones(nodes);
  return {
    today,
    fixed,
    blockers,
    placeable,
    fixedPlaceable: placeableZones(kept),
    nodeDetail: report.nodeInfo.detail,
  };
}

/**
 * The controller's feature gates of the version the report models, so a fix's promised state is the one
 * `analyze` reports at that version; a report that does not say is 1.35's.
 */
function featuresOfReport(report: AnalysisReport): VersionFeatures | undefined {
  const version = (report as { kubernetesVersion?: unknown }).kubernetesVersion;
  if (typeof version !== 'string') return undefined;
  const minor = modelledVersion(version, null).minor;
  return versionFeatures(minor);
}

/** Ready worker nodes whose zone label is missing or empty, or whose allocatable CPU is zero, by name. */
export function blockingNodes(nodes: readonly Node[]): BlockingNode[] {
  const blockers: BlockingNode[] = [];
  for (const node of nodes) {
    if (isExcludedNode(node) || !isNodeReady(node)) continue;
    const missingZone = nodeZone(node) === '';
    const zeroCpu = hasZeroCpu(node);
    if (!missingZone && !zeroCpu) continue;
    const label = node.metadata.labels?.[ZONE_LABEL] === undefined ? 'no zone label' : 'an empty zone label';
    const problem = [missingZone ? label : null, zeroCpu ? 'zero allocatable CPU' : null].filter(Boolean).join(' and ');
    blockers.push({ name: node.metadata.name, problem, missingZone, zeroCpu });
  }
  return blockers.sort((a, b) => byteOrder(a.name, b.name));
}

function hasZeroCpu(node: Node): boolean {
  const text = node.status?.allocatable?.cpu;
  if (text === undefined || text === null) return true;
  try {
    return isZeroQuantity(parseQuantity(text));
  } catch {
    return false;
  }
}

/** As the what-if places replicas: ready worker nodes with a zone, names sorted per zone. */
function schedulableNodesByZone(nodes: readonly Node[]): Map<string, string[]> {
  const byZone = new Map<string, string[]>();
  for (const node of nodes) {
    const zone = nodeZone(node);
    if (zone === '' || isExcludedNode(node) || !isNodeReady(node)) continue;
    const names = byZone.get(zone) ?? [];
    names.push(node.metadata.name);
    byZone.set(zone, names);
  }
  for (const names of byZone.values()) names.sort(byteOrder);
  return byZone;
}

/** Decision: a cordoned node (`spec.unschedulable`) takes no new pods, so a zone of only such nodes cannot grow. */
export function placeableZones(nodes: readonly Node[]): Set<string> {
  const zones = new Set<string>();
  for (const node of nodes) {
    const zone = nodeZone(node);
    const cordoned = (node.spec as { unschedulable?: unknown } | undefined)?.unschedulable === true;
    if (zone !== '' && !isExcludedNode(node) && isNodeReady(node) && !cordoned) zones.add(zone);
  }
  return zones;
}
