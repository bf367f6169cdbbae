/**
 * The change behind each recommended fix, as a person applies it: `kubectl` commands and manifest
 * snippets. Plain text; every line that is not a command starts with `#`.
 */
import type { Service } from './k8s-objects.js';
import { ZONE_LABEL } from './k8s-objects.js';
import { TOPOLOGY_AWARE_HINTS_ANNOTATION, TOPOLOGY_MODE_ANNOTATION } from './routing-mode.js';
import type { TrafficDistribution } from './traffic-distribution.js';
import {
  type ServiceWorkload,
  type ServiceWorkloads,
  type UnknownWorkloadReason,
  unknownWorkloadText,
  type WorkloadRef,
} from './workloads.js';

export interface PatchTarget {
  namespace: string;
  name: string;
  service: Service;
}

export function topologyModePatch({ namespace, name, service }: PatchTarget): string {
  const dropDeprecated = hasAnnotation(service, TOPOLOGY_AWARE_HINTS_ANNOTATION)
    ? ` ${TOPOLOGY_AWARE_HINTS_ANNOTATION}-`
    : '';
  return `kubectl annotate service ${name} -n ${namespace} ${TOPOLOGY_MODE_ANNOTATION}=Auto${dropDeprecated} --overwrite`;
}

/** Sets the field and drops the annotations that would win over it (the what-if does the same). */
export function trafficDistributionPatch(target: PatchTarget, value: TrafficDistribution): string {
  const { namespace, name, service } = target;
  const lines = [
    `kubectl patch service ${name} -n ${namespace} --type=merge -p '{"spec":{"trafficDistribution":"${value}"}}'`,
  ];
  const annotations = [TOPOLOGY_MODE_ANNOTATION, TOPOLOGY_AWARE_HINTS_ANNOTATION].filter((key) =>
    hasAnnotation(service, key),
  );
  if (annotations.length > 0) {
    lines.push(`kubectl annotate service ${name} -n ${namespace} ${annotations.map((key) => `${key}-`).join(' ')}`);
  }
  return lines.join('\n');
}

export interface ReplicasPatchInput {
  /** Ready endpoints per zone before and after, zones by name. */
  before: ReadonlyMap<string, number>;
  after: ReadonlyMap<string, number>;
  /** Also turn the CPU heuristic on (the Service does not ask for topology routing yet). */
  enableAuto: boolean;
  /** An autoscaler floor to set instead of a fixed replica count. */
  minReplicas?: number;
  /** Which workload gets which endpoints ({@link planWorkloadChanges}). */
  plan: WorkloadPlan;
}

/** One workload's part of a replicas fix. */
export interface WorkloadChange {
  workload: WorkloadRef;
  /** Per zone, negative = fewer there. */
  endpointsToAdd: Record<string, number>;
  /** The workload's ready endpoints of this Service now, and after the change. */
  readyNow: number;
  readyAfter: number;
}

export interface WorkloadPlan {
  changes: WorkloadChange[];
  /** The deltas no known workload takes (its endpoints' owner is unknown), and why. */
  unassigned: Map<string, number>;
  unknownReason: UnknownWorkloadReason | null;
  /** Ready endpoints whose workload is unknown. */
  unknownEndpoints: number;
}

/**
 * Who takes each zone's change. Decision: a zone's added endpoints go to the workload that already has
 * the most ready endpoints there (else the most overall, a DaemonSet last, since it cannot be scaled),
 * so a Service backed by one workload per zone grows each where it is; removed endpoints come from the
 * workloads that have endpoints in that zone, largest first.
 */
