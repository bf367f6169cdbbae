import { expect } from 'vitest';

export interface LiveEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** An open `GET /v1/events` connection, parsed as EventSource would. */
export async function openEvents(url: string, key: string, lastEventId?: string) {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/events`, {
    headers: { authorization: `Bearer ${key}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const received: LiveEvent[] = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const field = (name: string) => block.match(new RegExp(`^${name}: (.*)$`, 'm'))?.[1];
          if (field('event'))
            received.push({ id: field('id')!, event: field('event')!, data: JSON.parse(field('data')!) });
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    received,
    async waitFor(match: (event: LiveEvent) => boolean, timeoutMs = 60_000): Promise<LiveEvent> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no such event; received ${JSON.stringify(received)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      controller.abort();
      await pump;
    },
  };
}
