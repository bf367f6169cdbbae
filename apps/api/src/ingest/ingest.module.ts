import { Module } from '@nestjs/common';
import { registerQueues } from '../queues.js';
import { SNAPSHOTS_QUEUE } from '@zw/queue';
import { RateStorageModule } from '../auth/rate-storage.module.js';
import { AgentAuthGuard } from './agent-auth.guard.js';
import { IngestRateLimitGuard } from './ingest-rate-limit.guard.js';
import { IngestController } from './ingest.controller.js';
import { IngestService } from './ingest.service.js';
import { compiledIngestThreadFile, INGEST_THREAD_FILE, SnapshotReader } from './snapshot-reader.js';

@Module({
  imports: [registerQueues(SNAPSHOTS_QUEUE), RateStorageModule],
  controllers: [IngestController],
  providers: [
    IngestService,
    AgentAuthGuard,
    IngestRateLimitGuard,
    SnapshotReader,
    { provide: INGEST_THREAD_FILE, useFactory: compiledIngestThreadFile },
  ],
})
export class IngestModule {}
