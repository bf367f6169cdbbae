import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type Type } from '@nestjs/common';
import { capturedAtRetentionProblem } from '@zw/core';
import {
  claimSnapshot,
  type ClaimedSnapshot,
  ClusterBusyError,
  inPgTransaction,
  isBeingRecorded,
  lockCluster,
  markSnapshotFailed,
  pgSql,
  PrismaService,
  readSnapshotPayload,
  type SqlClient,
} from '@zw/db';
import { ALERTS_QUEUE, type AnalyzeSnapshotJobData, enqueueAlertEvaluation, SNAPSHOTS_QUEUE } from '@zw/queue';
import { DelayedError, type Job, type Queue, UnrecoverableError } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import type { WorkerConfig } from './config.js';
import { recordRepeat, recordSnapshot, type RecordOutcome } from './history/history-writer.js';
import { AnalysisPool } from './analysis-pool.js';
import { COMMIT_HOOKS, type CommitHooks } from './commit-hooks.js';
import { analyzerId } from './analyzer.js';
import { DependencyOutages, OutageWaitInterrupted } from './dependency-outages.js';
import { UnprocessableSnapshotError } from './snapshot-analysis.js';
import { JobMetricsRecorder } from './job-metrics.js';
import { WriteOrder, type WriteTurn } from './write-order.js';
import { RecentAnalyses } from './recent-analyses.js';
import { ReadModelPublisher } from './read-model-events.js';
import { WORKER_CONFIG } from './worker-config.token.js';

/** How long a repeat waits for its predecessor to be recorded before it is analysed itself. */
const PREDECESSOR_WAIT_MS = 2000;
const PREDECESSOR_POLL_MS = 5;
/** Longest a write waits for a pooled connection (what Prisma's transactions waited at most). */
const CONNECTION_WAIT_MS = 30_000;

export type SnapshotJobResult = { recorded: false; reason: string } | ({ recorded: true } & RecordOutcome);

/**
 * Turns one stored snapshot into history. The analysis runs outside any transaction, in a pool thread (it
 * is CPU work and needs no lock); the writes then happen in one transaction that holds the cluster's lock,
 * re-checks the snapshot's status and records everything, so a crash at any point leaves either nothing
 * or all of it. A snapshot whose input repeats its predecessor's is recorded without analysis (the
 * common case of a cluster in which nothing changed), unless the lock shows that no longer holds; one
 * whose input equals one of the last two this process analysed for the cluster reuses that analysis (see
 * RecentAnalyses) and is recorded like any other.
 */
