import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { AnalysisTask, ThreadOutcome } from './analysis.thread.js';
import type { ClusterOverrides } from '@zw/core';
import type { WorkerConfig } from './config.js';
import { type AnalyzedSnapshot, UnprocessableSnapshotError } from './snapshot-analysis.js';
import { WORKER_CONFIG } from './worker-config.token.js';

/**
 * Young generation of each analysis thread. Analysis allocates a whole parsed snapshot per job, much of
 * it alive across a scavenge: with V8's default (16 MiB semi-spaces) a mid-size snapshot paid ~4 ms of
 * scavenges, as much as the analysis itself; 64 MiB semi-spaces cut that to about a quarter.
 */
const YOUNG_GENERATION_MB = 3 * 64;

/**
 * The compiled script the threads run. A provider so that tests running the worker module from its
 * TypeScript sources can point the threads at the build (threads cannot load TypeScript).
 */
export const ANALYSIS_THREAD_FILE = Symbol('ANALYSIS_THREAD_FILE');
export const COMPILED_ANALYSIS_THREAD_FILE = join(__dirname, 'analysis.thread.js');

/**
 * The threads that run the analysis (inflate, JSON.parse, core, state hashes), so that it never blocks
 * the event loop: the transactions of other jobs (holding their cluster's lock), BullMQ's lock renewals
 * and the sweeper keep running while a 150,000-endpoint snapshot is analysed, and on a machine with more
 * than one core the analysis of one snapshot overlaps the writes of the previous one.
 */
@Injectable()
export class AnalysisPool implements OnApplicationShutdown {
  private readonly pool: Piscina<AnalysisTask, ThreadOutcome>;

  constructor(@Inject(WORKER_CONFIG) config: WorkerConfig, @Inject(ANALYSIS_THREAD_FILE) threadFile: string) {
    const threads = config.WORKER_ANALYSIS_THREADS ?? defaultThreads(config.WORKER_CONCURRENCY);
    this.pool = new Piscina({
      filename: threadFile,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
  }

  /** The analysis of a stored payload with its cluster's overrides; an UnprocessableSnapshotError when no retry can help. */
  async analyze(clusterId: string, gzip: Uint8Array, overrides: ClusterOverrides): Promise<AnalyzedSnapshot> {
    const outcome = await this.pool.run({ clusterId, gzip, overrides });
    if ('unprocessable' in outcome) throw new UnprocessableSnapshotError(outcome.unprocessable);
    return outcome.analyzed;
  }

  /** After BullMQ's workers closed (they wait for their jobs), so no job loses its analysis midway. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }
}

/**
 * Decision: one thread per concurrent job, but leave a core to the event loop (and, on a small machine,
 * to Postgres): the writes are what the analysis overlaps with.
 */
function defaultThreads(concurrency: number): number {
  return Math.max(1, Math.min(concurrency, availableParallelism() - 1));
}
