import { createHash } from 'node:crypto';
import pg from 'pg';
import { sessionOptions } from './session-settings.js';

export interface ReadDbOptions {
  databaseUrl: string;
  /** Most connections the read pool opens. */
  poolMax?: number;
  /** Statement timeout for every read, in ms (a runaway query must not hold a connection forever). */
  statementTimeoutMs?: number;
  /** Longest wait for a new connection (an unreachable server must not hold a request forever). */
  connectionTimeoutMs?: number;
  /**
   * When set, Postgres runs each statement in one process, never with parallel workers: a statement
   * holds at most one of the server's cores, whatever its plan.
   */
  oneCorePerStatement?: boolean;
  /**
   * When set, each statement is prepared once per connection (a named statement, named by its text's
   * hash): only the values travel, and Postgres neither parses it again nor, once it has a generic plan,
   * plans it again.
   *
   * Decision: for the heavy reads' long statements (the 30-day savings one is 16 KB of SQL), sending,
   * parsing and planning the text cost 2-3 ms a call. Plans follow Postgres's default (`plan_cache_mode`
   * auto): a statement's first five calls are planned for their values, then the generic plan is kept
   * when its estimated cost is no worse. Every path of these statements is an index on the clusters
   * asked for, so the generic plan has the custom plans' shape (checked with EXPLAIN on the bench's
   * history).
   */
  preparedStatements?: boolean;
}

/** What one executed statement looked like; tests count these to prove batching. */
export interface ExecutedQuery {
  text: string;
  durationMs: number;
  rows: number;
}

/**
 * The read model's own connection pool, on plain `pg`.
 *
 * Decision: the query API's reads bypass Prisma. They are hand-written SQL anyway (lateral joins, keyset
 * pagination, time-range integrals), and on this machine `$queryRaw` costs about 2.5 times the CPU of the
 * same statement through `pg` (≈250 µs against ≈90 µs for a 50-row result), which is most of the latency
 * budget of a list request under load. Writes stay on Prisma.
 */
export class ReadDb {
  readonly pool: pg.Pool;
  private readonly prepared: boolean;
  /** Prepared statements' names by their text: looking a text up costs less than hashing it again. */
  private readonly statementNames = new Map<string, string>();
  private readonly listeners = new Set<(query: ExecutedQuery) => void>();

  constructor(options: ReadDbOptions) {
    this.pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolMax ?? 10,
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      ...(options.connectionTimeoutMs ? { connectionTimeoutMillis: options.connectionTimeoutMs } : {}),
      options: sessionOptions(options.oneCorePerStatement ? { max_parallel_workers_per_gather: '0' } : {}),
    });
    this.prepared = options.preparedStatements === true;
    // An idle client losing its connection (Postgres restarted) must not crash the process.
    this.pool.on('error', () => undefined);
  }

  async query<Row extends object>(text: string, values: unknown[] = []): Promise<Row[]> {
    const started = performance.now();
    const result = await this.pool.query<Row>(
      this.prepared ? { name: this.statementNameOf(text), text, values } : { text, values },
    );
    if (this.listeners.size > 0) {
      const executed = { text, durationMs: performance.now() - started, rows: result.rowCount ?? 0 };
      for (const listener of this.listeners) listener(executed);
    }
    return result.rows;
  }

  private statementNameOf(text: string): string {
    let name = this.statementNames.get(text);
    if (name === undefined) {
      // A bound on memory only: the heavy reads have a handful of texts.
      if (this.statementNames.size >= MAX_STATEMENT_NAMES) this.statementNames.clear();
      name = statementNameOf(text);
      this.statementNames.set(text, name);
    }
    return name;
  }

  /** Calls `listener` after every statement; returns the function that stops it. */
  onQuery(listener: (query: ExecutedQuery) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connections in use, idle, and requests waiting for one (saturation, for readiness). */
  load(): { total: number; idle: number; waiting: number; max: number } {
    return {
      total: this.pool.totalCount,
      idle: this.pool.idleCount,
      waiting: this.pool.waitingCount,
      max: this.pool.options.max ?? 10,
    };
  }

  async end(): Promise<void> {
    await this.pool.end();
  }
}

const MAX_STATEMENT_NAMES = 256;

/** A prepared statement's name: the same text always gets the same name, another text another. */
function statementNameOf(text: string): string {
  return `zw_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}
