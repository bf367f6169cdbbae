import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { SNAPSHOTS_QUEUE } from '@zw/queue';
import { RateStorageModule } from '../auth/rate-storage.module.js';
import { TokenBuckets } from '../auth/token-buckets.js';
import { AgentAuthGuard } from './agent-auth.guard.js';
import { IngestRateLimitGuard } from './ingest-rate-limit.guard.js';
import { IngestController } from './ingest.controller.js';
import { IngestService } from './ingest.service.js';
import { compiledIngestThreadFile, INGEST_THREAD_FILE, SnapshotReader } from './snapshot-reader.js';

@Module({
  imports: [BullModule.registerQueue({ name: SNAPSHOTS_QUEUE }), RateStorageModule],
  controllers: [IngestController],
  providers: [
    IngestService,
    AgentAuthGuard,
    IngestRateLimitGuard,
    { provide: TokenBuckets, useFactory: () => new TokenBuckets(60_000) },
    SnapshotReader,
    { provide: INGEST_THREAD_FILE, useFactory: compiledIngestThreadFile },
  ],
})
export class IngestModule {}
