import type { ReactNode } from 'react';
import { ApiError } from '../api';

/** A failed request, in place: the API's problem `detail`, never a blank page. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  const detail = error instanceof ApiError ? error.detail : error instanceof Error ? error.message : String(error);
  const status = error instanceof ApiError ? ` (${error.status})` : '';
  return (
    <div className="error" role="alert">
      <strong>
        {title ?? 'The API refused this'}
        {status}:
      </strong>{' '}
      <span className="detail">{detail}</span>
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
