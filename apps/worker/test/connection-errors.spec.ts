import { createDbPool, createPrismaClient, inPgTransaction } from '@zw/db';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionError } from '../src/connection-errors.js';
import { outageBackoffMs } from '../src/dependency-outages.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { freePort } from '../../../test/support/private-services.js';

/**
 * Errors as the real clients raise them: Prisma (pg driver adapter), pg and ioredis against a port
 * nothing listens on are connection errors; a statement's own failure against a live Postgres is not.
 */

let db: TestDatabase;
let closedPort: number;

beforeAll(async () => {
  db = await createTestDatabase('connerrors');
  closedPort = await freePort();
});

afterAll(async () => {
  await db?.drop();
});

async function errorOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('isConnectionError', () => {
  it('recognizes an unreachable Postgres through Prisma (raw and model queries, transactions) and pg', async () => {
    const prisma = createPrismaClient({
      databaseUrl: `postgresql://postgres@127.0.0.1:${closedPort}/none`,
      poolMax: 1,
    });
    try {
      expect(isConnectionError(await errorOf(() => prisma.$queryRaw`SELECT 1`))).toBe(true);
      expect(isConnectionError(await errorOf(() => prisma.snapshot.count()))).toBe(true);
      expect(isConnectionError(await errorOf(() => prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`)))).toBe(
        true,
      );
    } finally {
      await prisma.$disconnect();
    }
    const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${closedPort}/none` });
    expect(isConnectionError(await errorOf(() => client.connect()))).toBe(true);
  });

  it("recognizes a lost Postgres in the snapshot writes' pg transactions (inPgTransaction)", async () => {
    const tx = { timeoutMs: 10_000, maxWaitMs: 10_000 };
    const unreachable = createDbPool({ databaseUrl: `postgresql://postgres@127.0.0.1:${closedPort}/none`, poolMax: 1 });
    const live = createDbPool({ databaseUrl: db.url, poolMax: 1 });
    try {
      expect(
        isConnectionError(await errorOf(() => inPgTransaction(unreachable, tx, (sql) => sql.$queryRaw`SELECT 1`))),
      ).toBe(true);
      // The server ends the connection mid-transaction (as on a restart: admin shutdown, 57P01).
      const terminated = await errorOf(() =>
        inPgTransaction(live, tx, (sql) => sql.$queryRaw`SELECT pg_terminate_backend(pg_backend_pid())`),
      );
      expect(isConnectionError(terminated)).toBe(true);
      expect(
        isConnectionError(await errorOf(() => inPgTransaction(live, tx, (sql) => sql.$queryRaw`SELECT 1/0`))),
      ).toBe(false);
    } finally {
      await Promise.all([unreachable.end(), live.end()]);
    }
  });

  it('recognizes an unreachable Redis through ioredis', async () => {
    const redis = new Redis({ port: closedPort, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    try {
      expect(isConnectionError(await errorOf(() => redis.ping()))).toBe(true);
    } finally {
      redis.disconnect();
    }
  });

  it("does not take a statement's own failure on a live Postgres for one", async () => {
    const prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 1 });
    try {
      expect(isConnectionError(await errorOf(() => prisma.$queryRaw`SELECT 1/0`))).toBe(false);
      expect(isConnectionError(await errorOf(() => prisma.$queryRaw`SELECT * FROM no_such_table`))).toBe(false);
      expect(isConnectionError(await errorOf(() => prisma.$queryRaw`SELECT ${'not a uuid'}::uuid`))).toBe(false);
    } finally {
      await prisma.$disconnect();
    }
    expect(isConnectionError(new Error('boolean false is not iterable'))).toBe(false);
    expect(isConnectionError(null)).toBe(false);
  });

  it('looks through causes, including cycles', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const outer = new Error('could not record', { cause: inner });
    const cyclic: Error & { cause?: unknown } = new Error('loop');
    cyclic.cause = cyclic;
    expect(isConnectionError(outer)).toBe(true);
    expect(isConnectionError(cyclic)).toBe(false);
  });
});

describe('outageBackoffMs', () => {
  it('doubles from the first delay up to the maximum, within ±20 %', () => {
    const middle = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 40].map((retry) => outageBackoffMs(retry, 500, 10_000, middle))).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect(outageBackoffMs(10, 500, 10_000, () => 0)).toBe(8000);
    expect(outageBackoffMs(10, 500, 10_000, () => 0.999999)).toBeLessThanOrEqual(12_000);
  });
});
