import type { IncomingMessage, ServerResponse } from 'node:http';
import { problemBody, writeProblem } from '../problem.js';

export const GRAPHQL_PATH = '/graphql';

/**
 * GraphQL is served over POST only. A GET (a browser opening the address, a link) answers 405 naming the
 * POST endpoint instead of Apollo's CSRF error: queries over GET would also make reads cacheable by
 * proxies under the caller's key.
 */
export function graphQLPostOnly() {
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== GRAPHQL_PATH || request.method === 'POST' || request.method === 'OPTIONS') return next();
    const detail = `GraphQL is served at POST ${GRAPHQL_PATH} with a JSON body {"query": "…", "variables": {…}} and Authorization: Bearer <API key>; the REST API and its documentation are at /docs`;
    writeProblem(response, 405, problemBody(405, detail, { endpoint: `POST ${GRAPHQL_PATH}` }), { Allow: 'POST' });
  };
}
