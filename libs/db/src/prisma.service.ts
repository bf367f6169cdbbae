import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';
import { createDbPool, type DbOptions, prismaClientOptions } from './prisma-client.js';

export const DB_OPTIONS = Symbol('DB_OPTIONS');

@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  /** The pool the client runs on, for statements that bypass Prisma (inPgTransaction). */
  readonly pool: pg.Pool;

  constructor(@Inject(DB_OPTIONS) options: DbOptions) {
    const pool = createDbPool(options);
    super(prismaClientOptions(options, pool));
    this.pool = pool;
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
