import type { Db } from './db-client.js';
import type { ReadDb } from './read-db.js';

/**
 * Asks Postgres the cheapest statement; rejects when it does not answer. Through a read pool it asks the
 * server that pool's reads go to (the replica while it is fresh enough), as readiness should.
 */
export async function pingDatabase(db: Db | ReadDb): Promise<void> {
  if ('$queryRaw' in db) await db.$queryRaw`SELECT 1`;
  else await db.query('SELECT 1');
}
