import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api';

/**
 * A failed request, in place: the API's problem `detail`, never a blank page; with `retry`, a button that
 * asks again (a request that got no answer, or a 5xx, may well succeed the next time).
 */
export function ErrorBox({ error, title, retry }: { error: unknown; title?: string; retry?: () => unknown }) {
  const detail = error instanceof ApiError ? error.detail : error instanceof Error ? error.message : String(error);
  const status = error instanceof ApiError ? ` (${error.status})` : '';
  return (
    <div className="error" role="alert">
      <strong>
        {title ?? 'The API refused this'}
        {status}:
      </strong>{' '}
      <span className="detail">{detail}</span>
      {retry && (
        <>
          {' '}
          <button type="button" onClick={() => void retry()}>
            Retry
          </button>
        </>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** A badge for figures that rest on defaults, with the inputs shown on hover and on keyboard focus. */
export function EstimateBadge({ inputs }: { inputs: string }) {
  return (
    <span className="badge" tabIndex={0} title={inputs} aria-label={`estimate: ${inputs}`}>
      estimate
    </span>
  );
}

/**
 * What a query has, in order: its data whenever there is some (a failed refresh keeps the figures on
 * screen; the Freshness line marks them stale), else its error with a Retry button, else a loading line.
 */
export function Answer<T>(props: {
  query: UseQueryResult<T>;
  what: string;
  title?: string;
  children: (data: T) => ReactNode;
}) {
  const { query } = props;
  if (query.data !== undefined) return <>{props.children(query.data)}</>;
  if (query.isError) return <ErrorBox error={query.error} title={props.title} retry={() => query.refetch()} />;
  return <Loading what={props.what} />;
}
