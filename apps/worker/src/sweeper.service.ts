import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { markSnapshotFailed, PrismaService, waitingSnapshots } from '@zw/db';
import { enqueueSnapshot, SNAPSHOTS_QUEUE } from '@zw/queue';
import type { Queue } from 'bullmq';
import type { WorkerConfig } from './config.js';
import { WORKER_CONFIG } from './worker-config.token.js';

export interface SweepResult {
  requeued: number;
  markedFailed: number;
}

/**
 * Decision: a job BullMQ failed while its snapshot still waits was given up on for a reason outside the
 * snapshot (the processor records its own verdicts in Postgres first): its worker died, or lost the job's
 * lock in a Redis outage, more than WORKER_MAX_STALLED_COUNT times. That is re-driven, unless the
 * snapshot was taken up more often than retries and stall recoveries together allow, which points at a
 * snapshot that kills its worker: then it is failed with the reason.
 */
function killsItsWorker(claims: number, config: WorkerConfig): boolean {
  return claims > config.JOB_ATTEMPTS + config.WORKER_MAX_STALLED_COUNT;
}

/** What a snapshot failed for killing its workers shows its users. */
export function killedItsWorkersReason(claims: number): string {
  return `taken up ${claims} times without finishing: each time, the worker processing it stopped (killed, out of memory, or its lock lost); see the worker's log for this snapshot's id`;
}

const PAGE = 500;

/**
 * Postgres is the record of what still needs processing; Redis only holds the work list. The sweeper
 * reconciles the two: every snapshot that has waited past the grace period must have a live job, or it
 * gets one again (Redis lost its data, the API could not enqueue, a job finished without recording).
 * An outage never fails a snapshot here: a job BullMQ gave up on is re-enqueued, unless its snapshot
 * keeps killing the worker that takes it up.
 */
@Injectable()
export class SweeperService {
  private readonly logger = new Logger('Sweeper');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(SNAPSHOTS_QUEUE) private readonly queue: Queue,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  async sweep(now = new Date()): Promise<SweepResult> {
    const result: SweepResult = { requeued: 0, markedFailed: 0 };
    const waitedSince = new Date(now.getTime() - this.config.SWEEP_GRACE_MS);
    const retry = { attempts: this.config.JOB_ATTEMPTS, backoffMs: this.config.JOB_BACKOFF_MS };
    let after: string | undefined;
    for (;;) {
      const waiting = await waitingSnapshots(this.prisma, waitedSince, PAGE, after);
      for (const snapshot of waiting) {
        const job = await this.queue.getJob(snapshot.id);
        const state = job ? await job.getState() : 'unknown';
        if (state === 'failed' && killsItsWorker(snapshot.attempts, this.config)) {
          // BullMQ's reason (a stall, a lost lock…) depends on how the workers died: logged, not shown.
          this.logger.warn(`snapshot ${snapshot.id}: BullMQ gave up on its job: ${job!.failedReason || '(no reason)'}`);
          if (await markSnapshotFailed(this.prisma, snapshot.id, killedItsWorkersReason(snapshot.attempts))) {
            result.markedFailed++;
          }
          continue;
        }
        if (state !== 'completed' && state !== 'unknown' && state !== 'failed') continue; // in hand
        if (job) await job.remove();
        await enqueueSnapshot(this.queue, { snapshotId: snapshot.id, clusterId: snapshot.clusterId }, retry);
        result.requeued++;
      }
      if (waiting.length < PAGE) break;
      after = waiting[waiting.length - 1].id;
    }
    if (result.requeued || result.markedFailed) {
      this.logger.log(`re-enqueued ${result.requeued} snapshots, marked ${result.markedFailed} failed`);
    }
    return result;
  }
}
