import type {
  AutoRoutingPreview,
  FixReuse,
  Node,
  PreviewReuse,
  Recommendation,
  ServiceAnalysis,
  ServiceAnalysisReuse,
  ServiceObjects,
  ServiceReuseScope,
} from '@zw/core';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';

/**
 * What a thread keeps, over all clusters, counted in kept objects: each Service, each endpoint of its
 * slices and each node. A kept analysis holds its Service's objects, so memory follows the endpoints,
 * not the Services: the bench's 10,000-Service cluster (150,000 endpoints, 5,000 nodes, 165,000 here)
 * keeps about 150 MiB. A thread forgets the least recently analysed clusters first.
 *
 * Decision: counted by endpoints, not by Services as before the objects were kept: 20,000 Services of a
 * hundred endpoints each would have held some 2 GiB, the worker's whole memory limit.
 */
export const MAX_KEPT_OBJECTS = 200_000;

interface Kept<T> {
  /** The Service's objects the value was computed from (a later snapshot's equal ones are not kept). */
  objects: ServiceObjects;
  /** SHA-256 of the cluster's inputs (its nodes by their `NodesSeen` generation) and the Service's other inputs. */
  inputs: string;
  value: T;
}

/** What one snapshot of a cluster computed, by Service key, and its nodes. */
interface KeptResults {
  analyses: Map<string, Kept<ServiceAnalysis>>;
  fixes: Map<string, Kept<Recommendation[]>>;
  previews: Map<string, Kept<AutoRoutingPreview | null>>;
  nodes: NodesSeen | null;
}

/** A cluster's kept results and what they hold, in kept objects (see MAX_KEPT_OBJECTS). */
interface KeptCluster {
  results: KeptResults;
  objects: number;
}

/** A snapshot's nodes, and a name shared by every snapshot of the cluster since they last changed. */
interface NodesSeen {
  nodes: readonly Node[];
  generation: string;
}

/** The stores one snapshot's analysis is given; `keep()` once it is done makes its results the cluster's. */
export interface ReuseSession {
  analyses: ServiceAnalysisReuse;
  fixes: FixReuse;
  previews: PreviewReuse;
  keep(): void;
}

/**
 * The Services' analyses, fixes and routing previews of each cluster's last analysed snapshot, kept by a
 * pool thread for the next snapshot of the same cluster: between two snapshots most Services change
 * nothing these depend on, and computing them (a run of the controller and the traffic model per Service,
 * per candidate change, and per preview) is most of a snapshot's analysis. A result is reused when every
 * input equals the one it was computed from (see `ServiceReuse` in the core), so results are those a
 * fresh computation gives, whatever order snapshots come in; a miss only costs the computation.
 *
 * Decision: the objects (nodes, each Service's) are compared with the kept ones value by value, once per
 * snapshot for all three, not digested: printing and hashing every Service's objects cost more than
 * analysing it, and a comparison stops at the first difference.
 */
export class ClusterFixReuse {
  private readonly clusters: LRUCache<string, KeptCluster>;

  constructor(maxKeptObjects = MAX_KEPT_OBJECTS) {
    this.clusters = new LRUCache<string, KeptCluster>({
      maxSize: maxKeptObjects,
      sizeCalculation: (kept) => Math.max(1, kept.objects),
    });
  }
  private generations = 0;

  session(clusterId: string): ReuseSession {
    const previous = this.clusters.get(clusterId)?.results;
    const current: KeptResults = { analyses: new Map(), fixes: new Map(), previews: new Map(), nodes: null };
    const compared = new ObjectComparisons();
    const generationOf = (nodes: readonly Node[]): string => {
      if (current.nodes?.nodes !== nodes) current.nodes = this.nodesSeen(nodes, [current.nodes, previous?.nodes]);
      return current.nodes.generation;
    };
    const store = <T>(kept: ReadonlyMap<string, Kept<T>> | undefined, results: Map<string, Kept<T>>) => ({
      begin: (nodes: readonly Node[], clusterInputs: string) =>
        scope(sha256(clusterInputs, generationOf(nodes)), compared, kept, results),
    });
    return {
      analyses: store(previous?.analyses, current.analyses),
      fixes: store(previous?.fixes, current.fixes),
      previews: store(previous?.previews, current.previews),
      keep: () => {
        // A cluster larger than the whole budget is not kept (LRUCache refuses it) and is computed afresh.
        this.clusters.set(clusterId, { results: current, objects: keptObjects(current) });
      },
    };
  }

