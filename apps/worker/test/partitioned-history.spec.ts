import { ensureIntervalPartitions, intervalPartitions } from '@zw/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSameAnswer } from '../../../test/support/same-answer.js';
import {
  answers,
  type Copies,
  type Copy,
  DAY,
  dropCopies,
  migratedCopies,
  NOW,
  retain,
  SERVICES,
  T0,
  WEEKS,
} from './support/partitioned-history.js';

/**
 * service_intervals partitioned by week: the same history, recorded by the worker's writer on the schema
 * before the partitioning migration, answers the same after it (all of it in the default partition),
 * after its weeks were created (rows moved into them), and after retention dropped whole weeks of it as
 * a copy that kept every row in the default partition, which retention prunes row by row, answers.
 */

const MIGRATION = '_service_intervals_partitioned';
let weekly: Copy;
let rowByRow: Copy;
let before: unknown;
let copies: Copies | undefined;

beforeAll(async () => {
  copies = await migratedCopies('partitioned', MIGRATION);
  ({ weekly, rowByRow, before } = copies);
}, 300_000);

afterAll(() => dropCopies(copies));

describe('history in weekly partitions', () => {
  it('answers as before the migration, which kept every interval', async () => {
    expectSameAnswer(await answers(weekly), before, 'after the migration');
    expectSameAnswer(await answers(rowByRow), before, 'the other copy');
  });

  it('answers the same once its weeks are created and hold their intervals', async () => {
    const created = await ensureIntervalPartitions(weekly.prisma, new Date(T0), WEEKS);
    expect(created).toHaveLength(WEEKS + 1);
    const [{ left }] = await weekly.prisma.$queryRaw<{ left: bigint }[]>`
      SELECT count(*) AS left FROM service_intervals_default`;
    expect(left).toBe(0n);
    expectSameAnswer(await answers(weekly), before, 'in weekly partitions');
  });

  it('retention drops whole weeks and answers as retention deleting the same rows one by one', async () => {
    const dropped = await retain(weekly);
    const deleted = await retain(rowByRow);
    expect(dropped.partitionsDropped).toBe(2);
    expect(deleted.partitionsDropped).toBe(0);
    expect(dropped.intervalsDeleted).toBeGreaterThan(SERVICES);
    const pruned = ({ intervalsDeleted, servicesDeleted, snapshotsDeleted }: typeof dropped) => ({
      intervalsDeleted,
      servicesDeleted,
      snapshotsDeleted,
    });
    expect(pruned(dropped)).toEqual(pruned(deleted));
    const weeks = (await intervalPartitions(weekly.prisma)).map((week) => week.name);
    expect(weeks).not.toContain('service_intervals_w20260601');
    expect(weeks).not.toContain('service_intervals_w20260608');
    expect(weeks).toContain('service_intervals_w20260615');
    const after = await answers(weekly);
    expectSameAnswer(after, await answers(rowByRow), 'dropped against deleted');
    // What retention keeps: svc-0's state since the first snapshot, and svc-1's held past the cutoff.
    const history = (after as { history: { intervals: string[] } }).history.intervals.map((row) => JSON.parse(row));
    const first = new Date(T0).toISOString();
    expect(history.filter((row) => row[2] === first).map((row) => [row[1], row[3] === null])).toEqual([
      ['svc-0', true],
      ['svc-1', false],
    ]);
  });

  it('prunes row by row when a partition change cannot get its locks, and answers the same', async () => {
    // Three weeks later: the week of 2026-06-15 is past every cutoff and new weeks are due.
    const later = new Date(NOW.getTime() + 21 * DAY);
    const blocker = new pg.Client({ connectionString: weekly.db.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE service_intervals_default IN ROW EXCLUSIVE MODE');
      await blocker.query('LOCK TABLE service_intervals_w20260615 IN ACCESS SHARE MODE');
      const weeks = await intervalPartitions(weekly.prisma);
      const blocked = await retain(weekly, later);
      // No week of intervals created or dropped (the other tables' weeks are not blocked).
      expect(await intervalPartitions(weekly.prisma)).toEqual(weeks);
      const deleted = await retain(rowByRow, later);
      expect(blocked.intervalsDeleted).toBe(deleted.intervalsDeleted);
      expect(blocked.intervalsDeleted).toBeGreaterThan(0);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    expectSameAnswer(await answers(weekly), await answers(rowByRow), 'blocked against deleted');
  }, 120_000);
});
