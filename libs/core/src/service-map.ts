/**
 * The snapshot's Services by Pod and by owner: what a Pod-mapped traffic preset (beyla, opencost)
 * needs to credit a Pod's or a workload's bytes to the Services it backs.
 */
import type { Snapshot } from './snapshot-model.js';
import { WorkloadIndex } from './workloads.js';

/** Services (`namespace/name`) per Pod and per workload owner name, from the newest snapshot. */
export interface ServiceMap {
  /** By `namespace/pod`, from the EndpointSlices' `targetRef`s (a Pod may back several Services). */
  pods: ReadonlyMap<string, readonly string[]>;
  /**
   * By `namespace/owner`: the workload behind the endpoints (Deployment, StatefulSet…, as Beyla names
   * the owner of a Pod), and a Pod's own name (Beyla's owner of a Pod without one).
   */
  owners: ReadonlyMap<string, readonly string[]>;
}

/**
 * The Services each Pod backs (EndpointSlice `targetRef`s and `kubernetes.io/service-name`) and each
 * workload owner: through the snapshot's Pods and ReplicaSets when it has them (workloads.ts); without
 * them, through the names the controllers give Pods (`<deployment>-<hash>-<suffix>`,
 * `<statefulset>-<ordinal>`, `<daemonset>-<suffix>`), so an older agent's snapshots still map.
 */
export function serviceMapOf(snapshot: Pick<Snapshot, 'endpointSlices' | 'pods' | 'replicaSets'>): ServiceMap {
  const index = new WorkloadIndex(snapshot);
  const pods = new Map<string, Set<string>>();
  const owners = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, key: string, service: string) => {
    const set = map.get(key) ?? new Set<string>();
    set.add(service);
    map.set(key, set);
  };
  for (const slice of snapshot.endpointSlices) {
    const service = slice.metadata.labels?.['kubernetes.io/service-name'];
    const namespace = slice.metadata.namespace ?? 'default';
    if (!service) continue;
    for (const endpoint of slice.endpoints) {
      const ref = endpoint.targetRef as { kind?: unknown; name?: unknown; namespace?: unknown } | undefined;
      if (ref?.kind !== 'Pod' || typeof ref.name !== 'string') continue;
      const podNamespace = typeof ref.namespace === 'string' && ref.namespace !== '' ? ref.namespace : namespace;
      const key = `${namespace}/${service}`;
      add(pods, `${podNamespace}/${ref.name}`, key);
      add(owners, `${podNamespace}/${ref.name}`, key);
      const found = index.ofPod(podNamespace, ref.name);
      if (found.workload !== null) add(owners, `${podNamespace}/${found.workload.name}`, key);
      else if (!index.hasPods)
        for (const prefix of namePrefixes(ref.name)) add(owners, `${podNamespace}/${prefix}`, key);
    }
  }
  const sorted = (map: Map<string, Set<string>>) => new Map([...map].map(([key, set]) => [key, [...set].sort()]));
  return { pods: sorted(pods), owners: sorted(owners) };
}

/** A Pod name without its last one and two dash-separated parts (its StatefulSet, DaemonSet or Deployment name). */
function namePrefixes(pod: string): string[] {
  const parts = pod.split('-');
  return [parts.slice(0, -1).join('-'), parts.slice(0, -2).join('-')].filter((prefix) => prefix !== '');
}

/** The Services by `namespace/pod` alone (see {@link serviceMapOf}). */
export function podServicesOf(snapshot: Pick<Snapshot, 'endpointSlices'>): Map<string, readonly string[]> {
  return new Map(serviceMapOf({ ...snapshot, pods: [], replicaSets: [] }).pods);
}
