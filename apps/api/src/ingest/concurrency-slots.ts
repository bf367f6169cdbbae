/**
 * A fixed number of slots, taken in arrival order; a waiter gives up after a deadline. Bounds how many
 * pushes are read and parsed at once, which is what bounds ingest's memory.
 */
export class ConcurrencySlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** True once a slot is this caller's (release it), false when none came free within `timeoutMs`. */
  acquire(timeoutMs: number): Promise<boolean> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(false);
      }, timeoutMs);
      this.waiting.push(grant);
    });
  }

  /** Hands the slot to the longest waiter, or frees it. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }

  /** Slots taken now. */
  get taken(): number {
    return this.size - this.free;
  }

  /** Callers waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }
}
