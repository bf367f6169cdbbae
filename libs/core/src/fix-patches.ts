/**
 * The change behind each recommended fix, as a person applies it: `kubectl` commands and manifest
 * snippets. Plain text; every line that is not a command starts with `#`.
 */
import type { Service } from './k8s-objects.js';
import { ZONE_LABEL } from './k8s-objects.js';
import { TOPOLOGY_AWARE_HINTS_ANNOTATION, TOPOLOGY_MODE_ANNOTATION } from './routing-mode.js';
import type { TrafficDistribution } from './traffic-distribution.js';

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
}

/**
 * Decision: the snapshot has no workloads, so the commands name the Deployment after the Service (the
 * common case) and say so; the spread constraint selects the Service's own pod selector. A spread
 * constraint with maxSkew 1 only gives the per-zone counts when they are even, so for uneven counts the
 * snippet says which zone gets how many instead.
 */
export function replicasPatch(target: PatchTarget, input: ReplicasPatchInput): string {
  const { namespace, name } = target;
  const total = sum(input.after.values());
  const lines = [
    `# ready endpoints per zone: ${[...input.after.keys()]
      .sort()
      .map((zone) => `${zone} ${input.before.get(zone) ?? 0} -> ${input.after.get(zone) ?? 0}`)
      .join(', ')}`,
    `# the workload behind Service ${namespace}/${name}; the commands assume a Deployment named like the Service`,
  ];
  if (input.enableAuto) lines.push(topologyModePatch(target));
  if (input.minReplicas !== undefined) {
    lines.push(
      `kubectl patch hpa ${name} -n ${namespace} --type=merge -p '{"spec":{"minReplicas":${input.minReplicas}}}'`,
    );
  } else {
    lines.push(`kubectl scale deployment/${name} -n ${namespace} --replicas=${total}`);
  }
  const counts = [...input.after.values()];
  if (counts.length > 0 && Math.max(...counts) - Math.min(...counts) <= 1) {
    lines.push('# keep the pods spread over the zones (pod template spec):', ...spreadSnippet(target.service));
  } else {
    lines.push(
      '# the counts per zone are uneven, which a spread constraint does not give: pin them with one Deployment per zone',
      `# (nodeSelector ${ZONE_LABEL}: <zone>) or a nodeAffinity per zone`,
    );
  }
  return lines.join('\n');
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
