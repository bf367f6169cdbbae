/**
 * Exponential backoff with jitter: the n-th consecutive failure waits between half and all of
 * `initialMs · 2^n`, capped at `maxMs`.
 *
 * Decision: "equal jitter" (half fixed, half random) rather than full jitter. Full jitter can retry
 * almost at once; with many agents pushing to one API coming back from an outage, the fixed half keeps
 * them from hammering it, and the random half still spreads them out.
 */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Uniform in [0, 1); injectable so tests and the simulator are deterministic. */
  random?: () => number;
}

export class Backoff {
  private failures = 0;
  private readonly random: () => number;

  constructor(private readonly options: BackoffOptions) {
    this.random = options.random ?? Math.random;
  }

  /** The delay before the next attempt, counting one more failure. */
  next(): number {
    const ceiling = Math.min(this.options.maxMs, this.options.initialMs * 2 ** Math.min(this.failures, 40));
    this.failures++;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.failures = 0;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }
}

/** Resolves after `ms`, or early (without error) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
