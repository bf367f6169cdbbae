import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import { ConcurrencySlots } from './concurrency-slots.js';
import type { SnapshotReadOutcome, SnapshotReadTask } from './snapshot-reading.js';

/** The compiled script the ingest threads run. */
export const INGEST_THREAD_FILE = Symbol('INGEST_THREAD_FILE');

/**
 * Where that script is. Threads cannot load TypeScript: when the API runs from its sources (the test
 * runner), they run the build's copy, which `npm run build` (part of `npm test`) keeps current.
 */
export function compiledIngestThreadFile(): string {
  const name = 'snapshot-reader.thread.js';
  if (!__filename.endsWith('.ts')) return join(__dirname, name);
  return join(__dirname, '..', '..', '..', '..', 'dist', 'apps', 'api', 'ingest', name);
}

/** How long a push may wait for a reading slot before it is told to come back (503, Retry-After). */
const RETRY_AFTER_SECONDS = 5;

/**
 * Reads pushed snapshots off the event loop: INGEST_CONCURRENCY slots, each covering one push from its
 * first body byte to its parsed, hashed, compressed result, run by a pool of as many threads, each with a
 * heap of at most INGEST_THREAD_HEAP_MB. Pushes beyond the slots wait (their bodies unread) for up to
 * INGEST_QUEUE_TIMEOUT_MS. So `/healthz` and every other route keep answering while large snapshots
 * arrive, and ingest's memory is bounded by the slots, whatever the pushes inflate to.
 */
@Injectable()
export class SnapshotReader implements OnApplicationShutdown {
  private readonly pool: Piscina<SnapshotReadTask, SnapshotReadOutcome>;
  private readonly slots: ConcurrencySlots;
  private readonly queueTimeoutMs: number;
  private readonly heapMb: number;
  private readonly readTimeoutMs: number;

  constructor(
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
    @Inject(INGEST_THREAD_FILE) threadFile: string,
  ) {
    const threads = config.get('INGEST_CONCURRENCY', { infer: true });
    this.heapMb = config.get('INGEST_THREAD_HEAP_MB', { infer: true });
    this.queueTimeoutMs = config.get('INGEST_QUEUE_TIMEOUT_MS', { infer: true });
    this.readTimeoutMs = config.get('INGEST_READ_TIMEOUT_MS', { infer: true });
    this.slots = new ConcurrencySlots(threads);
    this.pool = new Piscina({
      filename: threadFile,
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
    });
  }

  /** Runs `read` (reading the body, then {@link read}) within a slot; 503 when none comes free in time. */
  async withSlot<T>(read: () => Promise<T>): Promise<T> {
    if (!(await this.slots.acquire(this.queueTimeoutMs))) {
      throw new ProblemException(
        503,
        `ingest is busy reading other snapshots; retry in ${RETRY_AFTER_SECONDS} s`,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
    try {
      return await read();
    } finally {
      this.slots.release();
    }
  }

  /** Pushes being read now (each holds a slot). */
  get reading(): number {
    return this.slots.taken;
  }

  /**
   * Inflates, parses, validates, hashes and compresses one body in a thread. A document dense enough
   * (tiny values by the million) to need more than a thread's heap, or to keep the thread collecting
   * garbage near that limit past INGEST_READ_TIMEOUT_MS, is refused (413) and its thread replaced: no
   * Kubernetes snapshot within the size limit comes close to either.
   */
  async read(task: SnapshotReadTask): Promise<SnapshotReadOutcome> {
    try {
      return await this.pool.run(task, { signal: AbortSignal.timeout(this.readTimeoutMs) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        return this.refused(`snapshot needs more than the ${this.heapMb} MiB a push may use to be read`);
      }
      if ((error as Error).name === 'AbortError') {
        return this.refused(`snapshot took longer than ${this.readTimeoutMs / 1000} s to read`);
      }
      throw error;
    }
  }

  private refused(problem: string): SnapshotReadOutcome {
    return {
      refused: {
        status: 413,
        detail: `${problem}; no Kubernetes snapshot is this dense: send fewer objects`,
        extra: { limitHeapMb: this.heapMb, limitReadMs: this.readTimeoutMs },
      },
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }
}
