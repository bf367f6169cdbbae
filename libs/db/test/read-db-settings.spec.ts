import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../../../test/support/databases.js';
import { ReadDb } from '../src/index.js';

/**
 * A statement's own settings (ReadDb.query's `settings`): they hold for that statement alone, on one
 * connection of the pool; the session's value is back for the next statement, whether the statement
 * answered or failed, and a failed one leaves the pool usable.
 */

let db: ReadDb;

beforeAll(() => {
  // One connection: every statement below runs on the same session.
  db = new ReadDb({ databaseUrl: databaseUrl('postgres'), poolMax: 1 });
});

afterAll(async () => {
  await db?.end();
});

const workMem = async (settings?: Record<string, string>) =>
  (await db.query<{ work_mem: string }>('SELECT current_setting($1) AS work_mem', ['work_mem'], settings))[0].work_mem;

describe('a statement with settings of its own', () => {
  it('runs with them, and the session keeps its own for the next statements', async () => {
    const session = await workMem();
    expect(session).not.toBe('77MB');
    expect(await workMem({ work_mem: '77MB' })).toBe('77MB');
    expect(await workMem()).toBe(session);
  });

  it('runs read-only', async () => {
    await expect(db.query('CREATE TEMPORARY TABLE t (x int)', [], { work_mem: '8MB' })).rejects.toThrow(
      /read-only transaction/,
    );
  });

  it('fails as the statement fails, and leaves the pool usable with the session unchanged', async () => {
    const session = await workMem();
    await expect(db.query('SELECT 1 / (0 * $1::int)', [1], { work_mem: '77MB' })).rejects.toThrow(/division by zero/);
    await expect(db.query('SELECT 1', [], { work_mem: 'not a size' })).rejects.toThrow(/work_mem/);
    expect(await workMem()).toBe(session);
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
