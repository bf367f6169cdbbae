import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.js';
import { sessionOptions } from './session-settings.js';

export interface DbOptions {
  /** postgresql://user[:password]@host:port/database */
  databaseUrl: string;
  /** Most connections this process opens (pg Pool `max`). */
  poolMax?: number;
}

/** The one way this code base builds a Prisma client: the pg driver adapter (Prisma 7 has no built-in driver). */
export function prismaClientOptions({ databaseUrl, poolMax = 10 }: DbOptions) {
  return { adapter: new PrismaPg({ connectionString: databaseUrl, max: poolMax, options: sessionOptions() }) };
}

export function createPrismaClient(options: DbOptions): PrismaClient {
  return new PrismaClient(prismaClientOptions(options));
}
