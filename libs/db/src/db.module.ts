import { type DynamicModule, Global, Module, type ModuleMetadata } from '@nestjs/common';
import type { DbOptions } from './prisma-client.js';
import { DB_OPTIONS, PrismaService } from './prisma.service.js';

export interface DbModuleAsyncOptions {
  imports?: ModuleMetadata['imports'];
  // Nest injection tokens are typed `any` by Nest itself.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  inject?: any[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory: (...args: any[]) => DbOptions | Promise<DbOptions>;
}

/** Provides one PrismaService to the whole application. */
@Global()
@Module({})
export class DbModule {
  static forRoot(options: DbOptions): DynamicModule {
    return {
      module: DbModule,
      providers: [{ provide: DB_OPTIONS, useValue: options }, PrismaService],
      exports: [PrismaService],
    };
  }

  static forRootAsync(options: DbModuleAsyncOptions): DynamicModule {
    return {
      module: DbModule,
      imports: options.imports ?? [],
      providers: [{ provide: DB_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] }, PrismaService],
      exports: [PrismaService],
    };
  }
}
