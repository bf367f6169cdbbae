import { hostProblem, isForbiddenWebhookAddress } from '@zw/reports';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

export interface WebhookPostOptions {
  timeoutMs: number;
  /** Allow http and non-public addresses (development and tests only). */
  allowPrivate: boolean;
}

export interface WebhookPostResult {
  ok: boolean;
  /** HTTP status of the answer, null when there was none. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Answers are read (so the connection can be reused) but only this much is kept for the error message. */
const MAX_ANSWER_BYTES = 2048;

/**
 * Resolves like the system resolver, but refuses a host any of whose addresses is not public: the check
 * happens on the very addresses the socket then connects to, so DNS rebinding cannot slip past it.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const forbidden = allowPrivate ? undefined : addresses.find((entry) => isForbiddenWebhookAddress(entry.address));
      if (forbidden) {
        return callback(
          new Error(`${hostname} resolves to ${forbidden.address}, which is not a public address`),
          '',
          0,
        );
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * POSTs one webhook body. Never throws: the outcome says what happened. Redirects are not followed (a
 * 3xx is a failure: the receiver should be configured with its final URL).
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: WebhookPostOptions,
): Promise<WebhookPostResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): WebhookPostResult => ({
    ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done(null, 'not a URL'));
  }
  const secure = target.protocol === 'https:';
  if (!secure && !(options.allowPrivate && target.protocol === 'http:')) {
    return Promise.resolve(done(null, `${target.protocol} webhooks are not allowed (https only)`));
  }
  // Checked again at delivery: a URL saved before the policy tightened, or a name, is judged as dialled.
  const refused = options.allowPrivate ? null : hostProblem(target.hostname);
  if (refused) return Promise.resolve(done(null, `refused: the URL ${refused}`));
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(statusCode, error));
    };
    const request = (secure ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: guardedLookup(options.allowPrivate),
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('response', (response) => {
      const status = response.statusCode ?? null;
      let kept = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (kept.length < MAX_ANSWER_BYTES) kept += chunk.slice(0, MAX_ANSWER_BYTES - kept.length);
      });
      response.on('end', () => {
        const failed = status === null || status < 200 || status >= 300;
        finish(status, failed ? `receiver answered ${status}${kept ? `: ${kept.trim().slice(0, 200)}` : ''}` : null);
      });
      response.on('error', (error) => finish(status, error.message));
    });
    request.on('error', (error) => finish(null, error.message));
    request.end(body);
  });
}

export interface GuardedFetchOptions {
  /** Allow http and non-public addresses (development and tests only). */
  allowPrivate: boolean;
  /** Longest a request may take, answer included. */
  timeoutMs: number;
  /** Largest answer read (identity providers' documents and key sets are small). */
  maxAnswerBytes?: number;
}

/**
 * A `fetch` for tenant-chosen URLs the API itself calls (an identity provider's discovery document, token
 * endpoint and key set): the same SSRF policy as webhooks (https to public addresses only, checked on
 * the very addresses dialled), no redirects followed, a timeout and a bounded answer. It answers the
 * runtime's own `Response`, as OAuth libraries expect.
 */
export function guardedFetch(options: GuardedFetchOptions) {
  const limit = options.maxAnswerBytes ?? 1024 * 1024;
  return async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const target = new URL(url);
    if (target.protocol !== 'https:' && !(options.allowPrivate && target.protocol === 'http:')) {
      throw new TypeError(`${target.protocol} is not allowed for ${target.host} (https only)`);
    }
    const refused = options.allowPrivate ? null : hostProblem(target.hostname);
    if (refused) throw new TypeError(`refused: ${target.host} ${refused}`);
    const body = init.body === undefined || init.body === null ? undefined : await new Response(init.body).text();
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    return new Promise<Response>((resolve, reject) => {
      const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
        method: init.method ?? 'GET',
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(options.allowPrivate),
        timeout: options.timeoutMs,
      });
      const timer = setTimeout(
        () => request.destroy(new Error(`no answer from ${target.host} within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      init.signal?.addEventListener('abort', () => request.destroy(new Error('aborted')));
      request.on('response', (answer) => {
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) request.destroy(new Error(`the answer of ${target.host} is larger than ${limit} bytes`));
          else chunks.push(chunk);
        });
        answer.on('end', () => {
          clearTimeout(timer);
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(answer.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
              responseHeaders.append(name, one);
            }
          }
          const status = answer.statusCode ?? 502;
          const empty = status === 204 || status === 304 || (status >= 100 && status < 200);
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
        });
        answer.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      request.end(body);
    });
  };
}
