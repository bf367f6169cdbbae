import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../../../test/support/databases.js';
import { repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import { createPrismaClient, pingDatabase, ReadDb } from '../src/index.js';

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_health');
});

afterAll(async () => {
  await db?.drop();
});

describe('pingDatabase', () => {
  it('answers through Prisma, a transaction and the read pool', async () => {
    await expect(pingDatabase(db.prisma)).resolves.toBeUndefined();
    await expect(db.prisma.$transaction((tx) => pingDatabase(tx))).resolves.toBeUndefined();
    await expect(pingDatabase(db.readDb)).resolves.toBeUndefined();
  });

  it('rejects when the database cannot answer', async () => {
    const url = databaseUrl('zw_test_no_such_database');
    const prisma = createPrismaClient({ databaseUrl: url, poolMax: 1 });
    const readDb = new ReadDb({ databaseUrl: url, poolMax: 1 });
    try {
      await expect(pingDatabase(prisma)).rejects.toThrow();
      await expect(pingDatabase(readDb)).rejects.toThrow(/zw_test_no_such_database/);
    } finally {
      await Promise.all([prisma.$disconnect(), readDb.end()]);
    }
  });
});
