import { Prisma, type PrismaClient } from './generated/prisma/client.js';

/**
 * The history tables that grow per snapshot are partitioned by range of time: one partition per ISO week
 * (UTC, Monday to Monday), named <table>_wYYYYMMDD after its Monday, and <table>_default for any row no
 * week holds (history converted by a migration, a week not created yet, a clock far ahead), so a row
 * never misses a partition. Weeks are created ahead by the worker's retention job; whole weeks past
 * every organization's retention are dropped instead of deleting their rows, after the rows retention
 * keeps are moved into the default partition. Their migrations: 20261128191800_service_intervals_partitioned
 * and 20261128224500_history_tables_partitioned (which says why snapshots is not partitioned).
 */
export interface PartitionedTable {
  parent: string;
  /** The partition key: a timestamptz, or a date (`date`). */
  column: string;
  date: boolean;
  /** Joined to the partition's rows (alias `i`) when a dropped week decides which rows to keep. */
  join: Prisma.Sql;
  /** The cluster a row belongs to, for its cutoff (alias `c`: id, cutoff). */
  cluster: Prisma.Sql;
  /** Whether retention keeps a row of a week past every cutoff (`c.cutoff` null: a cluster without one). */
  kept: Prisma.Sql;
  /**
   * The table its foreign key references (attaching or detaching a week locks it too), and whether a
   * partition change locks it before the table itself: in the order the writers of both take them, so
   * a change waits for a writer instead of deadlocking with it (ingest writes a snapshot, then its
   * payload; the history writer registers Services, then sums their roll-up days; it reads intervals and
   * summaries before writing Services and snapshots).
   */
  references: { table: string; first: boolean };
}

/**
 * A table of one row per snapshot (its summary or payload), keyed by the snapshot's captured_at: a row
 * goes with its snapshot, which retention deletes when processed or failed and past its cluster's cutoff.
 */
function perSnapshot(parent: string, cluster: Prisma.Sql, lockSnapshotsFirst: boolean): PartitionedTable {
  return {
    parent,
    references: { table: 'snapshots', first: lockSnapshotsFirst },
    column: 'captured_at',
    date: false,
    join: Prisma.sql`JOIN snapshots s ON s.id = i.snapshot_id AND s.captured_at = i.captured_at`,
    cluster,
    kept: Prisma.sql`c.cutoff IS NULL OR i.captured_at >= c.cutoff OR s.status NOT IN ('processed', 'failed')`,
  };
}

/** service_intervals by valid_from: an interval still open, or ending at or after its cutoff, is kept. */
export const INTERVALS: PartitionedTable = {
  parent: 'service_intervals',
  references: { table: 'cluster_services', first: false },
  column: 'valid_from',
  date: false,
  join: Prisma.empty,
  cluster: Prisma.sql`i.cluster_id`,
  kept: Prisma.sql`i.valid_to IS NULL OR c.cutoff IS NULL OR i.valid_to >= c.cutoff`,
};

/** snapshot_summaries by captured_at, under the history retention. */
export const SUMMARIES = perSnapshot('snapshot_summaries', Prisma.sql`i.cluster_id`, false);

/** snapshot_payloads by captured_at, under the payload retention. */
export const PAYLOADS = perSnapshot('snapshot_payloads', Prisma.sql`s.cluster_id`, true);

/**
 * service_savings_days by day. A roll-up row is kept while an interval of its Service that retention
 * keeps overlaps its span: those rows before the cutoff are then summed again from the intervals held
 * (libs/db retention.ts pruneClusterHistory), as when intervals are deleted row by row; the others
 * hold only pieces of intervals past retention, which summing again would remove. Drop the weeks of
 * service_intervals first.
 */
