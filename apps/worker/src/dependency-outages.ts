import { Inject, Injectable, Logger } from '@nestjs/common';
import { pingDatabase, PrismaService } from '@zw/db';
import { UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkerConfig } from './config.js';
import { isConnectionError } from './connection-errors.js';
import { WORKER_CONFIG } from './worker-config.token.js';
import { WORKER_REDIS } from './worker-redis.js';

/** Longest a reachability probe may take before its dependency counts as unreachable. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * Tells an outage of Postgres or Redis apart from a failure of the work itself, and waits outages out.
 * Work that failed because a dependency was unreachable is retried, with bounded backoff, for as long as
 * the outage lasts, and no attempt is counted against it: an outage must never turn a snapshot into a
 * failed one. An error is an outage when it is a connection error, or when, right after it, Postgres or
 * Redis does not answer a probe (a timeout or a closed transaction say nothing by themselves).
 */
@Injectable()
export class DependencyOutages {
  private readonly logger = new Logger('DependencyOutages');
  /** Errors already judged, so a caller and retryThrough asking about the same error probe once. */
  private readonly judged = new WeakMap<object, string | null>();

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(WORKER_REDIS) private readonly redis: Redis,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  /** What is unreachable, when `error` came from an outage; null when the dependencies answer. */
  async outageBehind(error: unknown): Promise<string | null> {
    if (typeof error === 'object' && error !== null && this.judged.has(error)) return this.judged.get(error)!;
    const verdict = await this.probeAfter(error);
    if (typeof error === 'object' && error !== null) this.judged.set(error, verdict);
    return verdict;
  }

  private async probeAfter(error: unknown): Promise<string | null> {
    const [postgres, redis] = await Promise.all([
      this.answers(() => pingDatabase(this.prisma)),
      this.answers(() => this.redis.ping()),
    ]);
    if (!postgres) return 'Postgres';
    if (!redis) return 'Redis';
    return isConnectionError(error) ? 'a connection' : null;
  }

  /**
   * Runs `work` until it succeeds or fails for a reason other than an outage (then its error is thrown).
   * `stopping` ends the wait early (the worker shuts down): then an OutageWaitInterrupted is thrown, for
   * the caller to hand the work back without counting an attempt.
   */
  async retryThrough<T>(what: string, work: () => Promise<T>, stopping: () => boolean): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        const result = await work();
        if (retry > 0) this.logger.log(`${what}: dependencies back after ${retry} outage retries`);
        return result;
      } catch (error) {
        if (error instanceof UnrecoverableError) throw error;
        const unreachable = await this.outageBehind(error);
        if (!unreachable) throw error;
        if (stopping()) throw new OutageWaitInterrupted(unreachable, error);
        if (retry === 0) {
          this.logger.warn(`${what}: ${unreachable} unreachable (${messageOf(error)}); retrying, no attempt counted`);
        }
        await sleep(outageBackoffMs(retry, this.config.WORKER_OUTAGE_RETRY_MS, this.config.WORKER_OUTAGE_RETRY_MAX_MS));
      }
    }
  }

  private async answers(probe: () => Promise<unknown>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS)));
    try {
      return await Promise.race([probe().then(() => true as const), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** An outage wait cut short because the worker shuts down; the work was not done and is not to be counted. */
export class OutageWaitInterrupted extends Error {
  override name = 'OutageWaitInterrupted';

  constructor(unreachable: string, cause: unknown) {
    super(`shutting down while ${unreachable} is unreachable`, { cause });
  }
}

/**
 * The wait before the retry number `retry` (0-based) during an outage: doubling from `firstMs` up to
 * `maxMs`, with ±20 % jitter so that workers do not all knock at the same instant when it ends.
 */
export function outageBackoffMs(retry: number, firstMs: number, maxMs: number, random = Math.random): number {
  const plain = Math.min(maxMs, firstMs * 2 ** Math.min(retry, 30));
  return Math.round(plain * (0.8 + 0.4 * random()));
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 200);
}
