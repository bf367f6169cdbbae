import pg from 'pg';
import { sessionOptions } from './session-settings.js';
import { statementNameOf } from './statement-names.js';

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
  /**
   * A streaming replica (DATABASE_READ_URL) this pool's reads go to while it is fresh enough; they go to
   * `databaseUrl` (the primary) when it lags past `maxLagMs` or cannot be reached.
   */
  replica?: ReplicaOptions;
}

export interface ReplicaOptions {
  databaseUrl: string;
  /** Staleness bound: a replica further behind the primary than this is not read. */
  maxLagMs: number;
  /** How long one measurement of the replica's lag is trusted (default 1,000 ms). */
  checkEveryMs?: number;
}

/** Which server answered a statement. */
export type ReadServer = 'primary' | 'replica';

/** The replica's freshness as last measured. */
export interface ReplicaStatus {
  /** Whether reads go to it now. */
  usable: boolean;
  /** How far behind the primary it was (0: it had replayed everything the primary had written), or null (unknown: down). */
  lagMs: number | null;
  checkedAt: number;
}

/** What one executed statement looked like; tests count these to prove batching. */
export interface ExecutedQuery {
  text: string;
  durationMs: number;
  rows: number;
  server: ReadServer;
}

/**
 * The read model's own connection pool, on plain `pg`.
 *
 * Decision: the query API's reads bypass Prisma. They are hand-written SQL anyway (lateral joins, keyset
 * pagination, time-range integrals), and on this machine `$queryRaw` costs about 2.5 times the CPU of the
 * same statement through `pg` (≈250 µs against ≈90 µs for a 50-row result), which is most of the latency
 * budget of a list request under load. Writes stay on Prisma, but for the worker's snapshot writes
 * (inPgTransaction, on the pool Prisma runs on).
 */
export class ReadDb {
  readonly pool: pg.Pool;
  /** The replica's pool, when DATABASE_READ_URL names one. */
  readonly replicaPool?: pg.Pool;
  private readonly replicaOptions?: Required<ReplicaOptions>;
  private replica: ReplicaStatus = { usable: false, lagMs: null, checkedAt: -Infinity };
  private measuring?: Promise<boolean>;
  private readonly prepared: boolean;
  /** Prepared statements' names by their text: looking a text up costs less than hashing it again. */
  private readonly statementNames = new Map<string, string>();
  private readonly listeners = new Set<(query: ExecutedQuery) => void>();

  constructor(options: ReadDbOptions) {
    const poolOf = (connectionString: string) => {
      const pool = new pg.Pool({
        connectionString,
        max: options.poolMax ?? 10,
        ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
        ...(options.connectionTimeoutMs ? { connectionTimeoutMillis: options.connectionTimeoutMs } : {}),
        options: sessionOptions(options.oneCorePerStatement ? { max_parallel_workers_per_gather: '0' } : {}),
      });
      // An idle client losing its connection (Postgres restarted) must not crash the process.
      pool.on('error', () => undefined);
      return pool;
    };
    this.pool = poolOf(options.databaseUrl);
    if (options.replica) {
      this.replicaPool = poolOf(options.replica.databaseUrl);
      this.replicaOptions = { checkEveryMs: DEFAULT_REPLICA_CHECK_MS, ...options.replica };
    }
    this.prepared = options.preparedStatements === true;
  }

  /**
   * Runs a read: on the replica while it is within the staleness bound, else (or when the replica fails
   * to answer for want of a server) on the primary. Reads only: a statement may run on both. With
   * `settings`, the statement runs with those server settings and no other statement does.
   */
  async query<Row extends object>(text: string, values: unknown[] = [], settings?: StatementSettings): Promise<Row[]> {
    if (this.replicaPool && (await this.replicaUsable())) {
      try {
        return await this.run<Row>(this.replicaPool, 'replica', text, values, settings);
      } catch (error) {
        if (!replicaUnavailable(error)) throw error;
        this.replica = { usable: false, lagMs: null, checkedAt: performance.now() };
      }
    }
    return this.run<Row>(this.pool, 'primary', text, values, settings);
  }

  private async run<Row extends object>(
    pool: pg.Pool,
    server: ReadServer,
    text: string,
    values: unknown[],
    settings?: StatementSettings,
  ) {
    const started = performance.now();
    const statement = this.prepared ? { name: this.statementNameOf(text), text, values } : { text, values };
    const result = settings ? await withSettings<Row>(pool, settings, statement) : await pool.query<Row>(statement);
    if (this.listeners.size > 0) {
      const executed = { text, durationMs: performance.now() - started, rows: result.rowCount ?? 0, server };
      for (const listener of this.listeners) listener(executed);
    }
    return result.rows;
  }