export const SAVINGS_DAYS: PartitionedTable = {
  parent: 'service_savings_days',
  references: { table: 'cluster_services', first: true },
  column: 'day',
  date: true,
  join: Prisma.empty,
  cluster: Prisma.sql`i.cluster_id`,
  kept: Prisma.sql`c.cutoff IS NULL OR EXISTS (
    SELECT 1 FROM service_intervals k
     WHERE k.service_id = i.service_id AND k.valid_from < (i.day + i.span_days)::timestamp AT TIME ZONE 'UTC'
       AND (k.valid_to IS NULL OR (k.valid_to > i.day::timestamp AT TIME ZONE 'UTC' AND k.valid_to >= c.cutoff)))`,
};

/** Every partitioned history table, in the order retention drops their weeks. */
export const PARTITIONED_TABLES: readonly PartitionedTable[] = [INTERVALS, SAVINGS_DAYS, SUMMARIES, PAYLOADS];

const DAY_MS = 24 * 3600_000;
const WEEK_MS = 7 * DAY_MS;
/**
 * A partition change waits for its locks half of Postgres' deadlock_timeout, then gives up until the next
 * run. A transaction that holds a lock the change waits for and then waits for one the change holds (an
 * API write locking Services, then reading intervals) forms a deadlock; Postgres aborts whichever side
 * checks first, a deadlock_timeout after it began to wait. Giving up sooner than that makes the change,
 * never the writer, the side that yields, and keeps the statements queued behind it waiting no longer.
 */
const LOCK_TIMEOUT_SQL = Prisma.sql`(extract(epoch FROM current_setting('deadlock_timeout')::interval) * 500)::int::text`;

export interface IntervalPartition {
  name: string;
  from: Date;
  to: Date;
}

/** The ISO week (UTC) holding `at`: its Monday 00:00 and the next Monday's, named for `table`. */
export function weekOf(at: Date, table: PartitionedTable = INTERVALS): IntervalPartition {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const from = new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS);
  const stamp = from.toISOString().slice(0, 10).replaceAll('-', '');
  return { name: `${table.parent}_w${stamp}`, from, to: new Date(from.getTime() + WEEK_MS) };
}

