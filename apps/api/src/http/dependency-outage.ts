/**
 * Telling an outage of a dependency from a bug: an error that means PostgreSQL or Redis cannot be
 * reached (or is restarting, or out of connections) is answered 503 with `Retry-After`, naming the
 * dependency, instead of an opaque 500. The client did nothing wrong and the same request will work
 * once the dependency is back.
 */

export type Dependency = 'database' | 'queue';

/** How long a client is asked to wait before retrying while a dependency is down. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** Thrown by code that knows which dependency failed (a queue operation that timed out, say). */
export class DependencyUnavailable extends Error {
  override name = 'DependencyUnavailable';
  constructor(
    readonly dependency: Dependency,
    message: string,
  ) {
    super(message);
  }
}

/** Node's socket errors: the server is not there, or went away. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is unreachable or not serving: connection exceptions (class 08),
 * admin/crash shutdown and "the database system is starting up" (57P01–57P03), too many connections.
 */
const POSTGRES_OUTAGE_STATES = /^(08...|57P0[123]|53300)$/;

/** Prisma's codes for the same: can't reach, timed out, connection closed, pool timeout. */
const PRISMA_OUTAGE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** The driver adapter's error kinds for the same. */
const ADAPTER_OUTAGE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

/** pg's own messages when its connection is gone (they carry no code). */
const PG_OUTAGE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server|Server has closed the connection/i;

/** ioredis' messages when a command cannot reach Redis. */
const REDIS_OUTAGE_MESSAGES = /Connection is closed|Stream isn't writeable|max retries per request|enableOfflineQueue/i;

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Which dependency an error says is unavailable, or null when it is not an outage. */
export function unavailableDependency(error: unknown): Dependency | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 20) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (current instanceof DependencyUnavailable) return current.dependency;
    const { name, code, kind, message, cause, errors } = current as ErrorShape;
    const text = typeof message === 'string' ? message : '';
    if (name === 'MaxRetriesPerRequestError' || REDIS_OUTAGE_MESSAGES.test(text)) return 'queue';
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || POSTGRES_OUTAGE_STATES.test(code))) return 'database';
    if (typeof code === 'string' && PRISMA_OUTAGE_CODES.has(code)) return 'database';
    if (typeof kind === 'string' && ADAPTER_OUTAGE_KINDS.has(kind)) return 'database';
    if (name === 'PrismaClientInitializationError' || PG_OUTAGE_MESSAGES.test(text)) return 'database';
    queue.push(cause, ...(Array.isArray(errors) ? errors : []));
  }
  return null;
}

/** The problem answer's detail for an unavailable dependency. */
export function outageDetail(dependency: Dependency): string {
  return dependency === 'database'
    ? 'database unavailable: PostgreSQL cannot be reached right now; retry shortly'
    : 'queue unavailable: Redis cannot be reached right now; retry shortly';
}
