import type { QueryClient } from '@tanstack/react-query';
import { authorization } from './auth';

/**
 * Keeps open pages fresh without polling: reads `GET /v1/events` (Server-Sent Events; fetch rather than
 * EventSource, which cannot send the Authorization header) and marks the affected answers stale. It
 * reconnects with Last-Event-ID, so nothing recorded meanwhile is missed. Returns a function that stops it.
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
      for (const key of ['fleet', 'services', 'zones', 'cidrs', 'trends', 'service', 'savings']) {
        void queryClient.invalidateQueries({ queryKey: [key] });
      }
    }, 2000);
  };

  const handle = (block: string) => {
    const field = (name: string) => block.match(new RegExp(`^${name}: (.*)$`, 'm'))?.[1];
    const id = field('id');
    if (id) lastEventId = id;
    const event = field('event');
    if (event === 'snapshot.recorded') snapshotRecorded();
    if (event === 'cluster.stale' || event === 'cluster.fresh') {
      for (const key of ['fleet', 'cluster']) void queryClient.invalidateQueries({ queryKey: [key] });
    }
    if (event === 'report.ready') void queryClient.invalidateQueries({ queryKey: ['reports'] });
  };

  const connect = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        const auth = authorization();
        if (!auth) return;
        const response = await fetch('/v1/events', {
          headers: {
            authorization: auth,
            accept: 'text/event-stream',
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          signal: controller.signal,
        });
        if (!response.ok || !response.body) return; // a 401 is the next query's to report
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
      } catch {
        if (controller.signal.aborted) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  };
  void connect();
  return () => {
    controller.abort();
    if (pending) clearTimeout(pending);
  };
}
