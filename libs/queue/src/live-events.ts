import { taggedKey } from './redis-target.js';

/**
 * The live-event stream api and worker share (one Redis stream per deployment). The workers append; every
 * API process reads it once (one blocking reader per process) and fans each event out to its SSE clients
 * of the event's organization and to its read-model cache.
 */
export const LIVE_EVENTS_KEPT = 10_000;

/** Events clients see on `GET /v1/events`. */
export type PublicLiveEventType = 'snapshot.recorded' | 'report.ready' | 'cluster.stale' | 'cluster.fresh';

/**
 * `read-model.changed`: a cluster's (or an organization's) read model changed without a snapshot being
 * recorded (history pruned, traffic measured, a cluster or Service changed through the API): every API
 * process drops what it cached about it. Never shown to clients.
 */
export type LiveEventType = PublicLiveEventType | 'read-model.changed';

export const PUBLIC_LIVE_EVENT_TYPES: ReadonlySet<string> = new Set<PublicLiveEventType>([
  'snapshot.recorded',
  'report.ready',
  'cluster.stale',
  'cluster.fresh',
]);

/** What an event is about: its cluster, or its organization (one of them at least). */
export interface LiveEventSubject {
  clusterId?: string;
  organizationId?: string;
}

/**
 * The stream's key. Its hash tag (`{events}`) puts it in the slot of the guard hashes that scripts
 * update together with it (a state change and its event, atomically), as a Redis Cluster requires.
 */
export function liveEventsStreamKey(queuePrefix: string): string {
  return taggedKey(queuePrefix, 'events', 'stream');
}

/** A guard hash (what is in an announced state) beside the stream, in its slot. */
export function liveEventsGuardKey(queuePrefix: string, guard: string): string {
  return taggedKey(queuePrefix, 'events', guard);
}

/** The keys before they carried a hash tag: `<QUEUE_PREFIX>:zw-events` and `<QUEUE_PREFIX>:<guard>`. */
export function legacyLiveEventKeys(queuePrefix: string, guards: readonly string[]): [string, string][] {
  return [
    [`${queuePrefix}:zw-events`, liveEventsStreamKey(queuePrefix)],
    ...guards.map((guard): [string, string] => [`${queuePrefix}:${guard}`, liveEventsGuardKey(queuePrefix, guard)]),
  ];
}
