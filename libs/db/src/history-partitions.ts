import { Prisma, type PrismaClient } from './generated/prisma/client.js';

/**
 * service_intervals is partitioned by range of valid_from: one partition per ISO week (UTC, Monday to
 * Monday), named service_intervals_wYYYYMMDD after its Monday, and service_intervals_default for any
 * row no week holds (history converted by the migration, a week not created yet, a clock far ahead), so
 * a recorded interval never misses a partition. Weeks are created ahead by the worker's retention job;
 * whole weeks past every organization's history retention are dropped instead of deleting their rows.
 */
const PARENT = 'service_intervals';
const DEFAULT_PARTITION = 'service_intervals_default';
const WEEK_NAME = /^service_intervals_w(\d{4})(\d{2})(\d{2})$/;
const DAY_MS = 24 * 3600_000;
const WEEK_MS = 7 * DAY_MS;
/** A partition change waits this long for the locks it needs, then gives up until the next run. */
const LOCK_TIMEOUT = '10s';

export interface IntervalPartition {
  name: string;
  from: Date;
  to: Date;
}

/** The ISO week (UTC) holding `at`: its Monday 00:00 and the next Monday's. */
export function weekOf(at: Date): IntervalPartition {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const from = new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS);
  const stamp = from.toISOString().slice(0, 10).replaceAll('-', '');
  return { name: `${PARENT}_w${stamp}`, from, to: new Date(from.getTime() + WEEK_MS) };
}

/** The weekly partitions that exist, oldest first. */
export async function intervalPartitions(db: PrismaClient | Prisma.TransactionClient): Promise<IntervalPartition[]> {
  const rows = await db.$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = ${PARENT}::regclass`;
  return rows
    .map((row) => WEEK_NAME.exec(row.name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => weekOf(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))))
    .sort((a, b) => a.from.getTime() - b.from.getTime());
}

/**
 * Creates the week of `now` and the `weeksAhead` after it where missing. Rows the default partition
 * already holds for such a week (a snapshot captured ahead of the clock, history recorded before the week
 * was created) move into it in the same transaction, as attaching a range the default partition holds
 * rows of would fail. Weeks are created ahead, so the table is locked (briefly) about once a week.
 */
export async function ensureIntervalPartitions(db: PrismaClient, now: Date, weeksAhead: number): Promise<string[]> {
  const existing = new Set((await intervalPartitions(db)).map((week) => week.name));
  const created: string[] = [];
  for (let ahead = 0; ahead <= weeksAhead; ahead++) {
    const week = weekOf(new Date(now.getTime() + ahead * WEEK_MS));
    if (existing.has(week.name)) continue;
    await inPartitionTransaction(db, async (tx) => {
      const table = Prisma.raw(`"${week.name}"`);
      // The whole table, not the default partition alone: a statement planned before the new week
      // exists and run after the move (a fresh snapshot) would find its rows in neither partition.
      // Locking the parent stops statements before they are planned; they plan again once it commits.
      await tx.$executeRaw`LOCK TABLE ${Prisma.raw(PARENT)} IN ACCESS EXCLUSIVE MODE`;
      await tx.$executeRaw`CREATE TABLE ${table} (LIKE ${Prisma.raw(PARENT)} INCLUDING DEFAULTS)`;
      await tx.$executeRaw`
        WITH moved AS (DELETE FROM ${Prisma.raw(DEFAULT_PARTITION)}
                        WHERE valid_from >= ${week.from} AND valid_from < ${week.to} RETURNING *)
        INSERT INTO ${table} SELECT * FROM moved`;
      await tx.$executeRaw`ALTER TABLE ${Prisma.raw(PARENT)} ATTACH PARTITION ${table}
        FOR VALUES FROM (${Prisma.raw(`'${week.from.toISOString()}'`)}) TO (${Prisma.raw(`'${week.to.toISOString()}'`)})`;
    });
    created.push(week.name);
  }
  return created;
}

export interface DroppedPartition {
  name: string;
  /** Intervals the drop removed, by cluster: each ended before its organization's cutoff. */
  removedByCluster: Map<string, number>;
  /** Intervals still held (open, or ending at or after their organization's cutoff), kept in the default partition. */
  kept: number;
}

export interface ClusterCutoff {
  id: string;
  /** Intervals of the cluster that ended before this instant are past its organization's retention. */
  cutoff: Date;
}

/**
 * Drops each weekly partition that ends at or before every cluster's cutoff, in one transaction each:
 * first the rows retention keeps (an interval still open, or ending at or after its cluster's cutoff, or
 * of a cluster without one: the Service's current state, and the fixes it names) move to the default
 * partition, so the dropped table holds only intervals retention would have deleted. The caller then
 * brings each cluster's roll-up, Services and fix contents along, as after deleting rows. A week that
 * cannot be dropped (its locks not had in time) ends the pass, reported to `onFailure`.
 */
export async function dropExpiredIntervalPartitions(
  db: PrismaClient,
  clusters: readonly ClusterCutoff[],
  onFailure: (week: string, error: unknown) => void = (_week, error) => {
    throw error;
  },
): Promise<DroppedPartition[]> {
  if (clusters.length === 0) return [];
  const oldestCutoff = Math.min(...clusters.map((cluster) => cluster.cutoff.getTime()));
  const expired = (await intervalPartitions(db)).filter((week) => week.to.getTime() <= oldestCutoff);
  const ids = clusters.map((cluster) => cluster.id);
  const cutoffs = clusters.map((cluster) => cluster.cutoff);
  const dropped: DroppedPartition[] = [];
  for (const week of expired) {
    const table = Prisma.raw(`"${week.name}"`);
    const kept = Prisma.sql`i.valid_to IS NULL OR c.cutoff IS NULL OR i.valid_to >= c.cutoff`;
    const withCutoff = Prisma.sql`${table} i
      LEFT JOIN unnest(${ids}::uuid[], ${cutoffs}::timestamptz[]) AS c(id, cutoff) ON c.id = i.cluster_id`;
    let result;
    try {
      result = await inPartitionTransaction(db, async (tx) => {
        await tx.$executeRaw`ALTER TABLE ${Prisma.raw(PARENT)} DETACH PARTITION ${table}`;
        const counts = await tx.$queryRaw<{ cluster_id: string; removed: bigint }[]>`
          SELECT i.cluster_id::text, count(*) FILTER (WHERE NOT (${kept}))::bigint AS removed
            FROM ${withCutoff} GROUP BY i.cluster_id`;
        const keptRows = await tx.$executeRaw`
          INSERT INTO ${Prisma.raw(PARENT)} SELECT i.* FROM ${withCutoff} WHERE ${kept}`;
        await tx.$executeRaw`DROP TABLE ${table}`;
        return { counts, keptRows };
      });
    } catch (error) {
      // The weeks dropped so far are returned: their clusters' roll-ups must still follow.
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

/** A partition change: short, and giving up (until the next run) rather than queueing readers behind it. */
async function inPartitionTransaction<T>(
  db: PrismaClient,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`;
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
