import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type AgentIdentity, insertSnapshot, PrismaService, snapshotByContent } from '@zw/db';
import { enqueueSnapshot, SNAPSHOTS_QUEUE } from '@zw/queue';
import type { Queue } from 'bullmq';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import { recordedCapturedAt } from './captured-at.js';
import { readSnapshotBody } from './snapshot-body.js';
import { SnapshotReader } from './snapshot-reader.js';
import type { ReadSnapshot } from './snapshot-reading.js';

/**
 * Longest a push waits for Redis to take the job. The snapshot is already stored by then, so past this
 * the API answers 202 anyway and leaves the job to the sweeper rather than hang the agent on a Redis outage.
 */
const ENQUEUE_TIMEOUT_MS = 3000;

export interface AcceptedSnapshot {
  snapshotId: string;
  /** True when this exact snapshot had been pushed before: nothing new was stored or queued. */
  duplicate: boolean;
  /** The captured-at time history records for it. */
  capturedAt: string;
  /**
   * True when the stated captured-at lay further in the future than the clock-skew allowance and the
   * receive time was recorded instead.
   */
  capturedAtClamped: boolean;
}

@Injectable()
export class IngestService {
  private readonly logger = new Logger(IngestService.name);

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(SNAPSHOTS_QUEUE) private readonly queue: Queue,
    @Inject(ConfigService) private readonly config: ConfigService<ApiConfig, true>,
    @Inject(SnapshotReader) private readonly reader: SnapshotReader,
  ) {}

  /**
   * Reads, validates and stores a pushed snapshot, and queues its analysis. Once this returns the
   * snapshot is in Postgres, so it is never lost: if Redis cannot take the job now, the worker's sweeper
   * queues it later.
   */
  async accept(agent: AgentIdentity, request: IncomingMessage): Promise<AcceptedSnapshot> {
    const receivedAt = new Date();
    const maxBytes = this.config.get('INGEST_MAX_BODY_BYTES', { infer: true });
    const historyRetentionDays =
      agent.historyRetentionDays ?? this.config.get('HISTORY_RETENTION_DAYS', { infer: true });
    const outcome = await this.reader.withSlot(async () => {
      const body = await readSnapshotBody(request, maxBytes);
      return this.reader.read({
        wire: body.wire,
        gzipped: body.gzipped,
        maxBytes,
        receivedAtMs: receivedAt.getTime(),
        historyRetentionDays,
      });
    });
    if ('refused' in outcome) {
      throw new ProblemException(outcome.refused.status, outcome.refused.detail, outcome.refused.extra);
    }
    return this.store(agent, outcome.read, receivedAt);
  }

  private async store(agent: AgentIdentity, read: ReadSnapshot, receivedAt: Date): Promise<AcceptedSnapshot> {
    const known = await this.findByContent(agent.clusterId, read);
    if (known) return known;
    const stated = read.statedCapturedAt === null ? null : new Date(read.statedCapturedAt);
    const skewMs = this.config.get('INGEST_CLOCK_SKEW_SECONDS', { infer: true }) * 1000;
    const { capturedAt, clamped } = recordedCapturedAt(stated, receivedAt, skewMs);
    const snapshotId = await insertSnapshot(this.prisma, {
      clusterId: agent.clusterId,
      capturedAt,
      receivedAt,
      contentHash: read.contentHash,
      inputHash: read.inputHash,
      sizeBytes: read.sizeBytes,
      gzip: read.payload,
    });
    if (snapshotId === null) {
      // Lost a race with the same snapshot pushed concurrently, or another snapshot claims this instant.
      // Decision: one snapshot per instant per cluster (history intervals are bounded by captured-at
      // times), so a different snapshot with a captured-at already taken is refused with 409.
      const raced = await this.findByContent(agent.clusterId, read);
      if (raced) return raced;
      throw new ProblemException(
        409,
        `another snapshot of this cluster was captured at ${capturedAt.toISOString()}; captured-at times must be unique per cluster`,
      );
    }
    if (clamped) {
      this.logger.warn(
        `snapshot ${snapshotId} of cluster ${agent.clusterId} stated captured-at ${read.statedCapturedAt}, beyond the clock-skew allowance: recorded as received`,
      );
    }
    await this.enqueue({ snapshotId, clusterId: agent.clusterId });
    return { snapshotId, duplicate: false, capturedAt: capturedAt.toISOString(), capturedAtClamped: clamped };
  }

  /** The snapshot of this cluster with these exact bytes, answered as a duplicate. */
  private async findByContent(clusterId: string, read: ReadSnapshot): Promise<AcceptedSnapshot | null> {
    const row = await snapshotByContent(this.prisma, clusterId, read.contentHash);
    if (!row) return null;
    const capturedAt = row.capturedAt.toISOString();
    return {
      snapshotId: row.id,
      duplicate: true,
      capturedAt,
      capturedAtClamped: read.statedCapturedAt !== null && read.statedCapturedAt !== capturedAt,
    };
  }

  private async enqueue(data: { snapshotId: string; clusterId: string }): Promise<void> {
    const retry = {
      attempts: this.config.get('JOB_ATTEMPTS', { infer: true }),
      backoffMs: this.config.get('JOB_BACKOFF_MS', { infer: true }),
    };
    const timeout = new AbortController();
    try {
      await Promise.race([
        enqueueSnapshot(this.queue, data, retry),
        sleep(ENQUEUE_TIMEOUT_MS, undefined, { signal: timeout.signal }).then(() => {
          throw new Error(`Redis did not answer within ${ENQUEUE_TIMEOUT_MS} ms`);
        }),
      ]);
    } catch (error) {
      this.logger.warn(
        `snapshot ${data.snapshotId} stored but not queued (${String(error)}); the sweeper will queue it`,
      );
    } finally {
      timeout.abort();
    }
  }
}
