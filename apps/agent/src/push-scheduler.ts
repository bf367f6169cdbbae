/**
 * When to take a snapshot: soon after a change (once `settleMs` passes without another, so a rolling
 * update is one snapshot, not fifty), never more often than every `minIntervalMs`, and at least every
 * `maxIntervalMs` even when nothing changed, so the API can tell a quiet cluster from a dead agent.
 * Snapshots are taken one at a time; a change during one schedules the next.
 */

export type SnapshotTrigger = 'change' | 'heartbeat';

export interface PushSchedulerOptions {
  minIntervalMs: number;
  maxIntervalMs: number;
  settleMs: number;
  /** Takes a snapshot; resolves true when it was sent on (false: nothing new to send). */
  take: (trigger: SnapshotTrigger) => Promise<boolean>;
  onError: (error: unknown) => void;
  now?: () => number;
}

export class PushScheduler {
  private dirty = false;
  private dirtySince = 0;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastTakenAt = Number.NEGATIVE_INFINITY;
  private lastSentAt = 0;
  private started = false;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: PushSchedulerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Takes the first snapshot now, then follows changes and the heartbeat. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.dirty = true;
    this.dirtySince = this.lastSentAt = this.now();
    this.schedule(0);
  }

  get isStarted(): boolean {
    return this.started;
  }

  changed(): void {
    if (this.stopped) return;
    if (!this.dirty) this.dirtySince = this.now();
    this.dirty = true;
    if (this.started && !this.running) this.planNext();
  }

  /** Stops scheduling; waits for a snapshot being taken. Returns whether a change is still unsnapshotted. */
  async stop(): Promise<boolean> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    return this.dirty;
  }

  private planNext(): void {
    const now = this.now();
    const { settleMs, minIntervalMs, maxIntervalMs } = this.options;
    // Changes that never stop coming postpone the snapshot by at most one interval.
    const settled = Math.min(now + settleMs, this.dirtySince + Math.max(settleMs, minIntervalMs));
    const heartbeatAt = this.lastSentAt + maxIntervalMs;
    const at = this.dirty ? Math.min(Math.max(settled, this.lastTakenAt + minIntervalMs), heartbeatAt) : heartbeatAt;
    this.schedule(Math.max(0, at - now));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), delayMs);
  }

  private fire(): void {
    this.timer = null;
    if (this.stopped || this.running) return;
    // A heartbeat is due when nothing was sent for maxIntervalMs, even if changes that changed nothing
    // in the snapshot (say, node heartbeats) kept coming.
    const now = this.now();
    const trigger: SnapshotTrigger =
      this.dirty && now < this.lastSentAt + this.options.maxIntervalMs ? 'change' : 'heartbeat';
    this.dirty = false;
    this.lastTakenAt = now;
    this.running = this.options
      .take(trigger)
      .then((sent) => {
        // A heartbeat with nothing to send (a backlog already carries this state) still counts as one.
        if (sent || trigger === 'heartbeat') this.lastSentAt = this.now();
      })
      .catch((error: unknown) => {
        if (trigger === 'change' && !this.dirty) {
          this.dirty = true;
          this.dirtySince = this.now();
        }
        this.options.onError(error);
      })
      .finally(() => {
        this.running = null;
        if (!this.stopped) this.planNext();
      });
  }
}
