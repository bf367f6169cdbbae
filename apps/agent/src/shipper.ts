import type { Logger } from 'pino';
import { type Backoff, sleep } from './backoff.js';
import type { AgentMetrics } from './metrics.js';
import type { PushClient, PushOutcome } from './push-client.js';
import type { Spool, SpoolEntry } from './spool.js';

/**
 * Delivers the spool to the API, oldest snapshot first, one at a time. A snapshot leaves the spool only
 * once the API has accepted it (or refused it for good); after a failure the shipper waits with
 * exponential backoff and jitter, then tries the same snapshot again.
 *
 * Decision: oldest first. History is ordered by captured-at time whatever the arrival order, but
 * delivering in order means the worker appends rather than rewrites, and the spool is bounded, so the
 * newest state is at most `maxSnapshots` pushes behind once the API is back.
 */
export class Shipper {
  private readonly stopping = new AbortController();
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly spool: Spool,
    private readonly client: PushClient,
    private readonly backoff: Backoff,
    private readonly metrics: AgentMetrics,
    private readonly logger: Logger,
  ) {
    this.updateGauges();
  }

  /** Spools a snapshot and lets the delivery loop know. Resolves once it is in the spool. */
  async enqueue(capturedAt: Date, gzipBody: Buffer): Promise<void> {
    const dropped = await this.spool.add(capturedAt, gzipBody);
    if (dropped.length > 0) {
      this.metrics.spoolDropped.inc(dropped.length);
      this.logger.warn(
        { dropped: dropped.map((entry) => entry.capturedAt.toISOString()), spoolSnapshots: this.spool.size },
        'spool full: dropped the oldest snapshots',
      );
    }
    this.updateGauges();
    this.wake?.();
  }

  get pending(): number {
    return this.spool.size;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Stops the loop (an attempt in flight completes), then delivers what is left until the spool is
   * empty, a push fails, or the deadline passes. What is not delivered stays in the spool for the next
   * start. Returns the number of snapshots left.
   */
  async drain(deadlineMs: number): Promise<number> {
    this.stopping.abort();
    this.wake?.();
    await this.loop;
    const deadline = AbortSignal.timeout(Math.max(1, deadlineMs));
    for (let entry = this.spool.oldest(); entry && !deadline.aborted; entry = this.spool.oldest()) {
      const outcome = await this.deliverOne(entry, deadline);
      if (outcome?.kind === 'retry') break;
    }
    return this.spool.size;
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      const entry = this.spool.oldest();
      if (!entry) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      const outcome = await this.deliverOne(entry, undefined);
      if (outcome?.kind !== 'retry' || signal.aborted) continue;
      const delayMs = Math.max(this.backoff.next(), outcome.retryAfterMs ?? 0);
      this.logger.warn(
        {
          reason: outcome.reason,
          retryInMs: delayMs,
          spoolSnapshots: this.spool.size,
          failures: this.backoff.consecutiveFailures,
        },
        'push failed; will retry',
      );
      await sleep(delayMs, signal);
    }
  }

  /** One attempt at the given entry; null when the entry vanished (dropped from a full spool meanwhile). */
  private async deliverOne(entry: SpoolEntry, signal: AbortSignal | undefined): Promise<PushOutcome | null> {
    let body: Buffer;
    try {
      body = await this.spool.read(entry);
    } catch (error) {
      this.logger.warn(
        { entry: entry.id, error: (error as Error).message },
        'spooled snapshot unreadable; dropping it',
      );
      await this.spool.remove(entry);
      this.updateGauges();
      return null;
    }
    const outcome = await this.client.push(body, signal);
    const capturedAt = entry.capturedAt.toISOString();
    switch (outcome.kind) {
      case 'accepted':
        this.backoff.reset();
        await this.spool.remove(entry);
        this.metrics.pushes.inc({ result: outcome.duplicate ? 'duplicate' : 'accepted' });
        this.metrics.lastAcceptedTimestamp.set(Date.now() / 1000);
        this.logger.info(
          {
            snapshotId: outcome.snapshotId,
            capturedAt,
            duplicate: outcome.duplicate,
            bytes: entry.bytes,
            spoolSnapshots: this.spool.size,
          },
          'snapshot accepted',
        );
        break;
      case 'rejected':
        this.backoff.reset();
        await this.spool.remove(entry);
        this.metrics.pushes.inc({ result: 'rejected' });
        this.logger.error(
          { capturedAt, status: outcome.status, reason: outcome.reason },
          'snapshot rejected by the API; dropped',
        );
        break;
      case 'retry':
        this.metrics.pushFailures.inc({ reason: failureReason(outcome) });
        break;
    }
    this.updateGauges();
    return outcome;
  }

  private updateGauges(): void {
    this.metrics.spoolSnapshots.set(this.spool.size);
    this.metrics.spoolBytes.set(this.spool.bytes);
  }
}

function failureReason(outcome: Extract<PushOutcome, { kind: 'retry' }>): string {
  if (outcome.status !== null) return `http_${outcome.status}`;
  return outcome.reason.startsWith('no answer within') ? 'timeout' : 'network';
}
