import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type Db,
  PrismaService,
  pruneAnalysisDocuments,
  pruneAuditLog,
  pruneServiceFixContents,
  pruneSessions,
  pruneSignInAttempts,
  refreshSavingsDays,
} from '@zw/db';
import type { WorkerConfig } from './config.js';
import { lockCluster } from './history/cluster-lock.js';
import { ReadModelPublisher } from './read-model-events.js';
import { WORKER_CONFIG } from './worker-config.token.js';

export interface RetentionResult {
  payloadsDeleted: number;
  snapshotsDeleted: number;
  intervalsDeleted: number;
  servicesDeleted: number;
  auditEntriesDeleted: number;
  /** Dashboard sessions ended more than a day ago, and sign-ins never finished. */
  sessionsDeleted: number;
}

const BATCH = 1000;

/**
 * Keeps storage bounded: raw payloads past their retention (counted from the snapshot's captured-at time,
 * as history is: a snapshot pushed late, or re-driven, keeps its payload for as long as one pushed on time
 * and never outlives the days it describes), then per-snapshot rows (snapshot and its
 * aggregates) and closed history intervals past the history retention, and audit entries past
 * AUDIT_LOG_RETENTION_DAYS, dashboard sessions a day after they ended and unfinished sign-ins. Organizations may override the payload and history periods. Snapshots still
 * waiting are never touched.
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
    const payloadDays = this.config.PAYLOAD_RETENTION_DAYS;
    const historyDays = this.config.HISTORY_RETENTION_DAYS;
    const payloadsDeleted = await this.inBatches(
      () => this.prisma.$executeRaw`
        DELETE FROM snapshot_payloads WHERE snapshot_id IN (
          SELECT s.id FROM snapshots s
            JOIN snapshot_payloads p ON p.snapshot_id = s.id
            JOIN clusters c ON c.id = s.cluster_id JOIN organizations o ON o.id = c.organization_id
           WHERE s.status IN ('processed', 'failed')
             AND s.captured_at < ${now}::timestamptz
                 - COALESCE(o.payload_retention_days, ${payloadDays}::float8) * interval '1 day'
           LIMIT ${BATCH})`,
    );
    const snapshotsDeleted = await this.inBatches(
      () => this.prisma.$executeRaw`
        DELETE FROM snapshots WHERE id IN (
          SELECT s.id FROM snapshots s
            JOIN clusters c ON c.id = s.cluster_id JOIN organizations o ON o.id = c.organization_id
           WHERE s.status IN ('processed', 'failed')
             AND s.captured_at < ${now}::timestamptz
                 - COALESCE(o.history_retention_days, ${historyDays}::float8) * interval '1 day'
           LIMIT ${BATCH})`,
    );
    const { intervalsDeleted, servicesDeleted } = await this.pruneIntervals(now, historyDays);
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
      servicesDeleted,
      auditEntriesDeleted,
      sessionsDeleted,
    };
    if (payloadsDeleted || snapshotsDeleted || intervalsDeleted || auditEntriesDeleted || sessionsDeleted)
      this.logger.log(`pruned ${JSON.stringify(result)}`);
    return result;
  }

  /** Per cluster, under its lock: a snapshot being recorded meanwhile must not see half-pruned history. */
  private async pruneIntervals(now: Date, historyDays: number) {
    const clusters = await this.prisma.$queryRaw<{ id: string; cutoff: Date }[]>`
      SELECT c.id::text, ${now}::timestamptz
             - COALESCE(o.history_retention_days, ${historyDays}::float8) * interval '1 day' AS cutoff
        FROM clusters c JOIN organizations o ON o.id = c.organization_id`;
    let intervalsDeleted = 0;
    let servicesDeleted = 0;
    for (const cluster of clusters) {
      const pruned = await this.prisma.$transaction(async (tx) => {
        await lockCluster(tx, cluster.id, this.config.WORKER_LOCK_WAIT_MS);
        const intervals = await tx.$executeRaw`
          DELETE FROM service_intervals WHERE cluster_id = ${cluster.id}::uuid AND valid_to < ${cluster.cutoff}`;
        if (intervals > 0) await refreshSavingsDays(tx, cluster.id, await savingsDaysBefore(tx, cluster));
        const services = await tx.$executeRaw`
          DELETE FROM cluster_services s WHERE s.cluster_id = ${cluster.id}::uuid
             AND NOT EXISTS (SELECT 1 FROM service_intervals i WHERE i.service_id = s.id)`;
        // Zone statistics, Service CIDR analyses and blocking nodes no remaining snapshot summary refers
        // to, and fixes no remaining interval names.
        await pruneAnalysisDocuments(tx, cluster.id);
        if (intervals > 0) await pruneServiceFixContents(tx, cluster.id);
        return { intervals, services };
      });
      intervalsDeleted += pruned.intervals;
      servicesDeleted += pruned.services;
      if (pruned.intervals > 0) this.readModel.clusterChanged(cluster.id);
    }
    return { intervalsDeleted, servicesDeleted };
  }

  private async inBatches(deleteBatch: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteBatch();
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }
}

/**
 * The savings roll-up's days up to the cutoff, per Service: the pruned intervals' pieces must leave it,
 * those of intervals still held (ending after the cutoff) stay, so these days are summed again.
 */
async function savingsDaysBefore(db: Db, cluster: { id: string; cutoff: Date }) {
  const rows = await db.$queryRaw<{ service_id: bigint; first_day: Date }[]>`
    SELECT service_id, min(day)::timestamp AT TIME ZONE 'UTC' AS first_day FROM service_savings_days
     WHERE cluster_id = ${cluster.id}::uuid AND day <= (${cluster.cutoff}::timestamptz AT TIME ZONE 'UTC')::date
     GROUP BY service_id`;
  return rows.map((row) => ({ serviceId: row.service_id, from: row.first_day, to: cluster.cutoff }));
}
