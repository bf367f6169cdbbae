import type { QueryClient } from '@tanstack/react-query';
import { authHeaders, isSignedIn } from './auth';
import { connectionState, streamConnected, streamFailed } from './connection';

/**
 * Every answer derived from a cluster's newest snapshot (or its history), by the first part of its query
 * key: a recorded snapshot makes each of them stale, so no panel keeps showing the previous snapshot's
 * figures (the cluster page's top fixes included). A query key added for such an answer belongs here.
 */
const RECONNECT_MS = 3000;

/** The API's time (ms) of the newest `snapshot.recorded` event seen: a stream id starts with it. */
let newestSnapshotEvent = 0;

/**
 * Whether an answer generated at `generatedAt` (the API's clock) predates the newest recorded snapshot:
 * the fleet summary is cached for a few seconds on purpose, so the first refresh after an event may
 * still be the older answer, and the fleet query asks again until it is not.
 */
export function predatesNewestSnapshot(generatedAt: string): boolean {
  return Date.parse(generatedAt) < newestSnapshotEvent;
}

export const SNAPSHOT_DERIVED = [
  'fleet',
  'cluster',
  'services',
  'zones',
  'cidrs',
  'trends',
  'recommendations',
  'service',
  'savings',
] as const;

/**
 * Keeps open pages fresh without polling: reads `GET /v1/events` (Server-Sent Events; fetch rather than
 * EventSource, which cannot send the Authorization header) and marks the affected answers stale. It
 * reconnects with Last-Event-ID, so nothing recorded meanwhile is missed, and says when it is down (the
 * shell's banner). Returns a function that stops it.
 */

export function followLiveEvents(queryClient: QueryClient): () => void {
  const controller = new AbortController();
  let lastEventId: string | null = null;
  let pending: ReturnType<typeof setTimeout> | null = null;

  // A busy fleet records several snapshots a second: refresh at most once every two seconds.
  const snapshotRecorded = () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = null;
      refreshAll();
    }, 2000);
  };

  const refreshAll = () => {
    for (const key of SNAPSHOT_DERIVED) void queryClient.invalidateQueries({ queryKey: [key] });
  };

  const handle = (block: string) => {
    const field = (name: string) => block.match(new RegExp(`^${name}: (.*)$`, 'm'))?.[1];
    const id = field('id');
    if (id) lastEventId = id;
    const event = field('event');
    if (event === 'snapshot.recorded') {
      newestSnapshotEvent = Math.max(newestSnapshotEvent, Number(id?.split('-')[0]) || 0);
      snapshotRecorded();
    }
    if (event === 'cluster.stale' || event === 'cluster.fresh') {
      for (const key of ['fleet', 'cluster']) void queryClient.invalidateQueries({ queryKey: [key] });
    }
    if (event === 'report.ready') void queryClient.invalidateQueries({ queryKey: ['reports'] });
  };

  const connect = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        if (!isSignedIn()) return;
        const response = await fetch('/v1/events', {
          headers: {
            ...authHeaders('GET'),
            accept: 'text/event-stream',
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          signal: controller.signal,
        });
        // A 401 or 403 is the next query's to report (it signs out); anything else is retried.
        if (response.status === 401 || response.status === 403) return;
        if (!response.ok || !response.body) throw new Error(`the event stream answered ${response.status}`);
        // Back after a failure: whatever happened meanwhile may have been missed, so every page asks again.
        if (connectionState().streamDown) refreshAll();
        streamConnected();
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            handle(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
        throw new Error('the event stream closed');
      } catch (error) {
        if (controller.signal.aborted) return;
        streamFailed(error instanceof Error ? error.message : String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  };
  void connect();
  return () => {
    controller.abort();
    if (pending) clearTimeout(pending);
  };
}
