import type { PromSample } from '@zw/core';
import { prometheusQueryEndpoint, prometheusUrlProblem } from '@zw/queue';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup } from '@zw/notify';

/** Why a measurement failed, as the cluster's `trafficSource.status` says it. */
export type QueryFailure = 'refused-address' | 'unreachable' | 'timeout' | 'bad-response' | 'bad-credentials';

export class PrometheusQueryError extends Error {
  override name = 'PrometheusQueryError';
  constructor(
    readonly status: QueryFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface PrometheusQueryOptions {
  /** Value of the Authorization header, if the Prometheus wants one. */
  authHeader: string | null;
  timeoutMs: number;
  allowPrivate: boolean;
  maxResponseBytes: number;
  /** PEM certificates an https Prometheus must chain to (a private CA); null: Node's public roots. */
  caBundle?: string | null;
}

/**
 * One instant query (`POST /api/v1/query`, form-encoded, as Prometheus, Thanos and Mimir accept it).
 * Every connection goes through the guarded resolver, so the address checked is the address dialled.
 */
export async function queryPrometheus(
  base: string,
  promql: string,
  options: PrometheusQueryOptions,
): Promise<PromSample[]> {
  const problem = prometheusUrlProblem(base, options.allowPrivate);
  if (problem) throw new PrometheusQueryError('refused-address', `url ${problem}`);
  const url = prometheusQueryEndpoint(base);
  const timeoutSeconds = Math.max(1, Math.floor(options.timeoutMs / 1000));
  const body = new URLSearchParams({ query: promql, timeout: `${timeoutSeconds}s` }).toString();
  const { statusCode, text } = await post(url, body, options);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PrometheusQueryError('bad-response', `HTTP ${statusCode}: the answer is not JSON: ${excerpt(text)}`);
  }
  return vectorOf(parsed, statusCode);
}

function post(url: URL, body: string, options: PrometheusQueryOptions): Promise<{ statusCode: number; text: string }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        lookup: guardedLookup(options.allowPrivate),
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.caBundle ? { ca: options.caBundle } : {}),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          accept: 'application/json',
          ...(options.authHeader ? { authorization: options.authHeader } : {}),
        },
      },
      (response) => readAnswer(response, options.maxResponseBytes).then(resolve, reject),
    );
    request.on('error', (error) => reject(failureOf(error, options)));
    request.end(body);
  });
}

async function readAnswer(response: IncomingMessage, maxBytes: number): Promise<{ statusCode: number; text: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      response.destroy();
      throw new PrometheusQueryError('bad-response', `the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return { statusCode: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') };
}

function failureOf(error: Error, options: PrometheusQueryOptions): PrometheusQueryError {
  if (error instanceof PrometheusQueryError) return error;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') {
    return new PrometheusQueryError('timeout', `no answer within ${options.timeoutMs} ms`);
  }
  if (/not a public address/.test(error.message)) return new PrometheusQueryError('refused-address', error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && TLS_ERRORS.has(code)) {
    return new PrometheusQueryError(
      'unreachable',
      `${code}: the server's certificate is not trusted${options.caBundle ? ' by the CA bundle set on the source' : ': set the CA bundle of a private CA on the source'} (${error.message})`,
    );
  }
  return new PrometheusQueryError('unreachable', code ? `${code}: ${error.message}` : error.message);
}

/** The instant vector of a Prometheus answer, or the error Prometheus gave. */
function vectorOf(answer: unknown, statusCode: number): PromSample[] {
  const envelope = answer as { status?: unknown; error?: unknown; errorType?: unknown; data?: unknown };
  if (envelope?.status !== 'success') {
    const why = typeof envelope?.error === 'string' ? envelope.error : 'no "status": "success"';
    throw new PrometheusQueryError('bad-response', `HTTP ${statusCode}: Prometheus answered: ${excerpt(why)}`);
  }
  const data = envelope.data as { resultType?: unknown; result?: unknown } | undefined;
  if (data?.resultType !== 'vector' || !Array.isArray(data.result)) {
    throw new PrometheusQueryError(
      'bad-response',
      `expected an instant vector, got resultType ${JSON.stringify(data?.resultType ?? null)}`,
    );
  }
  return data.result.filter(isSample);
}

function isSample(entry: unknown): entry is PromSample {
  const sample = entry as { metric?: unknown; value?: unknown };
  return (
    typeof sample?.metric === 'object' &&
    sample.metric !== null &&
    Array.isArray(sample.value) &&
    sample.value.length === 2 &&
    typeof sample.value[1] === 'string'
  );
}

/** Node's codes for a certificate chain it cannot verify. */
const TLS_ERRORS = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || '(empty)';
}
