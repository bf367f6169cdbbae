/**
 * The controller's cluster-wide node summary ("SetNodes"): allocatable CPU per zone of the ready,
 * non-control-plane nodes, and each zone's share of the total. The CPU heuristic allocates endpoints to
 * zones in proportion to these shares.
 */
import { INSUFFICIENT_NODE_INFO_MESSAGE } from './events.js';
import { type Node, ZONE_LABEL } from './k8s-objects.js';
import {
  type Quantity,
  QuantityError,
  ZERO_QUANTITY,
  addQuantities,
  isZeroQuantity,
  parseQuantity,
  toMillisCeil,
} from './quantity.js';

export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';
export const MASTER_LABEL = 'node-role.kubernetes.io/master';

export interface ZoneCapacity {
  name: string;
  allocatableCpuMillis: number;
  cpuRatio: number;
  readyNodes: number;
}

export interface NodeInfo {
  /** false: the CPU heuristic sets no hints anywhere. */
  sufficient: boolean;
  /** The controller's own wording when insufficient, else null. */
  reason: string | null;
  /** Which node or condition made the info insufficient, else null. */
  detail: string | null;
  /** zone -> share of allocatable CPU; null is the controller's "no ratios" marker. */
  ratios: ReadonlyMap<string, number> | null;
  /** Zones gathered, by name. Empty when a bad node poisoned the summary. */
  zones: ZoneCapacity[];
}

export function isExcludedNode(node: Node): boolean {
  const labels = node.metadata.labels;
  return labels !== undefined && labels !== null && (CONTROL_PLANE_LABEL in labels || MASTER_LABEL in labels);
}

/** Ready = the first `Ready` condition has status exactly `True`. */
export function isNodeReady(node: Node): boolean {
  const ready = node.status?.conditions?.find((condition) => condition.type === 'Ready');
  return ready?.status === 'True';
}

/** The node's `topology.kubernetes.io/zone` label, '' when unlabeled. */
export function nodeZone(node: Node): string {
  return node.metadata.labels?.[ZONE_LABEL] ?? '';
}

interface ZoneTotals {
  cpu: Quantity;
  readyNodes: number;
}

export function computeNodeInfo(nodes: readonly Node[]): NodeInfo {
  // Visiting nodes by name keeps `detail` and errors independent of input order; the sums are exact,
  // so the ratios are order independent anyway.
  const counted = nodes.filter(isCounted).sort(byName);
  const cpuByZone = new Map<string, ZoneTotals>();
  let badNode: string | null = null;

  // Decision: CPU is parsed for every counted node, even after a bad node poisoned the summary
  // (upstream stops visiting), so an unparseable quantity is reported whatever the node order.
  // Skipped nodes (control plane, not ready) are never parsed: the controller never reads them.
  for (const node of counted) {
    const cpu = allocatableCpu(node);
    const problem = nodeProblem(node, cpu);
    if (problem !== null) {
      badNode ??= `node ${JSON.stringify(node.metadata.name)} ${problem}`;
      continue;
    }
    const zone = nodeZone(node);
    const totals = cpuByZone.get(zone) ?? { cpu: ZERO_QUANTITY, readyNodes: 0 };
    cpuByZone.set(zone, { cpu: addQuantities(totals.cpu, cpu), readyNodes: totals.readyNodes + 1 });
  }

  // Decision: `zones` reports what the controller gathered. A bad node clears it (upstream clears
  // cpuByZone), so it is empty; a one-zone cluster still lists its zone, with ratio 1, for the reader.
  if (badNode !== null) return insufficient(badNode, []);
  const zones = zoneCapacities(cpuByZone);
  if (zones.length === 0) return insufficient('no ready worker nodes', zones);
  if (zones.length === 1) return insufficient(`ready nodes are in only one zone (${zones[0]?.name})`, zones);
  return {
    sufficient: true,
    reason: null,
    detail: null,
    ratios: new Map(zones.map((zone) => [zone.name, zone.cpuRatio])),
    zones,
  };
}

/** The nodes the controller sums up: ready, and not control plane. */
function isCounted(node: Node): boolean {
  return !isExcludedNode(node) && isNodeReady(node);
}

function allocatableCpu(node: Node): Quantity {
  const text = node.status?.allocatable?.cpu;
  if (text === undefined || text === null) return ZERO_QUANTITY;
  try {
    return parseQuantity(text);
  } catch (error) {
    if (!(error instanceof QuantityError)) throw error;
    throw new QuantityError(
      `node ${JSON.stringify(node.metadata.name)}: status.allocatable.cpu ${error.message}`,
      error.text,
    );
  }
}

/** What makes a counted node poison the summary: no zone, or no CPU. */
function nodeProblem(node: Node, cpu: Quantity): string | null {
  const zone = zoneProblem(node);
  const noCpu = isZeroQuantity(cpu);
  if (zone !== null && noCpu) return `${zone} and zero allocatable CPU`;
  if (zone !== null) return zone;
  if (noCpu) return 'has zero allocatable CPU';
  return null;
}

function zoneProblem(node: Node): string | null {
  const zone = node.metadata.labels?.[ZONE_LABEL];
  if (zone === undefined || zone === null) return `has no ${ZONE_LABEL} label`;
  if (zone === '') return `has an empty ${ZONE_LABEL} label`;
  return null;
}

/**
 * Ratios use the per-zone and total sums converted to millicores (not per-node millicores), divided in
 * double precision exactly as upstream does.
 */
function zoneCapacities(cpuByZone: ReadonlyMap<string, ZoneTotals>): ZoneCapacity[] {
  const names = [...cpuByZone.keys()].sort();
  const total = names.reduce(
    (sum, name) => addQuantities(sum, cpuByZone.get(name)?.cpu ?? ZERO_QUANTITY),
    ZERO_QUANTITY,
  );
  const totalMillis = toMillisCeil(total);
  return names.map((name) => {
    const totals = cpuByZone.get(name) ?? { cpu: ZERO_QUANTITY, readyNodes: 0 };
    const allocatableCpuMillis = toMillisCeil(totals.cpu);
    return { name, allocatableCpuMillis, cpuRatio: allocatableCpuMillis / totalMillis, readyNodes: totals.readyNodes };
  });
}

function insufficient(detail: string, zones: ZoneCapacity[]): NodeInfo {
  return { sufficient: false, reason: INSUFFICIENT_NODE_INFO_MESSAGE, detail, ratios: null, zones };
}

function byName(a: Node, b: Node): number {
  return compareNames(a.metadata.name, b.metadata.name);
}

/** Ascending code-unit order, which is byte-wise order for the ASCII names Kubernetes allows. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
