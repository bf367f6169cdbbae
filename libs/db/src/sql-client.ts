import pg from 'pg';
import { Prisma } from './generated/prisma/client.js';
import { statementNameOf } from './statement-names.js';

/**
 * What the history's statements need of a client: raw statements, as tagged templates or Prisma.sql
 * fragments. A Prisma client or interactive transaction is one (retention, tests); so is the pg
 * transaction of {@link inPgTransaction} (the worker's snapshot writes).
 */
export interface SqlClient {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

export interface PgTransactionOptions {
  /** Longest the transaction may stay open: past it, it is abandoned (its connection closed) and rolled back. */
  timeoutMs: number;
  /** Longest wait for a pooled connection. */
  maxWaitMs: number;
}

/** The transaction was open longer than its timeout, and was rolled back. */
export class TransactionTimeoutError extends Error {
  override name = 'TransactionTimeoutError';
  constructor(
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`the transaction was open for longer than its ${timeoutMs} ms timeout and was rolled back`, options);
  }
}

/** No pooled connection was free within the wait. */
export class ConnectionWaitError extends Error {
  override name = 'ConnectionWaitError';
  constructor(readonly waitedMs: number) {
    super(`no database connection was free within ${waitedMs} ms`);
  }
}

/**
 * Runs `work` in one transaction on a connection of `pool`, through `pg` directly: committed when it
 * returns, rolled back when it throws. Past `timeoutMs` the transaction fails with TransactionTimeoutError
 * and its connection is closed (Postgres rolls it back and releases its locks once it sees the
 * connection gone), whatever `work` still does; once COMMIT is sent it is no longer cut.
 *
 * Decision: the worker's snapshot writes run here rather than in a Prisma interactive transaction, which
 * cost the worker's main thread about 0.6 ms of CPU per statement and 2.3 ms per transaction on top of
 * pg's own (bench/RESULTS.md, pipeline24), on the critical path of a cluster's writes (its lock is held
 * meanwhile). The statements are the same (Prisma.sql's text and values); results map as Prisma's do.
 */
export async function inPgTransaction<T>(
  pool: pg.Pool,
  options: PgTransactionOptions,
  work: (tx: SqlClient) => Promise<T>,
): Promise<T> {
  const client = await connectWithin(pool, options.maxWaitMs);
  // A connection lost while checked out is reported by its pending statement; the pool listens only to idle ones.
  client.on('error', ignoreError);
  let released = false;
  const release = (destroy?: Error) => {
    if (released) return;
    released = true;
    client.removeListener('error', ignoreError);
    client.release(destroy);
  };
  let expire!: (error: Error) => void;
  const expiry = new Promise<never>((_, reject) => (expire = reject));
  const timer = setTimeout(() => {
    const error = new TransactionTimeoutError(options.timeoutMs);
    release(error);
    expire(error);
  }, options.timeoutMs);
  const body = client.query('BEGIN').then(() => work(new PgSqlClient(client)));
  // Once the transaction expired, how the work ends no longer matters (its statements fail).
  body.catch(ignoreError);
  try {
    const result = await Promise.race([body, expiry]);
    clearTimeout(timer);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    clearTimeout(timer);
    if (!released) await client.query('ROLLBACK').catch((rollbackError: Error) => release(rollbackError));
    throw error;
  } finally {
    release();
  }
}

/** A pooled connection, or ConnectionWaitError when none is free within `waitMs`. */
async function connectWithin(pool: pg.Pool, waitMs: number): Promise<pg.PoolClient> {
  const connecting = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConnectionWaitError(waitMs)), waitMs);
  });
  try {
    return await Promise.race([connecting, waited]);
  } catch (error) {
    // The connection may still come: it goes back to the pool unused.
    if (error instanceof ConnectionWaitError) void connecting.then((client) => client.release(), ignoreError);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function ignoreError(): void {}

/**
 * Statements on `pool` through pg directly, each on whichever connection is free (no transaction): for
 * the worker's single statements per snapshot (its claim), which cost less so than through Prisma.
 */
export function pgSql(pool: pg.Pool): SqlClient {
  return new PgSqlClient(pool);
}

/** A pool or a connection, answering raw statements with the types Prisma's $queryRaw gives. */
class PgSqlClient implements SqlClient {
  constructor(private readonly client: pg.Pool | pg.PoolClient) {}

  async $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T> {
    return (await this.run(sqlOf(query, values))).rows as T;
  }

  async $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number> {
    return (await this.run(sqlOf(query, values))).rowCount ?? 0;
  }

  async $executeRawUnsafe(text: string, ...values: unknown[]): Promise<number> {
    return (await this.run({ text, values })).rowCount ?? 0;
  }

  private run(statement: { text: string; values: unknown[] }): Promise<pg.QueryResult> {
    return (this.client as pg.Pool).query({ ...statement, name: statementName(statement.text), types: PRISMA_TYPES });
  }
}

/** Most statement texts a process prepares; any further text runs unnamed (parsed at each run). */
const MAX_NAMED_STATEMENTS = 256;
const statementNames = new Map<string, string>();

/**
 * The name a statement is prepared under on each connection (the same for the same text), so Postgres
 * parses it once per connection, not at every run, and may keep its plan (plan_cache_mode's rules).
 *
 * Decision: the worker's history statements are long CTEs: parsing and planning them, at every run of
 * an unnamed statement, was about 40 % of their Postgres time (bench/RESULTS.md, pipe-main).
 */
function statementName(text: string): string | undefined {
  const known = statementNames.get(text);
  if (known !== undefined || statementNames.size >= MAX_NAMED_STATEMENTS) return known;
  const name = statementNameOf(text);
  statementNames.set(text, name);
  return name;
}

/** A tagged template's statement as Prisma builds it: its text with $n placeholders and its values. */
function sqlOf(query: TemplateStringsArray | Prisma.Sql, values: unknown[]): { text: string; values: unknown[] } {
  const sql = query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
  return { text: sql.text, values: sql.values };
}

/** Postgres type OIDs whose pg parsing differs from what Prisma's $queryRaw gives, and text[]. */
const INT8 = 20;
const INT8_ARRAY = 1016;
const TEXT_ARRAY = 1009;

/** pg's own parsers, by any OID (its TypeId enum names no array types). */
const pgParser = pg.types.getTypeParser as (oid: number, format?: string) => (value: string) => unknown;

const parseBigIntArray = (value: string) =>
  (pgParser(TEXT_ARRAY)(value) as (string | null)[]).map((item) => (item === null ? null : BigInt(item)));

/**
 * Result parsing as Prisma's $queryRaw: int8 and int8[] as bigint, where pg gives strings. timestamptz
 * (Date), json and jsonb (parsed), int4, float8, bool and text are parsed alike by both.
 */
const PRISMA_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (format === 'binary') return pgParser(oid, format);
    if (oid === INT8) return BigInt;
    if (oid === INT8_ARRAY) return parseBigIntArray;
    return pgParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};
