import { Module } from '@nestjs/common';
import { HeavyReadBudget } from './heavy-reads/heavy-read-budget.js';
import { HeavyReadDbCloser, heavyReadDbProvider } from './heavy-reads/heavy-read-db.provider.js';
import { ReadDbCloser, readDbProvider, ReplicaReadDbCloser, replicaReadDbProvider } from './read-db.provider.js';
import { ApiRedisModule } from './redis.provider.js';

/** The read pools: light reads, reads a replica may serve, and heavy reads inside each organization's budget. */
@Module({
  imports: [ApiRedisModule],
  providers: [
    readDbProvider,
    ReadDbCloser,
    replicaReadDbProvider,
    ReplicaReadDbCloser,
    heavyReadDbProvider,
    HeavyReadDbCloser,
    HeavyReadBudget,
  ],
  exports: [readDbProvider, replicaReadDbProvider, heavyReadDbProvider, HeavyReadBudget],
})
export class ReadDbModule {}
