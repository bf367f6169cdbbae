import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Every answer of the ingest route closes its connection (`Connection: close`), refusals included.
 *
 * Decision: an agent pushes once every few minutes, so a connection kept alive after a push only sits
 * idle until the server's keep-alive timeout closes it (Node's `server.keepAliveTimeout`, 5 s). A client
 * that sends its next push just as that happens, or whose own idle timer has not run yet (an event loop
 * busy for a few seconds), writes a large body into a socket the server has closed and fails with EPIPE
 * before it can read any answer: the pipeline bench's large push met exactly this after the bench spent
 * seconds in the core. A push on a connection of its own never races a keep-alive timeout, and one TCP
 * handshake is nothing beside a snapshot's body. A refusal sent before the body is read (401, 413, 415,
 * 429, 503) is still read by the client: Node's server keeps reading and discarding the rest of the
 * body once the answer is written (`_http_server.js` `resOnFinish` dumps an unread request).
 */
export function closeAfterAnswer() {
  return (_request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    response.setHeader('Connection', 'close');
    next();
  };
}