export function planWorkloadChanges(workloads: ServiceWorkloads, deltas: ReadonlyMap<string, number>): WorkloadPlan {
  const totals = new Map(workloads.known.map((entry) => [entry, sum(entry.readyByZone.values())]));
  const added = new Map<ServiceWorkload, Map<string, number>>();
  const unassigned = new Map<string, number>();
  const give = (entry: ServiceWorkload, zone: string, delta: number) => {
    const zones = added.get(entry) ?? new Map<string, number>();
    zones.set(zone, (zones.get(zone) ?? 0) + delta);
    added.set(entry, zones);
  };
  for (const [zone, delta] of [...deltas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (delta === 0) continue;
    const ranked = [...workloads.known].sort(
      (a, b) =>
        Number(a.workload.kind === 'DaemonSet') - Number(b.workload.kind === 'DaemonSet') ||
        (b.readyByZone.get(zone) ?? 0) - (a.readyByZone.get(zone) ?? 0) ||
        totals.get(b)! - totals.get(a)!,
    );
    if (delta > 0) {
      if (ranked.length === 0) unassigned.set(zone, delta);
      else give(ranked[0], zone, delta);
      continue;
    }
    let left = -delta;
    for (const entry of ranked) {
      const take = Math.min(left, entry.readyByZone.get(zone) ?? 0);
      if (take > 0) give(entry, zone, -take);
      left -= take;
    }
    if (left > 0) unassigned.set(zone, -left);
  }
  const changes = workloads.known
    .filter((entry) => added.has(entry))
    .map((entry) => {
      const zones = added.get(entry)!;
      const readyNow = totals.get(entry)!;
      return {
        workload: entry.workload,
        endpointsToAdd: Object.fromEntries([...zones].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
        readyNow,
        readyAfter: readyNow + sum(zones.values()),
      };
    });
  return {
    changes,
    unassigned,
    unknownReason: workloads.unknownReason,
    unknownEndpoints: workloads.unknownEndpoints,
  };
}

/**
 * The commands of a replicas fix, acting on the workloads the plan names (`kubectl scale
 * statefulset/ledger …`); a part whose workload is unknown says so in a comment and names no guessed
 * object. The spread constraint selects the Service's own pod selector. A spread constraint with maxSkew 1
 * only gives the per-zone counts when they are even, so for uneven counts the snippet says which zone
 * gets how many instead.
 */
export function replicasPatch(target: PatchTarget, input: ReplicasPatchInput): string {
  const { namespace, name } = target;
  const lines = [
    `# ready endpoints per zone: ${[...input.after.keys()]
      .sort()
      .map((zone) => `${zone} ${input.before.get(zone) ?? 0} -> ${input.after.get(zone) ?? 0}`)
      .join(', ')}`,
  ];
  if (input.enableAuto) lines.push(topologyModePatch(target));
  for (const change of input.plan.changes) lines.push(...workloadLines(namespace, change, input));
  if (input.plan.unassigned.size > 0 || input.plan.changes.length === 0) {
    const counts = [...input.plan.unassigned]
      .map(([zone, delta]) => `${delta > 0 ? '+' : ''}${delta} in ${zone}`)
      .join(', ');
    lines.push(
      `# the workload behind Service ${namespace}/${name} is not known: ${unknownWorkloadText(input.plan.unknownReason)}`,
      `# no command is given for it: change whatever runs its Pods${counts === '' ? '' : ` by ${counts}`}` +
        ` (${sum(input.after.values())} ready endpoints in all)`,
    );
  }
  const counts = [...input.after.values()];
  if (counts.length > 0 && Math.max(...counts) - Math.min(...counts) <= 1) {
    lines.push('# keep the pods spread over the zones (pod template spec):', ...spreadSnippet(target.service));
  } else {
    lines.push(
      '# the counts per zone are uneven, which a spread constraint does not give: pin them with one workload per zone',
      `# (nodeSelector ${ZONE_LABEL}: <zone>) or a nodeAffinity per zone`,
    );
  }
  return lines.join('\n');
}

function workloadLines(namespace: string, change: WorkloadChange, input: ReplicasPatchInput): string[] {
  const { kind, name } = change.workload;
  const ref = `${kind.toLowerCase()}/${name}`;
  const zones = Object.entries(change.endpointsToAdd)
    .map(([zone, delta]) => `${delta > 0 ? '+' : ''}${delta} in ${zone}`)
    .join(', ');
  const header = `# ${ref}: ${zones} (ready endpoints ${change.readyNow} -> ${change.readyAfter})`;
  if (kind === 'DaemonSet') {
    return [
      header,
      `# ${ref} runs one Pod per eligible node and cannot be scaled: add nodes it runs on in those zones (or widen its nodeSelector)`,
    ];
  }
  if (input.minReplicas !== undefined) {
    const floor = input.plan.changes.length === 1 ? input.minReplicas : change.readyAfter;
    const hpa = `$(kubectl get hpa -n ${namespace} -o jsonpath='{.items[?(@.spec.scaleTargetRef.name=="${name}")].metadata.name}')`;
    return [header, `kubectl patch hpa ${hpa} -n ${namespace} --type=merge -p '{"spec":{"minReplicas":${floor}}}'`];
  }
  return [header, `kubectl scale ${ref} -n ${namespace} --replicas=${change.readyAfter}`];
}

function spreadSnippet(service: Service): string[] {
  const selector = service.spec?.selector;
  const labels =
    typeof selector === 'object' && selector !== null && Object.keys(selector).length > 0
      ? Object.entries(selector as Record<string, string>).map(([key, value]) => `#         ${key}: ${value}`)
      : ['#         app: <the Service selector>'];
  return [
    '# topologySpreadConstraints:',
    '#   - maxSkew: 1',
    `#     topologyKey: ${ZONE_LABEL}`,
    '#     whenUnsatisfiable: DoNotSchedule',
    '#     labelSelector:',
    '#       matchLabels:',
    ...labels,
  ];
}

export interface BlockingNode {
  name: string;
  /** What stops the controller: `no zone label`, `empty zone label`, `zero allocatable CPU`, or both. */
  problem: string;
  missingZone: boolean;
  zeroCpu: boolean;
}

export function nodesPatch(nodes: readonly BlockingNode[]): string {
  const lines: string[] = [];
  for (const node of nodes) {
    if (node.missingZone)
      lines.push(`kubectl label node ${node.name} ${ZONE_LABEL}=<zone of ${node.name}> --overwrite`);
    if (node.zeroCpu) {
      lines.push(
        `# node ${node.name} reports zero allocatable CPU: fix its kubelet, or take it out of the cluster:`,
        `kubectl drain ${node.name} --ignore-daemonsets && kubectl delete node ${node.name}`,
      );
    }
  }
  return lines.join('\n');
}

function hasAnnotation(service: Service, key: string): boolean {
  const annotations = service.metadata.annotations;
  return annotations !== undefined && annotations !== null && Object.hasOwn(annotations, key);
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
