/**
 * "This cluster's read model changed": the live events after which every API process drops what it
 * cached about a cluster (or organization). The worker appends `snapshot.recorded` after it records a
 * snapshot and `read-model.changed` after it prunes history or measures traffic
 * (apps/worker/src/read-model-events.ts); the API appends `read-model.changed` after it changes a cluster
 * or a Service (the cache test checks they agree, end to end).
 */
export interface ReadModelChange {
  clusterId?: string;
  organizationId?: string;
}

const INVALIDATING = new Set(['snapshot.recorded', 'read-model.changed']);

export function invalidatesReadModel(type: string): boolean {
  return INVALIDATING.has(type);
}
