import { useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { isFailing, useConnection } from '../connection';
import { ago, clock } from '../format';

/** The current time, ticking every `everyMs`: ages on screen stay true while nothing else changes. */
export function useNow(everyMs = 10_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * When the figures of an answer were fetched, and whether they may no longer be current: the API or the
 * event stream is down, or the last refresh of this answer failed. The figures stay on screen, marked
 * stale with their age, never replaced by the error.
 */
export function Freshness({ query, label = 'as of' }: { query: UseQueryResult<unknown>; label?: string }) {
  const connection = useConnection();
  const now = useNow();
  if (!query.data) return null;
  const fetched = query.dataUpdatedAt;
  const stale = query.isRefetchError || isFailing(connection);
  return (
    <span className={stale ? 'stale' : 'muted small'} data-testid="freshness" data-stale={stale}>
      {stale ? 'stale: ' : ''}
      {label} {clock(fetched)} ({ago(now - fetched)}){query.isFetching ? ' · refreshing…' : ''}
      {query.isRefetchError && (
        <>
          {' '}
          · the refresh failed: {query.error instanceof Error ? query.error.message : String(query.error)}{' '}
          <button type="button" className="link" onClick={() => void query.refetch()}>
            Retry
          </button>
        </>
      )}
    </span>
  );
}

/**
 * Says when the dashboard has lost the API or its live updates, since when, and offers to retry now;
 * the pages keep their last figures meanwhile, marked stale.
 */
export function ConnectionBanner() {
  const connection = useConnection();
  const client = useQueryClient();
  const now = useNow(1000);
  if (!isFailing(connection)) return null;
  const since = connection.since ?? now;
  const what = connection.offline
    ? 'This browser is offline'
    : connection.apiDown
      ? 'The API is not answering'
      : 'Live updates are off';
  return (
    <div className="banner" role="alert" data-testid="connection-banner">
      <strong>{what}</strong> since {clock(since)} ({ago(now - since)}): reconnecting… Figures on screen are the last
      ones received and may be out of date. {connection.detail && <span className="small">({connection.detail})</span>}{' '}
      <button type="button" onClick={() => void client.refetchQueries({ type: 'active' })}>
        Retry now
      </button>
    </div>
  );
}