/** The weekly partitions of `table` that exist, oldest first. */
export async function weeklyPartitions(
  db: PrismaClient | Prisma.TransactionClient,
  table: PartitionedTable,
): Promise<IntervalPartition[]> {
  const rows = await db.$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = ${table.parent}::regclass`;
  const weekName = new RegExp(`^${table.parent}_w(\\d{4})(\\d{2})(\\d{2})$`);
  return rows
    .map((row) => weekName.exec(row.name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => weekOf(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))), table))
    .sort((a, b) => a.from.getTime() - b.from.getTime());
}

/** The weekly partitions of service_intervals that exist, oldest first. */
export async function intervalPartitions(db: PrismaClient | Prisma.TransactionClient): Promise<IntervalPartition[]> {
  return weeklyPartitions(db, INTERVALS);
}

/** A week's bound as the partition key's literal: the instant, or for a date key its day. */
function bound(table: PartitionedTable, at: Date): Prisma.Sql {
  const iso = at.toISOString();
  return Prisma.raw(`'${table.date ? iso.slice(0, 10) : iso}'`);
}

/** Rows of a week the default partition may hold for that week to be created (they move into it). */
const MOVE_LIMIT = 10_000;

export interface PartitionChangeOptions {
  /** Rows of a week the default partition may hold for the week to be created (they move into it). */
  moveLimit?: number;
  /** How long the change waits for its locks (by default half the deadlock_timeout: see LOCK_TIMEOUT_SQL). */
  lockWaitMs?: number;
}

/**
 * Creates the weeks of `table` from that of `now` to `weeksAhead` after it, where missing. Rows the
 * default partition already holds for such a week (a snapshot captured ahead of the clock, history
 * recorded before the week was created) move into it in the same transaction, as attaching a range the
 * default partition holds rows of would fail; the whole table is locked meanwhile. Weeks are created
 * ahead, so that happens (briefly) about once a week. A week the default partition holds more than
 * `moveLimit` rows of (the current week, just after the migration that partitioned the table) is left
 * to it rather than locking the table while they move: the default partition is as good a home, and
 * retention prunes it row by row.
 */
export async function ensurePartitions(
  db: PrismaClient,
  table: PartitionedTable,
  now: Date,
  weeksAhead: number,
  { moveLimit = MOVE_LIMIT, lockWaitMs }: PartitionChangeOptions = {},
): Promise<string[]> {
  const existing = new Set((await weeklyPartitions(db, table)).map((week) => week.name));
  const parent = Prisma.raw(`"${table.parent}"`);
  const column = Prisma.raw(`"${table.column}"`);
  const created: string[] = [];
  for (let ahead = 0; ahead <= weeksAhead; ahead++) {
    const week = weekOf(new Date(now.getTime() + ahead * WEEK_MS), table);
    if (existing.has(week.name)) continue;
    const [from, to] = [bound(table, week.from), bound(table, week.to)];
    const defaultPartition = Prisma.raw(`"${table.parent}_default"`);
    const [{ held }] = await db.$queryRaw<{ held: bigint }[]>`
      SELECT count(*) AS held FROM (SELECT 1 FROM ${defaultPartition}
                                     WHERE ${column} >= ${from} AND ${column} < ${to} LIMIT ${moveLimit + 1}) rows`;
    if (held > BigInt(moveLimit)) continue;
    await inPartitionTransaction(db, lockWaitMs, async (tx) => {
      const partition = Prisma.raw(`"${week.name}"`);
      // The whole table, not the default partition alone: a statement planned before the new week
      // exists and run after the move (a fresh snapshot) would find its rows in neither partition.
      // Locking the parent stops statements before they are planned; they plan again once it commits.
      await lockForChange(tx, table);
      await tx.$executeRaw`CREATE TABLE ${partition} (LIKE ${parent} INCLUDING DEFAULTS)`;
      await tx.$executeRaw`
        WITH moved AS (DELETE FROM ${defaultPartition} WHERE ${column} >= ${from} AND ${column} < ${to} RETURNING *)
        INSERT INTO ${partition} SELECT * FROM moved`;
      await tx.$executeRaw`ALTER TABLE ${parent} ATTACH PARTITION ${partition} FOR VALUES FROM (${from}) TO (${to})`;
    });
    created.push(week.name);
  }
  return created;
}

/** {@link ensurePartitions} of service_intervals. */
export async function ensureIntervalPartitions(
  db: PrismaClient,
  now: Date,
  weeksAhead: number,
  options?: PartitionChangeOptions,
): Promise<string[]> {
  return ensurePartitions(db, INTERVALS, now, weeksAhead, options);
}

export interface DroppedPartition {
  name: string;
  /** Rows the drop removed, by cluster: each past its organization's cutoff. */
  removedByCluster: Map<string, number>;
  /** Rows still held (see the table's `kept`), kept in the default partition. */
  kept: number;
}

export interface ClusterCutoff {
  id: string;
  /** History of the cluster before this instant is past its organization's retention. */
  cutoff: Date;
}

/**
 * Drops each weekly partition of `table` that ends at or before every cluster's cutoff, in one
 * transaction each: first the rows retention keeps (the table's `kept`; every row of a cluster without
 * a cutoff) move to the default partition, so the dropped table holds only rows retention would have
 * deleted. The caller then brings what depends on them along, as after deleting rows. A week that
 * cannot be dropped (its locks not had in time) ends the pass, reported to `onFailure`.
 */
export async function dropExpiredPartitions(
  db: PrismaClient,
  table: PartitionedTable,
  clusters: readonly ClusterCutoff[],
  onFailure: (week: string, error: unknown) => void = (_week, error) => {
    throw error;
  },
): Promise<DroppedPartition[]> {
  if (clusters.length === 0) return [];
  const oldestCutoff = Math.min(...clusters.map((cluster) => cluster.cutoff.getTime()));
  const expired = (await weeklyPartitions(db, table)).filter((week) => week.to.getTime() <= oldestCutoff);
  const ids = clusters.map((cluster) => cluster.id);
  const cutoffs = clusters.map((cluster) => cluster.cutoff);
  const dropped: DroppedPartition[] = [];
  for (const week of expired) {
    const partition = Prisma.raw(`"${week.name}"`);
    const kept = Prisma.sql`(${table.kept})`;
    const withCutoff = Prisma.sql`${partition} i ${table.join}
      LEFT JOIN unnest(${ids}::uuid[], ${cutoffs}::timestamptz[]) AS c(id, cutoff) ON c.id = ${table.cluster}`;
    let result;
    try {
      result = await inPartitionTransaction(db, undefined, async (tx) => {
        await lockForChange(tx, table);
        await tx.$executeRaw`ALTER TABLE ${Prisma.raw(`"${table.parent}"`)} DETACH PARTITION ${partition}`;
        const counts = await tx.$queryRaw<{ cluster_id: string; removed: bigint }[]>`
          SELECT ${table.cluster}::text AS cluster_id, count(*) FILTER (WHERE NOT ${kept})::bigint AS removed
            FROM ${withCutoff} GROUP BY 1`;
        const keptRows = await tx.$executeRaw`
          INSERT INTO ${Prisma.raw(`"${table.parent}"`)} SELECT i.* FROM ${withCutoff} WHERE ${kept}`;
        await tx.$executeRaw`DROP TABLE ${partition}`;
        return { counts, keptRows };
      });
    } catch (error) {
      // The weeks dropped so far are returned: what depends on their rows must still follow.
      onFailure(week.name, error);
      break;
    }
    dropped.push({
      name: week.name,
      removedByCluster: new Map(
        result.counts.filter((row) => row.removed > 0n).map((row) => [row.cluster_id, Number(row.removed)]),
      ),
      kept: result.keptRows,
    });
  }
  return dropped;
}

/** {@link dropExpiredPartitions} of service_intervals. */
export async function dropExpiredIntervalPartitions(
  db: PrismaClient,
  clusters: readonly ClusterCutoff[],
  onFailure?: (week: string, error: unknown) => void,
): Promise<DroppedPartition[]> {
  return dropExpiredPartitions(db, INTERVALS, clusters, onFailure);
}

/** The locks a partition change of `table` takes, in the order of its `references`. */
async function lockForChange(tx: Prisma.TransactionClient, table: PartitionedTable): Promise<void> {
  const parent = Prisma.sql`LOCK TABLE ${Prisma.raw(`"${table.parent}"`)} IN ACCESS EXCLUSIVE MODE`;
  const referenced = Prisma.sql`LOCK TABLE ${Prisma.raw(`"${table.references.table}"`)} IN SHARE ROW EXCLUSIVE MODE`;
  for (const lock of table.references.first ? [referenced, parent] : [parent, referenced]) await tx.$executeRaw(lock);
}

/** A partition change: short, and giving up (until the next run) rather than queueing readers behind it. */
async function inPartitionTransaction<T>(
  db: PrismaClient,
  lockWaitMs: number | undefined,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const lockTimeout = lockWaitMs === undefined ? LOCK_TIMEOUT_SQL : Prisma.sql`${String(lockWaitMs)}`;
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT set_config('lock_timeout', ${lockTimeout}, true)`;
      return work(tx);
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
}

/**
 * Bytes on disk (table, TOAST, indexes) of each named table, a partitioned one's summed over its
 * partitions (its own size is none; pg_partition_tree lists nothing for a plain table), by name; tables
 * that do not exist are left out.
 */
export async function tableBytes(db: PrismaClient | Prisma.TransactionClient, tables: readonly string[]) {
  const rows = await db.$queryRaw<{ name: string; bytes: bigint }[]>`
    SELECT t AS name,
           COALESCE((SELECT sum(pg_total_relation_size(p.relid)) FROM pg_partition_tree(to_regclass(t)) p),
                    pg_total_relation_size(to_regclass(t)))::bigint AS bytes
      FROM unnest(${tables}::text[]) AS t WHERE to_regclass(t) IS NOT NULL`;
  return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
}
