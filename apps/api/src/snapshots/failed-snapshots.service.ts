import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type AuditActor, listFailedSnapshots, PrismaService } from '@zw/db';
import { SNAPSHOTS_QUEUE } from '@zw/queue';
import type { Queue } from 'bullmq';
import type { z } from 'zod';
import type { ApiConfig } from '../config.js';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import type {
  FailedSnapshotListView,
  FailedSnapshotsQuery,
  RedriveBody,
  RedriveResultView,
} from './failed-snapshots.schemas.js';
import { redriveFailedSnapshots } from './redrive.js';

/** The dead letters of an organization (failed snapshots) and their re-drive. */
@Injectable()
export class FailedSnapshotsService {
  private readonly logger = new Logger('FailedSnapshots');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(SNAPSHOTS_QUEUE) private readonly queue: Queue,
    @Inject(ConfigService) private readonly config: ConfigService<ApiConfig, true>,
  ) {}

  async list(organizationId: string, input: z.output<typeof FailedSnapshotsQuery>): Promise<FailedSnapshotListView> {
    const print = fingerprint(['failed-snapshots', input.clusterId, input.since]);
    const after = decodeCursor(input.cursor, print);
    const rows = await listFailedSnapshots(
      this.prisma,
      { organizationId, clusterId: input.clusterId, since: input.since ? new Date(input.since) : undefined },
      {
        limit: input.limit + 1,
        after: after ? { failedAt: new Date(String(after.k[0])), id: String(after.k[1]) } : undefined,
      },
    );
    const page = rows.slice(0, input.limit);
    const last = page[page.length - 1];
    return {
      snapshots: page.map((row) => ({
        snapshotId: row.id,
        clusterId: row.clusterId,
        clusterName: row.clusterName,
        capturedAt: row.capturedAt.toISOString(),
        receivedAt: row.receivedAt.toISOString(),
        failedAt: row.failedAt.toISOString(),
        attempts: row.attempts,
        error: row.error,
      })),
      nextCursor:
        rows.length > input.limit ? encodeCursor({ f: print, k: [last.failedAt.toISOString(), last.id] }) : null,
    };
  }

  /** Re-drives the selected failed snapshots of the organization (see redriveFailedSnapshots). */
  async redrive(
    organizationId: string,
    input: z.output<typeof RedriveBody>,
    actor: AuditActor,
  ): Promise<RedriveResultView> {
    const retry = {
      attempts: this.config.get('JOB_ATTEMPTS', { infer: true }),
      backoffMs: this.config.get('JOB_BACKOFF_MS', { infer: true }),
    };
    const selection = {
      organizationId,
      snapshotIds: input.snapshotIds,
      clusterId: input.clusterId,
      since: input.since ? new Date(input.since) : undefined,
      all: input.all,
    };
    const outcome = await redriveFailedSnapshots(this.prisma, this.queue, selection, actor, retry);
    if (!outcome.queued) this.logger.warn('re-driven snapshots not all queued (Redis); the sweeper will queue them');
    return { redriven: outcome.snapshotIds.length, snapshotIds: outcome.snapshotIds };
  }
}
