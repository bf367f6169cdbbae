import { ProblemException } from '../problem.js';

/** Where a caller stands against one limit, as every limiter's answers report it. */
export interface RateLimitStanding {
  /** The policy's name in `RateLimit` / `RateLimit-Policy` (a token of letters, digits and -). */
  policy: string;
  /** The quota: requests per window, or concurrent requests when `concurrent` is set. */
  limit: number;
  /** The window of a request quota, in whole seconds; absent for a concurrency quota. */
  windowSeconds?: number;
  /** A quota of requests running at once (SSE streams, heavy reads) rather than requests per window. */
  concurrent?: boolean;
  /** Further policy parameters, vendor-prefixed (`zw-burst`: a token bucket's burst). */
  policyParameters?: Record<string, number>;
  remaining: number;
  /** Seconds until more quota is available (the window's end, the next token, a stream's end). */
  resetSeconds: number;
  /** Seconds to wait when refused; null when allowed. */
  retryAfterSeconds: number | null;
}

/**
 * The rate-limit fields of an answer: the legacy `X-RateLimit-Limit`, `-Remaining` and `-Reset`
 * (seconds), the IETF draft's `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10:
 * Structured Field lists, `"<policy>";q=<quota>;w=<window s>` and `"<policy>";r=<remaining>;t=<reset s>`,
 * `qu="concurrent-requests"` for a concurrency quota), and `Retry-After` when refused.
 */
export function rateLimitHeaders(standing: RateLimitStanding): Record<string, string> {
  const name = `"${standing.policy}"`;
  const quota = [
    `${name};q=${standing.limit}`,
    ...(standing.concurrent ? ['qu="concurrent-requests"'] : []),
    ...(standing.windowSeconds !== undefined ? [`w=${Math.max(1, Math.round(standing.windowSeconds))}`] : []),
    ...Object.entries(standing.policyParameters ?? {}).map(([key, value]) => `${key}=${value}`),
  ].join(';');
  const remaining = Math.max(0, Math.floor(standing.remaining));
  const reset = Math.max(0, Math.ceil(standing.resetSeconds));
  return {
    'X-RateLimit-Limit': String(standing.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(reset),
    'RateLimit-Policy': quota,
    RateLimit: `${name};r=${remaining};t=${reset}`,
    ...(standing.retryAfterSeconds === null
      ? {}
      : { 'Retry-After': String(Math.max(1, Math.ceil(standing.retryAfterSeconds))) }),
  };
}

/** The 429 problem of a refused request: its detail, the limit's figures, and every rate-limit field. */
export function tooManyRequests(
  standing: RateLimitStanding,
  detail: string,
  extensions: Record<string, unknown> = {},
): ProblemException {
  const headers = rateLimitHeaders({ ...standing, retryAfterSeconds: standing.retryAfterSeconds ?? 1 });
  const retryAfterSeconds = Number(headers['Retry-After']);
  return new ProblemException(
    429,
    `${detail}; retry in ${retryAfterSeconds} s`,
    { limit: standing.limit, ...extensions, retryAfterSeconds },
    headers,
  );
}
