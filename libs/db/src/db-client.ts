import type { Prisma, PrismaClient } from './generated/prisma/client.js';

/** Either the client or an interactive transaction's client: helpers take whichever the caller holds. */
export type Db = PrismaClient | Prisma.TransactionClient;