@Injectable()
export class SnapshotProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger('SnapshotProcessor');
  private readonly analyzer = analyzerId();
  private readonly writeOrder = new WriteOrder();
  private readonly recentAnalyses = new RecentAnalyses();
  /** The claim and the predecessor polls, on pg directly (see inPgTransaction for why). */
  private readonly sql: SqlClient;

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
    @Inject(JobMetricsRecorder) private readonly metrics: JobMetricsRecorder,
    @Inject(ReadModelPublisher) private readonly readModel: ReadModelPublisher,
    @Inject(AnalysisPool) private readonly analysis: AnalysisPool,
    @Inject(DependencyOutages) private readonly outages: DependencyOutages,
    @InjectQueue(ALERTS_QUEUE) private readonly alerts: Queue,
    @Inject(COMMIT_HOOKS) private readonly commitHooks: CommitHooks,
  ) {
    super();
    this.sql = pgSql(prisma.pool);
  }

  onApplicationBootstrap(): void {
    this.metrics.attach(this.worker, SNAPSHOTS_QUEUE);
  }

  /**
   * An outage of Postgres or Redis is waited out inside the job (holding its slot and its lock, so the
   * backlog stays queued rather than cycling through failed attempts); only other errors count as an
   * attempt, and only a snapshot the analysis cannot process, or one whose attempts ran out, is failed.
   */
  async process(job: Job<AnalyzeSnapshotJobData>, token?: string): Promise<SnapshotJobResult> {
    const { snapshotId } = job.data;
    try {
      return await this.outages.retryThrough(
        `snapshot ${snapshotId}`,
        () => this.attempt(job),
        () => this.stopping(),
      );
    } catch (error) {
      if (!(error instanceof OutageWaitInterrupted) || !token) throw error;
      // Shutting down mid-outage: back to the queue without spending an attempt (a failure would).
      await job.moveToDelayed(Date.now() + this.config.WORKER_OUTAGE_RETRY_MS, token);
      throw new DelayedError();
    }
  }

  /**
   * One attempt. What a failed snapshot shows its users (GET /v1/snapshots/failed) is a product message:
   * why the snapshot cannot be processed, or that it could not be recorded in so many attempts. The
   * error itself (a database's, a library's) is logged with the snapshot's id, never stored or answered.
   */
  private async attempt(job: Job<AnalyzeSnapshotJobData>): Promise<SnapshotJobResult> {
    const { snapshotId } = job.data;
    try {
      return await this.record(snapshotId);
    } catch (error) {
      const permanent = error instanceof UnprocessableSnapshotError;
      if (!permanent && (await this.outages.outageBehind(error))) throw error;
      const attempt = job.attemptsMade + 1;
      const attempts = job.opts.attempts ?? 1;
      if (!permanent) {
        // Not every library throws an Error (a plain object prints as [object Object]): inspect shows its fields.
        const detail = error instanceof Error ? (error.stack ?? error.message) : inspect(error, { depth: 4 });
        this.logger.error(`snapshot ${snapshotId}: attempt ${attempt} of ${attempts} failed: ${detail}`);
      }
      const reason = permanent ? error.message : unrecordedReason(attempt, error);
      if (permanent || attempt >= attempts) {
        await markSnapshotFailed(this.prisma, snapshotId, reason);
        this.logger.warn(`snapshot ${snapshotId} failed for good: ${reason}`);
      }
      if (permanent) throw new UnrecoverableError(reason);
      throw error;
    }
  }

  /** The worker is closing: an outage wait ends, and the job goes back to the queue. */
  private stopping(): boolean {
    return Boolean(this.worker?.closing);
  }

  private async record(snapshotId: string): Promise<SnapshotJobResult> {
    const claimed = await claimSnapshot(this.sql, snapshotId);
    if (!claimed) return { recorded: false, reason: 'already processed, failed or deleted' };
    const turn = this.writeOrder.enter(claimed.clusterId, claimed.capturedAt);
    try {
      return await this.recordClaimed(snapshotId, claimed, turn);
    } finally {
      turn.leave();
    }
  }

  private async recordClaimed(
    snapshotId: string,
    claimed: ClaimedSnapshot,
    turn: WriteTurn,
  ): Promise<SnapshotJobResult> {
    // Decision: the retention rule is ingest's, as of when the snapshot arrived (the API refused it if it
    // was already too old then). One that aged past the window while it waited is still recorded: what of
    // it is past the window the retention job prunes with everything else of its age.
    const historyDays = claimed.historyRetentionDays ?? this.config.HISTORY_RETENTION_DAYS;
    const tooOld = capturedAtRetentionProblem(claimed.capturedAt, claimed.receivedAt, historyDays);
    if (tooOld) throw new UnprocessableSnapshotError(tooOld);
    if (claimed.repeats) {
      await turn.afterEarlier(PREDECESSOR_WAIT_MS);
      if (!claimed.repeats.recorded) await this.untilRecorded(claimed.repeats.snapshotId);
      const repeated = await this.write(claimed.clusterId, (tx) => recordRepeat(tx, snapshotId, this.analyzer));
      if (repeated === 'not-waiting') return { recorded: false, reason: 'recorded meanwhile by another run' };
      if (repeated !== 'not-a-repeat') return this.recorded(claimed.clusterId, snapshotId, repeated);
    }
    const analyzed = await this.recentAnalyses.analyze(
      claimed.clusterId,
      claimed.inputHash,
      claimed.overrides,
      async () => {
        const gzip = claimed.repeats
          ? await readSnapshotPayload(this.sql, snapshotId, claimed.capturedAt)
          : claimed.gzip;
        if (!gzip) throw new UnprocessableSnapshotError('raw payload is gone (pruned or never stored)');
        return this.analysis.analyze(claimed.clusterId, gzip, claimed.overrides);
      },
    );
    await turn.afterEarlier(PREDECESSOR_WAIT_MS);
    const outcome = await this.write(claimed.clusterId, (tx) =>
      recordSnapshot(tx, {
        clusterId: claimed.clusterId,
        snapshotId,
        capturedAt: claimed.capturedAt,
        analyzer: this.analyzer,
        ...analyzed,
      }),
    );
    if (!outcome) return { recorded: false, reason: 'recorded meanwhile by another run' };
    return this.recorded(claimed.clusterId, snapshotId, outcome);
  }

  /**
   * One transaction holding the cluster's lock (with the commit hooks around its commit), on pg directly
   * (see inPgTransaction): the lock is held for all of it, so its overhead is on the cluster's critical path.
   */
  private async write<T>(clusterId: string, work: (tx: SqlClient) => Promise<T>): Promise<T> {
    const result = await inPgTransaction(
      this.prisma.pool,
      { timeoutMs: this.config.WORKER_TX_TIMEOUT_MS, maxWaitMs: CONNECTION_WAIT_MS },
      async (tx) => {
        await lockCluster(tx, clusterId, this.config.WORKER_LOCK_WAIT_MS);
        const done = await work(tx);
        await this.commitHooks.beforeCommit?.();
        return done;
      },
    );
    this.commitHooks.afterCommit?.();
    return result;
  }

  /**
   * Waits (boundedly, holding no lock or connection) for the snapshot this one repeats to be recorded: a
   * backlog of one cluster is drained in order by concurrent jobs, and the repeat is then recorded with no
   * analysis at all instead of with one that would give the same states.
   */
  private async untilRecorded(snapshotId: string): Promise<void> {
    const deadline = Date.now() + PREDECESSOR_WAIT_MS;
    while (Date.now() < deadline && (await isBeingRecorded(this.sql, snapshotId))) {
      await sleep(PREDECESSOR_POLL_MS);
    }
  }

  private recorded(clusterId: string, snapshotId: string, outcome: RecordOutcome): SnapshotJobResult {
    // Also what tells every API process to drop its answers about the cluster.
    this.readModel.liveEvent('snapshot.recorded', { clusterId });
    // The alert rules look at the new state in a job of their own (the pipeline does not wait for them);
    // an evaluation lost here is made up by the alerts sweep.
    void enqueueAlertEvaluation(this.alerts, clusterId, snapshotId).catch((error: unknown) =>
      this.logger.warn(
        `alert evaluation of cluster ${clusterId} not enqueued (the sweep will do it): ${String(error)}`,
      ),
    );
    return { recorded: true, ...outcome };
  }
}

