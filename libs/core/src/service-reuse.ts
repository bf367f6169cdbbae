import type { EndpointSlice, Node, Service } from './k8s-objects.js';

/** The objects of the snapshot a Service's result is computed from: the Service and its slices, as parsed. */
export interface ServiceObjects {
  readonly service: Service;
  readonly slices: readonly EndpointSlice[];
}

/**
 * A store of per-Service results computed before, for a caller that analyses snapshot after snapshot of
 * one cluster (most Services change nothing between two). The computation hands it every input of a
 * result: once what all Services share (`begin`: the snapshot's nodes, and the rest as JSON text); then
 * per Service its objects and, as JSON text, the rest of its inputs. A result is reused only when all are
 * equal, so reuse never changes one. The nodes and objects are given as they are so that the store can
 * compare (or digest) them once for every computation of the same snapshot that reads them (analysis,
 * fixes and routing previews). A value handed to `remember` may be handed out again for later
 * snapshots: neither the store nor any reader may change it, nor the objects it was computed from.
 */
export interface ServiceReuse<T> {
  begin(nodes: readonly Node[], clusterInputs: string): ServiceReuseScope<T>;
}

export interface ServiceReuseScope<T> {
  recall(key: string, objects: ServiceObjects, inputs: string): T | undefined;
  remember(key: string, objects: ServiceObjects, inputs: string, value: T): void;
}

/** `compute()`'s result, or the one kept for equal inputs; `inputs()` is only called when there is a store. */
export function reusedOrComputed<T>(
  scope: ServiceReuseScope<T> | undefined,
  key: string,
  objects: ServiceObjects,
  inputs: () => string,
  compute: () => T,
): T {
  if (scope === undefined) return compute();
  const text = inputs();
  const kept = scope.recall(key, objects, text);
  if (kept !== undefined) return kept;
  const value = compute();
  scope.remember(key, objects, text, value);
  return value;
}
