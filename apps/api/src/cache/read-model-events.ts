/**
 * "This cluster's read model changed": published on Redis by the worker after it records a snapshot (or
 * prunes history) and by the API after it changes a cluster or a Service, so every API process drops
 * what it cached about that cluster. apps/worker/src/read-model-events.ts publishes the same message on
 * the same channel (the cache test checks the two agree, end to end).
 */
export function readModelChannel(queuePrefix: string): string {
  return `${queuePrefix}:zw-read-model`;
}

export interface ReadModelChange {
  clusterId?: string;
  organizationId?: string;
}
