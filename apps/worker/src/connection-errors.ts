/**
 * Whether an error says that Postgres or Redis could not be reached (refused, reset, closed, timed out,
 * shutting down), as opposed to an error about the work itself. Looks through the error's causes, Prisma's
 * driver-adapter details and aggregate errors, because each layer wraps the one below differently.
 */
export function isConnectionError(error: unknown): boolean {
  return causesOf(error).some(isConnectionErrorItself);
}

/** Node's socket errors: nothing on the other end, or the way to it broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Prisma's codes for a server it cannot reach (P1001), a connect timeout (P1002), an operation timeout
 * (P1008), a closed connection (P1017) and no pooled connection in time (P2024).
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** Prisma's driver-adapter error kinds that mean the connection, not the statement, failed. */
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
]);

/**
 * SQLSTATEs of a server going away or not ready: class 08 (connection exception), admin/crash shutdown
 * (57P01, 57P02), starting up (57P03), too many connections (53300).
 */
function isConnectionSqlState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/** Messages of pg and ioredis connection failures that carry no code. */
const CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /encountered a connection error/i,
  /timeout exceeded when trying to connect/i,
  /Connection is closed/i,
  /Stream isn't writeable/i,
  /Can't reach database server/i,
  /server closed the connection/i,
];

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  kind?: unknown;
  cause?: unknown;
  errors?: unknown;
  meta?: { driverAdapterError?: unknown };
}

function isConnectionErrorItself(error: ErrorLike): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (NETWORK_CODES.has(code) || PRISMA_CODES.has(code)) return true;
  if (typeof error.kind === 'string' && ADAPTER_KINDS.has(error.kind)) return true;
  if (error.kind === 'postgres' && code && isConnectionSqlState(code)) return true;
  if (/^[0-9A-Z]{5}$/.test(code) && isConnectionSqlState(code)) return true;
  if (error.name === 'PrismaClientInitializationError' || error.name === 'MaxRetriesPerRequestError') return true;
  const message = typeof error.message === 'string' ? error.message : '';
  return CONNECTION_MESSAGES.some((pattern) => pattern.test(message));
}

/** The error and everything it wraps, breadth first, bounded (cycles happen). */
function causesOf(error: unknown): ErrorLike[] {
  const found: ErrorLike[] = [];
  const pending: unknown[] = [error];
  while (pending.length && found.length < 32) {
    const next = pending.shift();
    if (!next || typeof next !== 'object' || found.includes(next as ErrorLike)) continue;
    const item = next as ErrorLike;
    found.push(item);
    pending.push(item.cause, item.meta?.driverAdapterError);
    if (Array.isArray(item.errors)) pending.push(...item.errors);
  }
  return found;
}
