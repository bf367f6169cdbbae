/**
 * The what-if `removeZoneNodes`: a zone's nodes lost, the endpoints on them dropped or rescheduled onto
 * the nodes left.
 */
import { type Endpoint, type Node, SERVICE_NAME_LABEL } from './k8s-objects.js';
import { byteOrder } from './lists.js';
import { isExcludedNode, isNodeReady, nodeZone } from './node-info.js';
import { type RemoveZoneNodesWhatIf, WhatIfError } from './what-if-document.js';
import type { WorkingSnapshot } from './what-if-snapshot.js';

/**
 * Drops the zones' nodes; the endpoints in those zones (or on those nodes) are dropped, or with
 * `reschedule` moved to the nodes left, like pods the scheduler places elsewhere.
 *
 * Decision: every zone is removed before anything is rescheduled, so no pod moves into a zone that is
 * removed too. Moved endpoints go round-robin over the remaining zones in byte-wise name order (within
 * a zone over its ready worker nodes by name), counted per Service and address family and starting at
 * the first zone: the EKS walkthrough's lone pod from zone-1d lands in zone-1a. A moved endpoint keeps
 * its address and readiness and loses its hints (the controller has not written any for it yet).
 */
export function removeZoneNodes(state: WorkingSnapshot, entries: readonly RemoveZoneNodesWhatIf[]): void {
  if (entries.length === 0) return;
  const zones = new Map<string, { reschedule: boolean; path: string }>();
  entries.forEach((entry, index) => {
    const path = `whatIf.removeZoneNodes[${index}]`;
    if (zones.has(entry.zone))
      throw new WhatIfError(`${path}.zone`, `zone ${JSON.stringify(entry.zone)} is listed twice`);
    if (!state.nodes.some((node) => nodeZone(node) === entry.zone)) {
      throw new WhatIfError(`${path}.zone`, `no node in zone ${JSON.stringify(entry.zone)} in the snapshot`);
    }
    zones.set(entry.zone, { reschedule: entry.reschedule === true, path });
    state.removedZones.add(entry.zone);
  });
  const removedNodes = new Map<string, string>();
  for (const node of state.nodes) if (zones.has(nodeZone(node))) removedNodes.set(node.metadata.name, nodeZone(node));
  state.nodes = state.nodes.filter((node) => !zones.has(nodeZone(node)));
  const targets = rescheduleTargets(state.nodes);
  const moved = new Map<string, number>();

  state.slices.forEach((slice, index) => {
    if (slice.addressType === 'FQDN') return;
    const lostZoneOf = (endpoint: Endpoint) =>
      zones.has(endpoint.zone ?? '') ? (endpoint.zone as string) : removedNodes.get(endpoint.nodeName ?? '');
    if (!(slice.endpoints ?? []).some((endpoint) => lostZoneOf(endpoint) !== undefined)) return;
    const writable = state.writableSlice(index);
    const counterKey = `${writable.metadata.namespace ?? 'default'}/${writable.metadata.labels?.[SERVICE_NAME_LABEL] ?? ''}/${writable.addressType}`;
    writable.endpoints = writable.endpoints.flatMap((endpoint) => {
      const lostZone = lostZoneOf(endpoint);
      if (lostZone === undefined) return [endpoint];
      const removal = zones.get(lostZone);
      if (!removal?.reschedule) return [];
      if (targets.length === 0) {
        throw new WhatIfError(
          `${removal.path}.reschedule`,
          'no ready worker node is left in another zone to reschedule onto',
        );
      }
      const count = moved.get(counterKey) ?? 0;
      moved.set(counterKey, count + 1);
      return [movedEndpoint(endpoint, targets[count % targets.length])];
    });
  });
}

interface NodePlace {
  name: string;
  zone: string;
}

/** Ready worker nodes with a zone, interleaved by zone: first node of each zone, then the second, … */
function rescheduleTargets(nodes: readonly Node[]): NodePlace[] {
  const byZone = schedulableNodesByZone(nodes);
  const zones = [...byZone.keys()].sort(byteOrder);
  const rounds = Math.max(0, ...zones.map((zone) => byZone.get(zone)?.length ?? 0));
  const targets: NodePlace[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const zone of zones) {
      const names = byZone.get(zone) ?? [];
      targets.push({ zone, name: names[round % names.length] });
    }
  }
  return targets;
}

/** zone -> names (sorted) of the nodes a pod can be scheduled on: ready, not control plane, with a zone. */
export function schedulableNodesByZone(nodes: readonly Node[]): Map<string, string[]> {
  const byZone = new Map<string, string[]>();
  for (const node of nodes) {
    const zone = nodeZone(node);
    if (zone === '' || isExcludedNode(node) || !isNodeReady(node)) continue;
    const names = byZone.get(zone);
    if (names) names.push(node.metadata.name);
    else byZone.set(zone, [node.metadata.name]);
  }
  for (const names of byZone.values()) names.sort(byteOrder);
  return byZone;
}

function movedEndpoint(endpoint: Endpoint, target: NodePlace): Endpoint {
  const { hints: _hints, ...rest } = endpoint;
  return { ...rest, nodeName: target.name, zone: target.zone };
}
