import type {
  AutoRoutingPreview,
  FixReuse,
  PreviewReuse,
  Recommendation,
  ServiceObjects,
  ServiceReuse,
  ServiceReuseScope,
} from '@zw/core';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';

/**
 * Services whose fixes are kept, over all clusters: a 10,000-Service cluster's fixes take some tens of
 * MiB, so a thread keeps about that many and forgets the least recently analysed clusters first.
 */
const MAX_KEPT_SERVICES = 20_000;

interface Kept<T> {
  /** SHA-256 of the cluster's, the Service's objects' and the Service's other inputs. */
  inputs: string;
  value: T;
}

/** What one snapshot of a cluster computed, by Service key. */
interface KeptResults {
  fixes: Map<string, Kept<Recommendation[]>>;
  previews: Map<string, Kept<AutoRoutingPreview | null>>;
}

/** The stores one snapshot's analysis is given; `keep()` once it is done makes its results the cluster's. */
export interface ReuseSession {
  fixes: FixReuse;
  previews: PreviewReuse;
  keep(): void;
}

/**
 * The fixes and routing previews of each cluster's last analysed snapshot, kept by a pool thread for the
 * next snapshot of the same cluster: between two snapshots most Services change nothing these depend on,
 * and computing them (a run of the controller and the traffic model per candidate change, and one per
 * preview) costs more than the analysis. Reuse is keyed on a digest of every input (see `ServiceReuse` in
 * the core), so results are those a fresh computation gives, whatever order snapshots come in; a miss
 * only costs the computation. A Service's objects are digested once per snapshot, for both.
 */
export class ClusterFixReuse {
  private readonly clusters = new LRUCache<string, KeptResults>({
    maxSize: MAX_KEPT_SERVICES,
    sizeCalculation: (kept) => Math.max(1, kept.fixes.size, kept.previews.size),
  });

  session(clusterId: string): ReuseSession {
    const previous = this.clusters.get(clusterId);
    const current: KeptResults = { fixes: new Map(), previews: new Map() };
    const objects = new ObjectDigests();
    return {
      fixes: store(objects, previous?.fixes, current.fixes),
      previews: store(objects, previous?.previews, current.previews),
      keep: () => {
        // A cluster larger than the whole budget is not kept (LRUCache refuses it) and is computed afresh.
        this.clusters.set(clusterId, current);
      },
    };
  }
}

/**
 * SHA-256 of a Service's objects (its JSON and its slices'), once per snapshot: the same parsed objects
 * are handed to every computation that reads them. Slices are compared by identity, element by element.
 */
class ObjectDigests {
  private readonly known = new WeakMap<object, { slices: ServiceObjects['slices']; digest: string }>();

  of({ service, slices }: ServiceObjects): string {
    const known = this.known.get(service);
    if (known !== undefined && sameElements(known.slices, slices)) return known.digest;
    const digest = createHash('sha256')
      .update(JSON.stringify([service, slices]))
      .digest('base64');
    this.known.set(service, { slices, digest });
    return digest;
  }
}

function sameElements<T>(a: readonly T[], b: readonly T[]): boolean {
  return a === b || (a.length === b.length && a.every((element, index) => element === b[index]));
}

function store<T>(
  objects: ObjectDigests,
  previous: ReadonlyMap<string, Kept<T>> | undefined,
  current: Map<string, Kept<T>>,
): ServiceReuse<T> {
  return { begin: (clusterInputs) => scope(sha256(clusterInputs), objects, previous, current) };
}

function scope<T>(
  clusterDigest: string,
  objects: ObjectDigests,
  previous: ReadonlyMap<string, Kept<T>> | undefined,
  current: Map<string, Kept<T>>,
): ServiceReuseScope<T> {
  // A miss is remembered right after it was recalled: its digest is computed once.
  let last: { inputs: string; digest: string } | undefined;
  const digestOf = (serviceObjects: ServiceObjects, inputs: string) => {
    if (last?.inputs !== inputs) last = { inputs, digest: sha256(inputs, clusterDigest) };
    return objects.of(serviceObjects) + last.digest;
  };
  return {
    recall(key, serviceObjects, inputs) {
      const kept = previous?.get(key);
      if (kept === undefined || kept.inputs !== digestOf(serviceObjects, inputs)) return undefined;
      current.set(key, kept);
      return kept.value;
    },
    remember(key, serviceObjects, inputs, value) {
      current.set(key, { inputs: digestOf(serviceObjects, inputs), value });
    },
  };
}

function sha256(text: string, prefix = ''): string {
  return createHash('sha256').update(prefix).update(text).digest('base64');
}
