import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { QueryQueuesModule } from '../queues.js';
import { ApiKeysController } from '../api-keys/api-keys.controller.js';
import { MeController } from '../auth/me.controller.js';
import { FailedSnapshotsController } from '../snapshots/failed-snapshots.controller.js';
import { FailedSnapshotsService } from '../snapshots/failed-snapshots.service.js';

/** The organization's administration: API keys, who is calling, failed snapshots and their re-drive. */
@Module({
  imports: [AuthModule, QueryQueuesModule],
  controllers: [ApiKeysController, MeController, FailedSnapshotsController],
  providers: [FailedSnapshotsService],
})
export class AdminModule {}
