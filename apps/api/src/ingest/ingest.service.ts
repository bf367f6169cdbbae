import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { parseSnapshot, SnapshotError } from '@zw/core';
import { type AgentIdentity, Prisma, PrismaService } from '@zw/db';
import { enqueueSnapshot, SNAPSHOTS_QUEUE } from '@zw/queue';
import type { Queue } from 'bullmq';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import { capturedAtOf, inputHashOf } from './captured-at.js';
import type { SnapshotBody } from './snapshot-body.js';

const gzipAsync = promisify(gzip);

// Decision: level 1 for payloads that arrive uncompressed. They are kept only for the retention window,
// and on the 150,000-endpoint snapshot level 1 is several times faster than the default 6 for a payload
// about a third larger; agents that care about bytes send gzip, which is stored as received.
const PAYLOAD_GZIP_LEVEL = 1;

/**
 * Longest a push waits for Redis to take the job. The snapshot is already stored by then, so past this
 * the API answers 202 anyway and leaves the job to the sweeper rather than hang the agent on a Redis outage.
 */
const ENQUEUE_TIMEOUT_MS = 3000;

export interface AcceptedSnapshot {
  snapshotId: string;
  /** True when this exact snapshot had been pushed before: nothing new was stored or queued. */
  duplicate: boolean;
}

@Injectable()
export class IngestService {
  private readonly logger = new Logger(IngestService.name);

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(SNAPSHOTS_QUEUE) private readonly queue: Queue,
    @Inject(ConfigService) private readonly config: ConfigService<ApiConfig, true>,
  ) {}

  /**
   * Validates a pushed snapshot, stores it and queues its analysis. Once this returns the snapshot is in
   * Postgres, so it is never lost: if Redis cannot take the job now, the worker's sweeper queues it later.
   */
  async accept(agent: AgentIdentity, body: SnapshotBody): Promise<AcceptedSnapshot> {
    const receivedAt = new Date();
    const contentHash = new Uint8Array(createHash('sha256').update(body.json).digest());
    const known = await this.findByContent(agent.clusterId, contentHash);
    if (known) return { snapshotId: known, duplicate: true };

    const document = parseDocument(body.json);
    const capturedAt = capturedAtOf(document, receivedAt);
    const payload = body.gzip ?? (await gzipAsync(body.json, { level: PAYLOAD_GZIP_LEVEL }));
    let snapshotId: string;
    try {
      ({ id: snapshotId } = await this.prisma.snapshot.create({
        data: {
          clusterId: agent.clusterId,
          capturedAt,
          receivedAt,
          contentHash,
          inputHash: inputHashOf(document),
          sizeBytes: body.json.length,
          // A view, not a copy: zlib and Buffer.concat results are backed by a plain ArrayBuffer.
          payload: { create: { gzip: payload as Uint8Array<ArrayBuffer> } },
        },
        select: { id: true },
      }));
    } catch (error) {
      if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
      // Lost a race with the same snapshot pushed concurrently, or another snapshot claims this instant.
      // Decision: one snapshot per instant per cluster (history intervals are bounded by captured-at
      // times), so a different snapshot with a captured-at already taken is refused with 409.
      const raced = await this.findByContent(agent.clusterId, contentHash);
      if (raced) return { snapshotId: raced, duplicate: true };
      throw new ProblemException(
        409,
        `another snapshot of this cluster was captured at ${capturedAt.toISOString()}; captured-at times must be unique per cluster`,
      );
    }
    await this.enqueue({ snapshotId, clusterId: agent.clusterId });
    return { snapshotId, duplicate: false };
  }

  private async findByContent(clusterId: string, contentHash: Uint8Array<ArrayBuffer>): Promise<string | null> {
    const row = await this.prisma.snapshot.findUnique({
      where: { clusterId_contentHash: { clusterId, contentHash } },
      select: { id: true },
    });
    return row?.id ?? null;
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

/** The body as JSON, checked against the snapshot shape the core reads: 400 naming the offending path. */
function parseDocument(json: Buffer): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(json.toString('utf8'));
  } catch (error) {
    throw new ProblemException(400, `body is not valid JSON: ${(error as Error).message}`, { path: '' });
  }
  try {
    parseSnapshot(document);
  } catch (error) {
    if (error instanceof SnapshotError) {
      throw new ProblemException(400, `invalid snapshot: ${error.message}`, { path: error.path });
    }
    throw error;
  }
  return document as Record<string, unknown>;
}
