import { onlineManager } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';

/**
 * Whether the dashboard can reach the API, as its own requests and the live-event stream find out.
 * A request that gets no answer (network error) or a 5xx marks the API unreachable; any answer below
 * 500 marks it reachable again. The event stream reports on its own: a page can look fine while the
 * stream that would have told it about new snapshots is down, and then its figures stop being current.
 */
export interface ConnectionState {
  /** The browser says it has no network: queries wait (TanStack Query pauses them) until it is back. */
  offline: boolean;
  /** The last request got no answer or a 5xx. */
  apiDown: boolean;
  /** The live-event stream is not connected (it retries by itself). */
  streamDown: boolean;
  /** When the first of the failures in a row happened (ms since the epoch); null when all is well. */
  since: number | null;
  /** What the last failure said. */
  detail: string | null;
}

let state: ConnectionState = { offline: false, apiDown: false, streamDown: false, since: null, detail: null };
const listeners = new Set<() => void>();

function set(changes: Partial<ConnectionState>): void {
  const next = { ...state, ...changes };
  const failing = next.offline || next.apiDown || next.streamDown;
  next.since = failing ? (state.since ?? Date.now()) : null;
  if (!failing) next.detail = null;
  if (
    next.offline === state.offline &&
    next.apiDown === state.apiDown &&
    next.streamDown === state.streamDown &&
    next.detail === state.detail &&
    next.since === state.since
  ) {
    return;
  }
  state = next;
  for (const listener of listeners) listener();
}

export const apiAnswered = () => set({ apiDown: false });
export const apiFailed = (detail: string) => set({ apiDown: true, detail });
export const streamConnected = () => set({ streamDown: false });
export const streamFailed = (detail: string) => set({ streamDown: true, detail: state.detail ?? detail });

onlineManager.subscribe((online) => set({ offline: !online }));

/** Anything on screen may be out of date: no network, no API, or no live updates. */
export const isFailing = (connection: ConnectionState) =>
  connection.offline || connection.apiDown || connection.streamDown;

export function connectionState(): ConnectionState {
  return state;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useConnection(): ConnectionState {
  return useSyncExternalStore(subscribe, connectionState);
}
