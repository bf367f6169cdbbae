/**
 * Vitest setup for every suite: each error answer a test receives from a server on this machine (an HTTP
 * status of 400 or more with a JSON body, or a GraphQL answer with `errors`) is checked for internals: a
 * stack trace, a file path of the server or its dependencies, a source line reference. Finding one fails
 * the request, and so the test that made it.
 */
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

const INTERNALS: [string, RegExp][] = [
  ['a stack trace line', /\bat [\w$.<>]+ \(|\n\s+at |\\n\s+at /],
  ['a stack trace field', /"stack(trace)?"\s*:/],
  ['a server path', new RegExp(ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))],
  ['a dependency path', /node_modules/],
  ['a source line reference', /\.(?:ts|js|mjs|cjs):\d+/],
];

const LOCAL = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//;

function urlOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** What of an answer is an error report, or null when it is none. */
async function errorPart(url: string, response: Response): Promise<string | null> {
  if (!/json/i.test(response.headers.get('content-type') ?? '')) return null;
  if (response.status >= 400) return response.clone().text();
  if (!new URL(url).pathname.endsWith('/graphql')) return null;
  const body = JSON.parse(await response.clone().text()) as { errors?: unknown[] } | { errors?: unknown[] }[];
  const errors = (Array.isArray(body) ? body : [body]).flatMap((answer) => answer.errors ?? []);
  return errors.length ? JSON.stringify(errors) : null;
}

export function leakIn(text: string): string | null {
  const found = INTERNALS.find(([, pattern]) => pattern.test(text));
  return found ? found[0] : null;
}

const originalFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const response = await originalFetch(input, init);
  const url = urlOf(input);
  if (!LOCAL.test(url)) return response;
  const errors = await errorPart(url, response);
  const leak = errors === null ? null : leakIn(errors);
  if (leak) {
    throw new Error(
      `${init?.method ?? 'GET'} ${url} answered ${response.status} with ${leak}: ${errors!.slice(0, 800)}`,
    );
  }
  return response;
};
