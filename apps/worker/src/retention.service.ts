import { Inject, Injectable, Logger } from '@nestjs/common';
import { DAY_MS } from '@zw/core';
import {
  type ClusterCutoff,
  type DroppedPartition,
  dropExpiredPartitions,
  ensurePartitions,
  historyCutoffs,
  INTERVALS,
  PARTITIONED_TABLES,
  type PartitionedTable,
  PAYLOADS,
  lockCluster,
  PrismaService,
  pruneAuditLog,
  pruneClusterHistory,
  pruneReports,
  pruneSessions,
  pruneSignInAttempts,
  pruneSnapshotPayloads,
  pruneSnapshots,
  SAVINGS_DAYS,
  SUMMARIES,
} from '@zw/db';
import type { WorkerConfig } from './config.js';
import { ReadModelPublisher } from './read-model-events.js';
import { WORKER_CONFIG } from './worker-config.token.js';

export interface RetentionResult {
  payloadsDeleted: number;
  snapshotsDeleted: number;
  intervalsDeleted: number;
  /**
   * Weekly partitions dropped whole, of every partitioned history table (service_intervals, savings
   * roll-up, summaries, payloads; their intervals and payloads are counted in intervalsDeleted and
   * payloadsDeleted, their summaries go with the snapshots counted in snapshotsDeleted).
   */
  partitionsDropped: number;
  /** Weekly partitions created ahead, of every partitioned history table. */
  partitionsCreated: number;
  servicesDeleted: number;
  auditEntriesDeleted: number;
  /** Reports whose period ended more than REPORT_RETENTION_DAYS ago (with their deliveries). */
  reportsDeleted: number;
  /** Dashboard sessions ended more than a day ago, and sign-ins never finished. */
  sessionsDeleted: number;
}

const BATCH = 1000;
const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);
/** Weeks of partitions kept created ahead of the current one, in every partitioned history table. */
const WEEKS_AHEAD = 2;

/**
 * Keeps storage bounded: raw payloads past their retention, per-snapshot rows (snapshot and its
 * aggregates) and closed history intervals past the history retention, audit entries past
 * AUDIT_LOG_RETENTION_DAYS, made reports past REPORT_RETENTION_DAYS, dashboard sessions a day after they
 * ended and unfinished sign-ins. The history tables partitioned by week (libs/db history-partitions.ts:
 * intervals, savings roll-up, summaries, payloads) lose whole weeks once every organization's retention
 * has passed them, the rows still held moved out first; the rest, the week holding a cutoff included, are
 * deleted row by row. It also creates the coming weeks' partitions. Organizations may override the
 * payload and history periods (libs/db retention.ts).
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
    let partitionsCreated = 0;
    for (const table of PARTITIONED_TABLES)
      partitionsCreated += (
        await this.partitionChange(`creating weeks of ${table.parent} ahead`, () =>
          ensurePartitions(this.prisma, table, now, WEEKS_AHEAD),
        )
      ).length;
    const payloads = { now, defaultDays: this.config.PAYLOAD_RETENTION_DAYS, batch: BATCH };
    const payloadCutoffs = await historyCutoffs(this.prisma, payloads, 'payload');
    const droppedPayloads = await this.dropWeeks(PAYLOADS, payloadCutoffs);
    const payloadsDeleted =
      removedOf(droppedPayloads) +
      (await pruneSnapshotPayloads(this.prisma, payloads, latestCutoff(payloadCutoffs, now)));
    const history = { now, defaultDays: this.config.HISTORY_RETENTION_DAYS, batch: BATCH };
    const cutoffs = await historyCutoffs(this.prisma, history);
    // A summary's week goes before its snapshots, whose deletion then finds nothing to cascade to.
    const droppedSummaries = await this.dropWeeks(SUMMARIES, cutoffs);
    const snapshotsDeleted = await pruneSnapshots(this.prisma, history);
    const { intervalsDeleted, servicesDeleted, partitionsDropped } = await this.pruneIntervals(cutoffs);
    const auditEntriesDeleted = await pruneAuditLog(
      this.prisma,
      daysBefore(now, this.config.AUDIT_LOG_RETENTION_DAYS),
      BATCH,
    );
    const reportsDeleted = await pruneReports(this.prisma, daysBefore(now, this.config.REPORT_RETENTION_DAYS), BATCH);
    const sessionsDeleted =
      (await pruneSessions(this.prisma, daysBefore(now, 1))) + (await pruneSignInAttempts(this.prisma, now));
    const result = {
      payloadsDeleted,
      snapshotsDeleted,
      intervalsDeleted,
      partitionsDropped: partitionsDropped + droppedPayloads.length + droppedSummaries.length,
      partitionsCreated,
      servicesDeleted,
      auditEntriesDeleted,
      reportsDeleted,
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
    const dropped = await this.dropWeeks(INTERVALS, clusters);
    // The roll-up's weeks after the intervals': a roll-up row is kept while an interval held overlaps it.
    const droppedDays = await this.dropWeeks(SAVINGS_DAYS, clusters);
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
    return { intervalsDeleted, servicesDeleted, partitionsDropped: dropped.length + droppedDays.length };
  }

  /** The weeks of `table` past every cluster's cutoff, dropped whole (libs/db dropExpiredPartitions). */
  private dropWeeks(table: PartitionedTable, clusters: readonly ClusterCutoff[]) {
    return dropExpiredPartitions(this.prisma, table, clusters, (week, error) =>
      this.logger.warn(`dropping ${week} failed, left for the next run: ${String(error)}`),
    );
  }

  /**
   * A partition change that cannot get its locks in time (busy readers or writers) waits for the next
   * run: nothing depends on it, as the default partition takes what no week holds and the rows past
   * retention are then deleted row by row.
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

/** Rows the dropped weeks removed. */
function removedOf(dropped: readonly DroppedPartition[]): number {
  return dropped.reduce((sum, week) => sum + [...week.removedByCluster.values()].reduce((a, b) => a + b, 0), 0);
}

/** The latest of the clusters' cutoffs (`now` without any): nothing captured from then is past its retention. */
function latestCutoff(clusters: readonly ClusterCutoff[], now: Date): Date {
  return clusters.length === 0 ? now : new Date(Math.max(...clusters.map((cluster) => cluster.cutoff.getTime())));
}
