import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type ClusterCutoff,
  dropExpiredIntervalPartitions,
  ensureIntervalPartitions,
  historyCutoffs,
  lockCluster,
  PrismaService,
  pruneAuditLog,
  pruneClusterHistory,
  pruneSessions,
  pruneSignInAttempts,
  pruneSnapshotPayloads,
  pruneSnapshots,
} from '@zw/db';
import type { WorkerConfig } from './config.js';
import { ReadModelPublisher } from './read-model-events.js';
import { WORKER_CONFIG } from './worker-config.token.js';

export interface RetentionResult {
  payloadsDeleted: number;
  snapshotsDeleted: number;
  intervalsDeleted: number;
  /** Weekly partitions of service_intervals dropped whole (their intervals are counted in intervalsDeleted). */
  partitionsDropped: number;
  /** Weekly partitions of service_intervals created ahead. */
  partitionsCreated: number;
  servicesDeleted: number;
  auditEntriesDeleted: number;
  /** Dashboard sessions ended more than a day ago, and sign-ins never finished. */
  sessionsDeleted: number;
}

const BATCH = 1000;
/** Weeks of service_intervals partitions kept created ahead of the current one. */
const WEEKS_AHEAD = 2;

/**
 * Keeps storage bounded: raw payloads past their retention, per-snapshot rows (snapshot and its
 * aggregates) and closed history intervals past the history retention (whole weekly partitions of
 * intervals are dropped once every organization's retention has passed them, the intervals still held
 * moved out first; the rest are deleted row by row), audit entries past AUDIT_LOG_RETENTION_DAYS,
 * dashboard sessions a day after they ended and unfinished sign-ins. It also creates the coming weeks'
 * partitions. Organizations may override the payload and history periods (libs/db retention.ts).
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger('Retention');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
    @Inject(ReadModelPublisher) private readonly readModel: ReadModelPublisher,
  ) {}

  async prune(now = new Date()): Promise<RetentionResult> {
    const partitionsCreated = (
      await this.partitionChange('creating weeks ahead', () => ensureIntervalPartitions(this.prisma, now, WEEKS_AHEAD))
    ).length;
    const payloadsDeleted = await pruneSnapshotPayloads(this.prisma, {
      now,
      defaultDays: this.config.PAYLOAD_RETENTION_DAYS,
      batch: BATCH,
    });
    const history = { now, defaultDays: this.config.HISTORY_RETENTION_DAYS, batch: BATCH };
    const snapshotsDeleted = await pruneSnapshots(this.prisma, history);
    const { intervalsDeleted, servicesDeleted, partitionsDropped } = await this.pruneIntervals(
      await historyCutoffs(this.prisma, history),
    );
    const auditEntriesDeleted = await pruneAuditLog(
      this.prisma,
      new Date(now.getTime() - this.config.AUDIT_LOG_RETENTION_DAYS * 24 * 3600_000),
      BATCH,
    );
    const sessionsDeleted =
      (await pruneSessions(this.prisma, new Date(now.getTime() - 24 * 3600_000))) +
      (await pruneSignInAttempts(this.prisma, now));
    const result = {
      payloadsDeleted,
      snapshotsDeleted,
      intervalsDeleted,
      partitionsDropped,
      partitionsCreated,
      servicesDeleted,
      auditEntriesDeleted,
      sessionsDeleted,
    };
    if (Object.values(result).some((count) => count > 0)) this.logger.log(`pruned ${JSON.stringify(result)}`);
    return result;
  }

  /**
   * Whole partitions first, then per cluster, under its lock: a snapshot being recorded meanwhile must
   * not see half-pruned history (the roll-up's days before the cutoff are summed again there).
   */
  private async pruneIntervals(clusters: ClusterCutoff[]) {
    const dropped = await dropExpiredIntervalPartitions(this.prisma, clusters, (week, error) =>
      this.logger.warn(`dropping ${week} failed, left for the next run: ${String(error)}`),
    );
    const droppedOf = (clusterId: string) =>
      dropped.reduce((sum, partition) => sum + (partition.removedByCluster.get(clusterId) ?? 0), 0);
    let intervalsDeleted = 0;
    let servicesDeleted = 0;
    for (const cluster of clusters) {
      const pruned = await this.prisma.$transaction(async (tx) => {
        await lockCluster(tx, cluster.id, this.config.WORKER_LOCK_WAIT_MS);
        return pruneClusterHistory(tx, cluster, droppedOf(cluster.id));
      });
      intervalsDeleted += pruned.intervals;
      servicesDeleted += pruned.services;
      if (pruned.intervals > 0) this.readModel.clusterChanged(cluster.id);
    }
    return { intervalsDeleted, servicesDeleted, partitionsDropped: dropped.length };
  }

  /**
   * A partition change that cannot get its locks in time (busy readers or writers) waits for the next
   * run: nothing depends on it, as the default partition takes what no week holds and the intervals
   * past retention are then deleted row by row.
   */
  private async partitionChange<T>(what: string, change: () => Promise<T[]>): Promise<T[]> {
    try {
      return await change();
    } catch (error) {
      this.logger.warn(`${what} failed, left for the next run: ${String(error)}`);
      return [];
    }
  }
}