  private nodesSeen(nodes: readonly Node[], seen: (NodesSeen | null | undefined)[]): NodesSeen {
    const same = seen.find((entry) => entry != null && sameJson(entry.nodes, nodes));
    return { nodes, generation: same?.generation ?? `nodes ${++this.generations}` };
  }
}

/** The Services, their slices' endpoints and the nodes that kept results hold, each Service once. */
function keptObjects(results: KeptResults): number {
  const slicesByService = new Map<string, ServiceObjects['slices']>();
  for (const store of [results.analyses, results.fixes, results.previews]) {
    for (const [key, { objects }] of store) slicesByService.set(key, objects.slices);
  }
  let objects = results.nodes?.nodes.length ?? 0;
  for (const slices of slicesByService.values()) {
    objects += 1;
    for (const slice of slices) objects += slice.endpoints.length;
  }
  return objects;
}

/**
 * Whether a Service's objects equal kept ones, compared once per snapshot: the same parsed objects are
 * handed to every computation that reads them. Slices are matched by identity, element by element.
 */
class ObjectComparisons {
  private readonly known = new WeakMap<
    object,
    { kept: ServiceObjects; slices: ServiceObjects['slices']; same: boolean }
  >();

  same(kept: ServiceObjects, objects: ServiceObjects): boolean {
    const known = this.known.get(objects.service);
    if (
      known !== undefined &&
      known.kept.service === kept.service &&
      sameElements(known.kept.slices, kept.slices) &&
      sameElements(known.slices, objects.slices)
    )
      return known.same;
    const same = sameJson(kept.service, objects.service) && sameJson(kept.slices, objects.slices);
    this.known.set(objects.service, { kept, slices: objects.slices, same });
    return same;
  }
}

function sameElements<T>(a: readonly T[], b: readonly T[]): boolean {
  return a === b || (a.length === b.length && a.every((element, index) => element === b[index]));
}

/**
 * Whether two parsed JSON values are equal, their objects' keys in the same order: then they print the
 * same JSON, and a computation reading them cannot tell them apart. Anything but plain objects, arrays
 * and primitives counts as different. `for...in` and one key list: a list per object cost a fifth more.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && sameArrays(a, b);
  return !Array.isArray(b) && isPlain(a) && isPlain(b) && sameObjects(a, b);
}

function sameArrays(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
  return true;
}

function sameObjects(a: object, b: object): boolean {
  const keys = Object.keys(b);
  let index = 0;
  for (const key in a) {
    if (key !== keys[index++] || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
      return false;
  }
  return index === keys.length;
}

/** A plain object: `for...in` lists its own keys (a member added to Object.prototype only makes two differ). */
function isPlain(value: object): boolean {
  return Object.getPrototypeOf(value) === Object.prototype;
}

function scope<T>(
  clusterDigest: string,
  compared: ObjectComparisons,
  previous: ReadonlyMap<string, Kept<T>> | undefined,
  current: Map<string, Kept<T>>,
): ServiceReuseScope<T> {
  // A miss is remembered right after it was recalled: its digest is computed once.
  let last: { inputs: string; digest: string } | undefined;
  const digestOf = (inputs: string) => {
    if (last?.inputs !== inputs) last = { inputs, digest: sha256(inputs, clusterDigest) };
    return last.digest;
  };
  return {
    recall(key, objects, inputs) {
      const kept = previous?.get(key);
      if (kept === undefined || kept.inputs !== digestOf(inputs) || !compared.same(kept.objects, objects))
        return undefined;
      // Kept with the objects it was computed from: a kept analysis holds its slices, so keeping this
      // snapshot's equal ones instead would hold two copies.
      current.set(key, kept);
      return kept.value;
    },
    remember(key, objects, inputs, value) {
      current.set(key, { objects, inputs: digestOf(inputs), value });
    },
  };
}

function sha256(text: string, prefix = ''): string {
  return createHash('sha256').update(prefix).update(text).digest('base64');
}
