import { setTimeout as sleep } from 'node:timers/promises';

interface Pending {
  capturedAt: number;
  written: Promise<void>;
  release(): void;
}

/** One claimed snapshot's place in its cluster's line (see {@link WriteOrder}). */
export interface WriteTurn {
  /**
   * Resolves once every snapshot of the cluster that this process claimed and that was captured earlier
   * is written (or given up), or after `waitMs` at the latest; true when there was any to wait for.
   */
  afterEarlier(waitMs: number): Promise<boolean>;
  /** Written or given up: later snapshots of the cluster stop waiting for this one. */
  leave(): void;
}

/**
 * The snapshots this process has claimed and not yet written, by cluster, so that two snapshots of one
 * cluster are written in captured-at order. Jobs run concurrently, and a queue filled by concurrent pushes
 * holds a cluster's snapshots slightly out of order: a snapshot written after a later one is inserted into
 * the past, the costly path (the intervals at the next snapshot, copies, the roll-up's days summed again),
 * while in order it only closes and opens what changed. The history is the same either way (the writer
 * places every snapshot by its neighbours), so waiting is bounded and only saves work: the earliest
 * snapshot never waits, so no cycle can form. Only the writes wait; analyses still overlap.
 */
export class WriteOrder {
  private readonly clusters = new Map<string, Set<Pending>>();

  enter(clusterId: string, capturedAt: Date): WriteTurn {
    let release = () => {};
    const written = new Promise<void>((resolve) => (release = resolve));
    const mine: Pending = { capturedAt: capturedAt.getTime(), written, release };
    let line = this.clusters.get(clusterId);
    if (line === undefined) this.clusters.set(clusterId, (line = new Set()));
    line.add(mine);
    const cluster = line;
    return {
      afterEarlier: (waitMs) => this.afterEarlier(cluster, mine, Date.now() + waitMs),
      leave: () => {
        cluster.delete(mine);
        if (cluster.size === 0 && this.clusters.get(clusterId) === cluster) this.clusters.delete(clusterId);
        mine.release();
      },
    };
  }

  private async afterEarlier(line: Set<Pending>, mine: Pending, deadline: number): Promise<boolean> {
    let waited = false;
    for (;;) {
      // Earlier snapshots claimed meanwhile count too, hence the loop.
      const earlier = [...line].filter((other) => other.capturedAt < mine.capturedAt);
      const remaining = deadline - Date.now();
      if (earlier.length === 0 || remaining <= 0) return waited;
      waited = true;
      const timer = new AbortController();
      await Promise.race([
        Promise.all(earlier.map((other) => other.written)),
        sleep(remaining, undefined, { signal: timer.signal }).catch(() => undefined),
      ]);
      timer.abort();
    }
  }
}
