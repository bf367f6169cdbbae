import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';
import { sessionOptions } from './session-settings.js';

export interface DbOptions {
  /** postgresql://user[:password]@host:port/database */
  databaseUrl: string;
  /** Most connections this process opens (pg Pool `max`). */
  poolMax?: number;
}

/**
 * The pool a process' Prisma client runs on. The worker's snapshot writes bypass Prisma on this same pool
 * (inPgTransaction), so they count against the same `poolMax` and open connections with the same
 * session settings.
 */
export function createDbPool({ databaseUrl, poolMax = 10 }: DbOptions): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax, options: sessionOptions() });
  // An idle connection lost (Postgres restarted) before Prisma listens must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * The one way this code base builds a Prisma client: the pg driver adapter (Prisma 7 has no built-in
 * driver), on `pool` when given; disconnecting the client ends the pool.
 */
export function prismaClientOptions(options: DbOptions, pool: pg.Pool = createDbPool(options)) {
  return { adapter: new PrismaPg(pool, { disposeExternalPool: true }) };
}

export function createPrismaClient(options: DbOptions): PrismaClient {
  return new PrismaClient(prismaClientOptions(options));
}
