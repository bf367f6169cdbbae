import {
  ensurePartitions,
  PARTITIONED_TABLES,
  PAYLOADS,
  type PrismaClient,
  SAVINGS_DAYS,
  SUMMARIES,
  weeklyPartitions,
} from '@zw/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSameAnswer } from '../../../test/support/same-answer.js';
import {
  answers,
  type Copies,
  type Copy,
  dropCopies,
  migratedCopies,
  retain,
  T0,
  WEEKS,
} from './support/partitioned-history.js';

/**
 * snapshot_summaries, snapshot_payloads (by captured_at) and service_savings_days (by day) partitioned by
 * week, like service_intervals: the same history, recorded by the worker's writer on the schema before
 * their migration, answers the same after it (every row carried over into the default partitions),
 * after every table's weeks were created (rows moved into them), and after retention dropped whole
 * weeks of each table as a copy that kept every row in the default partitions, which retention prunes
 * row by row, answers (the week holding a cutoff pruned row by row in both).
 */

const MIGRATION = '_history_tables_partitioned';
const NEW_TABLES = [SUMMARIES, PAYLOADS, SAVINGS_DAYS];

let weekly: Copy;
let rowByRow: Copy;
let before: unknown;
let copies: Copies | undefined;

beforeAll(async () => {
  copies = await migratedCopies('partitioned_tables', MIGRATION);
  ({ weekly, rowByRow, before } = copies);
}, 300_000);

afterAll(() => dropCopies(copies));

