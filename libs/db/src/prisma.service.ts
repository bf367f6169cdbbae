import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaClient } from './generated/prisma/client.js';
import { type DbOptions, prismaClientOptions } from './prisma-client.js';

export const DB_OPTIONS = Symbol('DB_OPTIONS');

@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(@Inject(DB_OPTIONS) options: DbOptions) {
    super(prismaClientOptions(options));
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
