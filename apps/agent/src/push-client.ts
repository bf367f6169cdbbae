import { readFile } from 'node:fs/promises';
import { type Backoff, sleep } from './backoff.js';

/** The ingest route of the zonewise API (apps/api/src/ingest/ingest.controller.ts). */
export const INGEST_PATH = '/v1/ingest/snapshots';
/** Names the cluster the agent believes it pushes for (apps/api/src/ingest/agent-auth.guard.ts). */
export const CLUSTER_HEADER = 'x-zonewise-cluster';

export type PushOutcome =
  /** Stored (or already stored: `duplicate`); the snapshot is safe. */
  | { kind: 'accepted'; status: number; snapshotId: string; duplicate: boolean }
  /** Not stored, but it may be later: keep it and try again. */
  | { kind: 'retry'; status: number | null; reason: string; retryAfterMs: number | null }
  /** Never storable as it is (invalid, too large, clashing captured-at): retrying cannot help. */
  | { kind: 'rejected'; status: number; reason: string };

export interface PushClientOptions {
  apiUrl: string;
  /** The agent token, or a file holding it (re-read on each push, so a rotated Secret takes effect). */
  token: { value: string } | { file: string };
  cluster?: string | null;
  timeoutMs: number;
  userAgent: string;
}

/**
 * One HTTP request per push: `POST /v1/ingest/snapshots` with a gzip body and the agent token. Turns
 * every answer (and every network failure) into a PushOutcome; it never throws for I/O problems.
 */
export class PushClient {
  private readonly url: string;

  constructor(private readonly options: PushClientOptions) {
    this.url = `${options.apiUrl.replace(/\/+$/, '')}${INGEST_PATH}`;
  }

  async push(gzipBody: Buffer, signal?: AbortSignal): Promise<PushOutcome> {
    let token: string;
    try {
      token = await this.token();
    } catch (error) {
      return {
        kind: 'retry',
        status: null,
        reason: `cannot read the agent token: ${(error as Error).message}`,
        retryAfterMs: null,
      };
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'user-agent': this.options.userAgent,
    };
    if (this.options.cluster) headers[CLUSTER_HEADER] = this.options.cluster;
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers,
        body: gzipBody,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      text = await response.text();
    } catch (error) {
      const reason = timeout.aborted ? `no answer within ${this.options.timeoutMs} ms` : describeNetworkError(error);
      return { kind: 'retry', status: null, reason, retryAfterMs: null };
    }
    return classify(response.status, text, response.headers.get('retry-after'));
  }

  private async token(): Promise<string> {
    if ('value' in this.options.token) return this.options.token.value;
    const token = (await readFile(this.options.token.file, 'utf8')).trim();
    if (token === '') throw new Error(`${this.options.token.file} is empty`);
    return token;
  }
}

/**
 * Decision: 401 and 403 are retried, not dropped. They mean the token is wrong or was rotated, which an
 * operator fixes by updating the Secret (re-read from --token-file on the next push); the snapshots
 * taken meanwhile are still worth delivering then. 408, 425, 429 and 5xx are transient by definition.
 * Every other 4xx (400 invalid, 409 captured-at clash, 413 too large, 415) cannot succeed by retrying.
 */
export function classify(status: number, body: string, retryAfter: string | null): PushOutcome {
  if (status >= 200 && status < 300) {
    let parsed: { snapshotId?: unknown; duplicate?: unknown } = {};
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      // A 2xx without the usual body still means stored.
    }
    return {
      kind: 'accepted',
      status,
      snapshotId: String(parsed.snapshotId ?? ''),
      duplicate: parsed.duplicate === true,
    };
  }
  const reason = `HTTP ${status}: ${problemDetail(body)}`;
  if (status === 401 || status === 403 || status === 408 || status === 425 || status === 429 || status >= 500) {
    return { kind: 'retry', status, reason, retryAfterMs: parseRetryAfter(retryAfter) };
  }
  return { kind: 'rejected', status, reason };
}

function problemDetail(body: string): string {
  try {
    const problem = JSON.parse(body) as { detail?: unknown; title?: unknown };
    if (typeof problem.detail === 'string') return problem.detail;
    if (typeof problem.title === 'string') return problem.title;
  } catch {
    // Not a problem+json body.
  }
  return body.slice(0, 200) || '(empty body)';
}

/** `Retry-After` as seconds or an HTTP date; null when absent or unreadable. Capped at one hour. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(0, Math.round(ms)), 3_600_000);
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

export interface DeliverOptions {
  backoff: Backoff;
  signal?: AbortSignal;
  /** Called after every attempt that did not deliver, before waiting. */
  onRetry?: (outcome: Extract<PushOutcome, { kind: 'retry' }>, delayMs: number) => void;
}

/**
 * Pushes until the snapshot is accepted or rejected, waiting with backoff (or as long as Retry-After
 * asks) between attempts. Returns the last outcome; a retry outcome only when the signal aborted.
 */
export async function deliver(client: PushClient, gzipBody: Buffer, options: DeliverOptions): Promise<PushOutcome> {
  for (;;) {
    const outcome = await client.push(gzipBody, options.signal);
    if (outcome.kind !== 'retry') {
      options.backoff.reset();
      return outcome;
    }
    if (options.signal?.aborted) return outcome;
    const delayMs = Math.max(options.backoff.next(), outcome.retryAfterMs ?? 0);
    options.onRetry?.(outcome, delayMs);
    await sleep(delayMs, options.signal);
    if (options.signal?.aborted) return outcome;
  }
}
