import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import {
  ClusterBusyError,
  inPgTransaction,
  lockCluster,
  Prisma,
  PrismaService,
  type SqlClient,
  TransactionTimeoutError,
} from '../src/index.js';

/**
 * The worker's snapshot writes run on pg directly (inPgTransaction) rather than in Prisma's interactive
 * transactions: the same statements must bind and answer as they do through Prisma, and the transaction
 * must keep Prisma's guarantees (rollback on error or timeout, the cluster lock's bounded wait).
 */

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_sql_client');
  await db.prisma.$executeRawUnsafe('CREATE TABLE tx_probe (cluster_id uuid NOT NULL, note text NOT NULL)');
});

afterAll(async () => {
  await db?.drop();
});

const TX = { timeoutMs: 60_000, maxWaitMs: 10_000 };

function inTx<T>(work: (tx: SqlClient) => Promise<T>, options = TX): Promise<T> {
  return inPgTransaction(db.pool, options, work);
}

async function notesOf(clusterId: string): Promise<string[]> {
  const rows = await db.prisma.$queryRaw<{ note: string }[]>`
    SELECT note FROM tx_probe WHERE cluster_id = ${clusterId}::uuid ORDER BY note`;
  return rows.map((row) => row.note);
}

/** A statement binding and returning each type the history's statements use. */
function everyType(tx: SqlClient) {
  const at = new Date(Date.UTC(2026, 10, 29, 5, 6, 7, 891));
  return tx.$queryRaw<Record<string, unknown>[]>`
    SELECT ${123456789012345678n}::bigint AS big, ${[1n, -2n, null]}::bigint[] AS bigs,
           ${at}::timestamptz AS at, ${[at, at.toISOString()]}::timestamptz[] AS ats,
           ${'{"a":[1,2.5,null],"b":{"c":"d"}}'}::jsonb AS doc, ${'[1]'}::json AS json_doc,
           ${42}::int AS small, ${0.1}::float8 AS fraction, ${1e-7}::float8 AS tiny, ${true}::boolean AS yes,
           ${null}::text AS nothing, ${['a', null, 'b "c", d']}::text[] AS texts,
           encode(${new Uint8Array([0, 255, 16])}::bytea, 'hex') AS bytes, count(*) AS counted,
           ${randomUUID()}::uuid = ${randomUUID()}::uuid AS same, NULL::bigint AS no_big, NULL::timestamptz AS no_at
      FROM (VALUES (1), (2)) AS two(n)`;
}

