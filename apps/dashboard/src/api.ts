import { authHeaders, signOut } from './auth';
import { apiAnswered, apiFailed } from './connection';

/** An API answer that is not 2xx, with the problem+json `detail` to show where the request was made. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly problem: Record<string, unknown> | null,
  ) {
    super(detail);
  }
}

async function problemOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  let problem: Record<string, unknown> | null = null;
  try {
    problem = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: keep the status alone
  }
  const detail =
    typeof problem?.detail === 'string'
      ? problem.detail
      : typeof problem?.title === 'string'
        ? problem.title
        : `the API answered ${response.status} ${response.statusText}`;
  return new ApiError(response.status, detail, problem);
}

/** No answer at all: the network or the API is down. */
export class NoAnswerError extends Error {
  constructor() {
    super('no answer from the API (the network or the API is down)');
  }
}

/**
 * fetch, telling the connection state whether the API answered: no answer or a 5xx marks it down, any
 * other answer marks it up again.
 */
async function send(path: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    apiFailed('no answer from the API');
    throw new NoAnswerError();
  }
  if (response.status >= 500) apiFailed(`the API answered ${response.status}`);
  else apiAnswered();
  return response;
}

/**
 * Calls the REST API with the signed-in credentials. A 401 means the key or session expired or was revoked: the
 * dashboard signs out with the API's reason, and the sign-in page shows it.
 */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await send(path, {
    method,
    headers: {
      accept: 'application/json',
      ...authHeaders(method),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401) {
    const error = await problemOf(response);
    signOut(error.detail);
    throw error;
  }
  if (!response.ok) throw await problemOf(response);
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}

export const get = <T>(path: string) => request<T>('GET', path);

/** A query string from the values that are set. */
export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Downloads an authenticated answer as a file (no credential ever goes into a URL). */
export async function download(path: string, fileName: string): Promise<void> {
  const response = await send(path, { headers: authHeaders('GET') });
  if (response.status === 401) {
    const error = await problemOf(response);
    signOut(error.detail);
    throw error;
  }
  if (!response.ok) throw await problemOf(response);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