/**
 * What a snapshot whose attempts ran out shows: the cause when it is one of ours with a message for
 * users, else that an internal error was logged (the error's own text may be a database's or a
 * library's, and is only in the worker's log, with the snapshot's id).
 */
export function unrecordedReason(attempts: number, error: unknown): string {
  const cause =
    error instanceof ClusterBusyError
      ? error.message
      : "an internal error, logged by the worker with this snapshot's id";
  return `could not be recorded in ${attempts} attempt${attempts === 1 ? '' : 's'}: ${cause}; re-drive it once the cause is gone`;
}

/**
 * The processor registered with BullMQ, with worker options from the validated configuration: the
 * `@Processor` decorator only takes static options, so the class is decorated once the config is known.
 */
export function configuredSnapshotProcessor(config: WorkerConfig): Type<SnapshotProcessor> {
  @Processor(SNAPSHOTS_QUEUE, {
    concurrency: config.WORKER_CONCURRENCY,
    lockDuration: config.WORKER_LOCK_DURATION_MS,
    lockRenewTime: lockRenewTime(config.WORKER_LOCK_DURATION_MS),
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
    // BullMQ's own wait after a Redis error in its fetch loop (15 s by default): no longer than an
    // outage retry, so the backlog resumes as soon after an outage as the jobs in hand do.
    runRetryDelay: config.WORKER_OUTAGE_RETRY_MAX_MS,
  })
  class ConfiguredSnapshotProcessor extends SnapshotProcessor {}
  return ConfiguredSnapshotProcessor;
}

/**
 * Decision: renew a job's lock four times per lock duration rather than BullMQ's twice, so a lock
 * survives an event loop held up for most of its duration (a CPU-starved machine, a large payload
 * decoded on the main thread) while a dead worker's job is still taken back within one duration plus
 * two stalled checks.
 */
export function lockRenewTime(lockDurationMs: number): number {
  return Math.floor(lockDurationMs / 4);
}