describe('inPgTransaction', () => {
  it("binds parameters and answers with the types Prisma's $queryRaw gives", async () => {
    const throughPrisma = await db.prisma.$transaction((tx) => everyType(tx));
    const throughPg = await inTx((tx) => everyType(tx));

    expect(throughPg).toEqual(throughPrisma);
    expect(throughPg[0]).toMatchObject({
      big: 123456789012345678n,
      bigs: [1n, -2n, null],
      at: new Date(Date.UTC(2026, 10, 29, 5, 6, 7, 891)),
      doc: { a: [1, 2.5, null], b: { c: 'd' } },
      json_doc: [1],
      small: 42,
      fraction: 0.1,
      tiny: 1e-7,
      yes: true,
      nothing: null,
      texts: ['a', null, 'b "c", d'],
      bytes: '00ff10',
      counted: 2n,
      no_big: null,
      no_at: null,
    });
  });

  it('runs Prisma.sql fragments (joined, raw, empty) and unsafe statements as Prisma does', async () => {
    const clusterId = randomUUID();
    const notes = ['one', 'two'].map((note) => Prisma.sql`(${clusterId}::uuid, ${note})`);
    await inTx(async (tx) => {
      const inserted = await tx.$executeRaw`
        INSERT INTO ${Prisma.raw('tx_probe')} (cluster_id, note) VALUES ${Prisma.join(notes)}${Prisma.empty}`;
      expect(inserted).toBe(2);
      const [row] = await tx.$queryRaw<{ n: bigint }[]>(
        Prisma.sql`SELECT count(*) AS n FROM tx_probe WHERE cluster_id = ${clusterId}::uuid`,
      );
      expect(row.n).toBe(2n);
      expect(
        await tx.$executeRawUnsafe('DELETE FROM tx_probe WHERE cluster_id = $1::uuid AND note = $2', clusterId, 'one'),
      ).toBe(1);
    });
    expect(await notesOf(clusterId)).toEqual(['two']);
  });

  it('prepares a statement once per connection, answering alike at every run and after its table changed', async () => {
    const clusterId = randomUUID();
    const notesAt = (tx: SqlClient, notes: string[]) =>
      tx.$queryRaw<{ note: string }[]>`
        SELECT note FROM tx_probe WHERE cluster_id = ${clusterId}::uuid AND note = ANY(${notes}::text[]) ORDER BY note`;
    const prepared = (tx: SqlClient) =>
      tx.$queryRaw<
        { n: bigint }[]
      >`SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%ANY($2::text[]) ORDER BY note'`;

    await inTx(async (tx) => {
      await tx.$executeRaw`INSERT INTO tx_probe (cluster_id, note) SELECT ${clusterId}::uuid, 'n' || g FROM generate_series(1, 9) g`;
      // Past the fifth run Postgres may plan it once for any parameters (plan_cache_mode auto).
      for (let n = 1; n <= 9; n++) {
        const wanted = Array.from({ length: n }, (_, i) => `n${i + 1}`).concat('absent');
        expect((await notesAt(tx, wanted)).map((row) => row.note)).toEqual(wanted.slice(0, n));
      }
      expect(await prepared(tx)).toEqual([{ n: 1n }]);
      await tx.$executeRaw`ALTER TABLE tx_probe ADD COLUMN extra int`;
      expect(await notesAt(tx, ['n2', 'n3'])).toEqual([{ note: 'n2' }, { note: 'n3' }]);
      await tx.$executeRaw`ALTER TABLE tx_probe DROP COLUMN extra`;
    });
  });

  it('commits what the work wrote, and rolls all of it back when the work throws', async () => {
    const clusterId = randomUUID();
    const write = (tx: SqlClient, note: string) =>
      tx.$executeRaw`INSERT INTO tx_probe (cluster_id, note) VALUES (${clusterId}::uuid, ${note})`;

    expect(await inTx(async (tx) => (await write(tx, 'kept')) && 'done')).toBe('done');
    const failing = inTx(async (tx) => {
      await write(tx, 'lost');
      throw new Error('the work failed');
    });
    await expect(failing).rejects.toThrow('the work failed');
    await expect(inTx(async (tx) => write(tx, 'lost too').then(() => tx.$queryRaw`SELECT 1/0`))).rejects.toMatchObject({
      code: '22012',
    });

    expect(await notesOf(clusterId)).toEqual(['kept']);
    // Every connection went back to the pool in a usable state.
    expect(await inTx((tx) => tx.$queryRaw`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('rolls back a transaction open past its timeout and frees its cluster lock', async () => {
    const clusterId = randomUUID();
    let resume!: () => void;
    const held = new Promise<void>((resolve) => (resume = resolve));
    let lateStatement!: (late: { attempt: Promise<unknown> }) => void;
    const late = new Promise<{ attempt: Promise<unknown> }>((resolve) => (lateStatement = resolve));
    const stuck = inTx(
      async (tx) => {
        await lockCluster(tx, clusterId, 1000);
        await tx.$executeRaw`INSERT INTO tx_probe (cluster_id, note) VALUES (${clusterId}::uuid, 'stuck')`;
        await held;
        const attempt = tx.$queryRaw`SELECT 1`;
        lateStatement({ attempt });
        await attempt;
      },
      { timeoutMs: 300, maxWaitMs: 10_000 },
    );

    await expect(stuck).rejects.toBeInstanceOf(TransactionTimeoutError);
    resume();
    // What the work still runs fails: its transaction is gone.
    await expect((await late).attempt).rejects.toThrow();
    // Another writer gets the cluster (it would fail with ClusterBusyError were the lock still held).
    await inTx((tx) => lockCluster(tx, clusterId, 10_000));
    expect(await notesOf(clusterId)).toEqual([]);
  });

  it("fails with ClusterBusyError while another transaction holds the cluster's lock", async () => {
    const clusterId = randomUUID();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = inTx(async (tx) => {
      await lockCluster(tx, clusterId, 1000);
      locked();
      await released;
    });
    await isLocked;
    try {
      const attempt = inTx((tx) => lockCluster(tx, clusterId, 20));
      await expect(attempt).rejects.toBeInstanceOf(ClusterBusyError);
      await expect(attempt).rejects.toMatchObject({ waitedMs: 20 });
    } finally {
      release();
      await holder;
    }
    await inTx((tx) => lockCluster(tx, clusterId, 20));
  });

  it("runs on the pool Prisma uses, with the pool's session settings", async () => {
    const service = new PrismaService({ databaseUrl: urlOf(db), poolMax: 1 });
    try {
      await service.$queryRaw`SELECT 1`;
      expect(service.pool.totalCount).toBe(1);
      const [{ jit }] = await inPgTransaction(service.pool, TX, (tx) => tx.$queryRaw<{ jit: string }[]>`SHOW jit`);
      expect(jit).toBe('off');
      expect(service.pool.totalCount).toBe(1);
    } finally {
      await service.$disconnect();
    }
    expect(service.pool.ended).toBe(true);
  });
});

/** The test database's URL, as its pool was given it. */
function urlOf(database: RepositoryDatabase): string {
  return (database.pool.options as { connectionString: string }).connectionString;
}