async function rowsByPartition(prisma: PrismaClient, parent: string): Promise<Record<string, number>> {
  const rows = await prisma.$queryRawUnsafe<{ partition: string; count: bigint }[]>(
    `SELECT tableoid::regclass::text AS partition, count(*) FROM "${parent}" GROUP BY 1 ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((row) => [row.partition, Number(row.count)]));
}

describe('summaries, payloads and the savings roll-up in weekly partitions', () => {
  it('carries every row over into the default partitions, payloads keyed by their snapshot', async () => {
    for (const table of NEW_TABLES) {
      const rows = await rowsByPartition(weekly.prisma, table.parent);
      expect(Object.keys(rows), table.parent).toEqual([`${table.parent}_default`]);
      expect(rows[`${table.parent}_default`], table.parent).toBeGreaterThan(WEEKS);
    }
    const [payloads] = await weekly.prisma.$queryRaw<{ all: bigint; keyed: bigint; snapshots: bigint }[]>`
      SELECT count(*) AS all, count(s.id) AS keyed, (SELECT count(*) FROM snapshots) AS snapshots
        FROM snapshot_payloads p LEFT JOIN snapshots s ON s.id = p.snapshot_id AND s.captured_at = p.captured_at`;
    expect([payloads.all, payloads.keyed]).toEqual([payloads.snapshots, payloads.snapshots]);
    expectSameAnswer(await answers(weekly), before, 'after the migration');
    expectSameAnswer(await answers(rowByRow), before, 'the other copy');
  });

  it('answers the same once every table has its weeks, which hold every row', async () => {
    for (const table of PARTITIONED_TABLES) {
      const created = await ensurePartitions(weekly.prisma, table, new Date(T0), WEEKS);
      expect(created, table.parent).toHaveLength(WEEKS + 1);
      expect(created[0]).toBe(`${table.parent}_w20260601`);
      expect(await ensurePartitions(weekly.prisma, table, new Date(T0), WEEKS)).toEqual([]);
      const rows = await rowsByPartition(weekly.prisma, table.parent);
      expect(rows[`${table.parent}_default`], table.parent).toBeUndefined();
      expect(Object.keys(rows).length, table.parent).toBeGreaterThanOrEqual(WEEKS);
    }
    expectSameAnswer(await answers(weekly), before, 'in weekly partitions');
  });

  it('reads a payload or a summary named by its captured-at time from one week', async () => {
    const plan = async (sql: string) =>
      JSON.stringify(await weekly.prisma.$queryRawUnsafe<unknown[]>(`EXPLAIN (FORMAT JSON) ${sql}`));
    const at = new Date(T0 + 9 * 24 * 3600_000).toISOString();
    const payload = await plan(
      `SELECT gzip FROM snapshot_payloads WHERE snapshot_id = gen_random_uuid() AND captured_at = '${at}'`,
    );
    expect(new Set(payload.match(/snapshot_payloads_w\d+/g))).toEqual(new Set(['snapshot_payloads_w20260608']));
    const summary = await plan(
      `SELECT * FROM snapshot_summaries WHERE cluster_id = gen_random_uuid() AND captured_at < '${at}'
        ORDER BY captured_at DESC LIMIT 1`,
    );
    expect(new Set(summary.match(/snapshot_summaries_w\d+/g))).toEqual(
      new Set(['snapshot_summaries_w20260601', 'snapshot_summaries_w20260608']),
    );
  });

  it('retention drops whole weeks of every table and answers as retention deleting the same rows one by one', async () => {
    // A snapshot of the first week waiting again (as if re-driven): its payload and summary stay.
    for (const copy of [weekly, rowByRow])
      await copy.prisma.$executeRaw`
        UPDATE snapshots SET status = 'queued'
         WHERE id = (SELECT id FROM snapshots ORDER BY captured_at OFFSET 1 LIMIT 1)`;
    const dropped = await retain(weekly);
    const deleted = await retain(rowByRow);
    // Two weeks of intervals, of roll-up and of summaries before the history cutoff (day 16.3), three of
    // payloads before the payload cutoff (day 25.5).
    expect(dropped.partitionsDropped).toBe(2 + 2 + 2 + 3);
    expect(deleted.partitionsDropped).toBe(0);
    const pruned = ({ payloadsDeleted, snapshotsDeleted, intervalsDeleted, servicesDeleted }: typeof dropped) => ({
      payloadsDeleted,
      snapshotsDeleted,
      intervalsDeleted,
      servicesDeleted,
    });
    expect(pruned(dropped)).toEqual(pruned(deleted));
    expect(dropped.payloadsDeleted).toBeGreaterThan(WEEKS);
    expect(dropped.snapshotsDeleted).toBeGreaterThan(WEEKS);
    // Each table's weeks from the cutoff's on, and the two after the current one (created by retention).
    const weeks = async (table: (typeof NEW_TABLES)[number]) =>
      (await weeklyPartitions(weekly.prisma, table)).map((week) => week.name.slice(-8));
    expect(await weeks(SUMMARIES)).toEqual(['20260615', '20260622', '20260629', '20260706', '20260713', '20260720']);
    expect(await weeks(SAVINGS_DAYS)).toEqual(['20260615', '20260622', '20260629', '20260706', '20260713', '20260720']);
    expect(await weeks(PAYLOADS)).toEqual(['20260622', '20260629', '20260706', '20260713', '20260720']);
    // Roll-up rows of the dropped weeks that an interval still held overlaps were kept, then summed again.
    const [{ kept }] = await weekly.prisma.$queryRaw<{ kept: bigint }[]>`
      SELECT count(*) AS kept FROM service_savings_days_default WHERE day < '2026-06-15'`;
    expect(kept).toBeGreaterThan(0n);
    const after = await answers(weekly);
    expectSameAnswer(after, await answers(rowByRow), 'dropped against deleted');
    const [waiting] = await weekly.prisma.$queryRaw<{ payload: boolean; summary: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM snapshot_payloads p WHERE p.snapshot_id = s.id) AS payload,
             EXISTS (SELECT 1 FROM snapshot_summaries m WHERE m.snapshot_id = s.id) AS summary
        FROM snapshots s WHERE s.status = 'queued'`;
    expect(waiting).toEqual({ payload: true, summary: true });
  });
});
