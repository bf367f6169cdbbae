import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The header that carries a request's id, in every answer (and accepted from a proxy in front). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An id a proxy may hand us: short and printable, so it cannot forge log lines. */
const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const current = new AsyncLocalStorage<string>();

/**
 * Express middleware giving every request an id: the `X-Request-Id` a proxy in front set, if it is a
 * plain token, else a new UUID. The answer carries it in its header; an internal error is logged with it
 * and answers it in its body (`requestId`), so an operator finds the log line a user reports.
 */
export function requestIdMiddleware() {
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const given = request.headers['x-request-id'];
    const id = typeof given === 'string' && ACCEPTED_ID.test(given) ? given : randomUUID();
    response.setHeader(REQUEST_ID_HEADER, id);
    current.run(id, next);
  };
}

/** The id of the request being handled, when there is one. */
export function currentRequestId(): string | undefined {
  return current.getStore();
}
