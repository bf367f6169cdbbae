import type { ClusterOverrides } from '@zw/core';
import { LRUCache } from 'lru-cache';
import type { AnalyzedSnapshot } from './snapshot-analysis.js';

/**
 * Services whose analysis is kept, over all clusters (one analysis each, the latest): a mid-size
 * snapshot's takes about 1 MiB, so this is some tens of MiB at most; a cluster larger than the whole
 * budget is never kept.
 */
const MAX_KEPT_SERVICES = 20_000;

interface Kept {
  /** The snapshot's input hash and the cluster's overrides it was analysed with. */
  input: string;
  analyzed: Promise<AnalyzedSnapshot>;
  /** Known once it has resolved: what it weighs in the cache. */
  services: number;
}

/**
 * The latest analysis of each cluster, by what it was computed from: the snapshot's input hash (SHA-256
 * of the document without its captured-at, ingest's `inputHashOf`) and the cluster's overrides. A
 * snapshot whose input equals the one analysed last reuses that analysis instead of inflating, parsing
 * and analysing its payload again: the very rule that lets a repeat reuse its predecessor's stored
 * summary (recordRepeatedSummary), applied to the snapshots that rule cannot take (their predecessor was
 * still queued when they were claimed, so they arrive as the equal input's neighbour out of order, or a
 * later snapshot is recorded already). They are then recorded as any analysed snapshot, placed by their
 * neighbours, so the history is the same as with a fresh analysis; only the CPU is saved. Two concurrent
 * jobs of one input share one analysis. A failed analysis is not kept.
 */
export class RecentAnalyses {
  private readonly clusters = new LRUCache<string, Kept>({
    maxSize: MAX_KEPT_SERVICES,
    sizeCalculation: (kept) => Math.max(1, kept.services),
  });

  /** The analysis of a snapshot of the cluster with this input: the kept one when it is equal, else `compute()`'s. */
  analyze(
    clusterId: string,
    inputHash: string | null,
    overrides: ClusterOverrides,
    compute: () => Promise<AnalyzedSnapshot>,
  ): Promise<AnalyzedSnapshot> {
    if (inputHash === null) return compute();
    const input = `${inputHash} ${JSON.stringify([overrides.kubernetesVersion ?? null, overrides.dataPlane ?? null])}`;
    const kept = this.clusters.get(clusterId);
    if (kept?.input === input) return kept.analyzed;
    const entry: Kept = { input, analyzed: compute(), services: 1 };
    this.clusters.set(clusterId, entry);
    entry.analyzed.then(
      (analyzed) => {
        if (this.clusters.peek(clusterId) !== entry) return;
        // Set again with its real weight (a cluster larger than the budget is then dropped).
        entry.services = analyzed.services.length;
        this.clusters.set(clusterId, entry);
      },
      () => {
        if (this.clusters.peek(clusterId) === entry) this.clusters.delete(clusterId);
      },
    );
    return entry.analyzed;
  }
}
