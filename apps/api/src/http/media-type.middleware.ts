import type { IncomingMessage, ServerResponse } from 'node:http';
import { problemBody, writeProblem } from '../problem.js';

export const JSON_CONTENT_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Every route with a body takes JSON (ingest also gzip-encoded JSON: `Content-Encoding`, not the type).
 * A body of another type (`text/plain`, a form) answers 415 naming what was sent and what is accepted,
 * before it is read, instead of a field error about a body the parser skipped.
 */
export function jsonBodiesOnly() {
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    if (!hasBody(request) || request.method === 'GET' || request.method === 'HEAD') return next();
    const type = request.headers['content-type'];
    if (type !== undefined && JSON_CONTENT_TYPE.test(type)) return next();
    const sent = type === undefined ? '(no Content-Type)' : JSON.stringify(type.split(';')[0]);
    const body = problemBody(415, `unsupported media type ${sent}: send the body as application/json`, {
      accepted: ['application/json'],
    });
    writeProblem(response, 415, body, { 'Accept-Post': 'application/json' });
  };
}