  /** The replica's freshness as last measured (null without a replica). */
  replicaStatus(): ReplicaStatus | null {
    return this.replicaPool ? { ...this.replica } : null;
  }

  /**
   * Whether the replica may be read now, by the last measurement. A measurement older than checkEveryMs
   * starts a new one in the background (one at a time): only the very first read waits for one, so a
   * slow or unreachable replica never holds reads up beyond what its own failed read costs.
   */
  private async replicaUsable(): Promise<boolean> {
    const first = this.replica.checkedAt === -Infinity;
    if (!this.measuring && performance.now() - this.replica.checkedAt >= this.replicaOptions!.checkEveryMs) {
      this.measuring = this.measureReplica().finally(() => (this.measuring = undefined));
    }
    return first && this.measuring ? this.measuring : this.replica.usable;
  }

  /**
   * Decision (staleness): compare WAL positions first. The primary's current position is read before the
   * replica's replay position, so a replica that has replayed up to it holds everything committed before
   * the measurement: lag 0. Otherwise the replica shows the primary as of its last replayed commit, so its
   * lag is at most the time since that commit (pg_last_xact_replay_timestamp, on the replica's clock):
   * conservative (an idle primary's WAL of checkpoints makes a caught-up replica look that old until
   * it replays them), never optimistic. Unknown (down, not a standby, nothing replayed yet): not read.
   */
  private async measureReplica(): Promise<boolean> {
    let status: ReplicaStatus;
    try {
      const [{ lsn }] = (await this.pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows;
      const [row] = (
        await this.replicaPool!.query<{ standby: boolean; caught_up: boolean | null; lag_ms: number | null }>(
          `SELECT pg_is_in_recovery() AS standby,
                  pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught_up,
                  (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS lag_ms`,
          [lsn],
        )
      ).rows;
      const lagMs = !row.standby ? null : row.caught_up ? 0 : row.lag_ms === null ? null : Math.max(0, row.lag_ms);
      status = { usable: lagMs !== null && lagMs <= this.replicaOptions!.maxLagMs, lagMs, checkedAt: 0 };
    } catch {
      status = { usable: false, lagMs: null, checkedAt: 0 };
    }
    this.replica = { ...status, checkedAt: performance.now() };
    return status.usable;
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
    await Promise.all([this.pool.end(), this.replicaPool?.end()]);
  }
}

/**
 * Server settings for one statement only (`SET LOCAL`, in a transaction of its own), by name: a heavy
 * statement's own memory or parallelism, leaving the session's as they are for every other statement.
 */
export type StatementSettings = Readonly<Record<string, string>>;

/**
 * A report's work memory, for its statements over a whole organization alone: at the pools' 4 MB the
 * report's Service rows hashed 200,000 Services' intervals in batches and its fix ranking sorted on disk
 * (35 and 15 MB for 200,000 Services).
 */
export const REPORT_STATEMENT_SETTINGS: StatementSettings = { work_mem: '64MB' };

/**
 * Runs `statement` in a read-only transaction of its own on one connection, `settings` set for it alone
 * (`set_config(..., true)`: SET LOCAL, undone when the transaction ends, so the pooled session keeps its own).
 */
async function withSettings<Row extends object>(
  pool: pg.Pool,
  settings: StatementSettings,
  statement: pg.QueryConfig,
): Promise<pg.QueryResult<Row>> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN READ ONLY');
    await client.query('SELECT set_config(name, value, true) FROM unnest($1::text[], $2::text[]) AS s(name, value)', [
      Object.keys(settings),
      Object.values(settings),
    ]);
    const result = await client.query<Row>(statement);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = await client.query('ROLLBACK').then(
      () => false,
      () => true,
    );
    throw error;
  } finally {
    // A connection whose rollback failed is in no known state: it is closed, not reused.
    client.release(broken);
  }
}

const MAX_STATEMENT_NAMES = 256;
const DEFAULT_REPLICA_CHECK_MS = 1000;

/**
 * Whether a replica's error means it cannot serve now (the read is then run on the primary): no server
 * (a socket or pg connection error, no SQLSTATE), connection exceptions (class 08), shutdown or start-up
 * (57P01-57P03), too many connections (53300), and a statement cancelled by a conflict with recovery
 * (40001 on a standby). Errors of the statement itself (syntax, data, its timeout) are not retried.
 */
function replicaUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return /^(08...|57P0[123]|53300|40001)$/.test(code);
}
