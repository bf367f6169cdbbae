import type { ClusterOverrides } from '@zw/core';
import { LRUCache } from 'lru-cache';
import type { AnalyzedSnapshot } from './snapshot-analysis.js';

/**
 * Services whose analyses are kept, over all clusters: a mid-size snapshot's analysis takes about 1 MiB,
 * so this is some tens of MiB at most; a cluster whose kept analyses weigh more than the whole budget
 * keeps none.
 */
const MAX_KEPT_SERVICES = 20_000;

/**
 * Distinct inputs kept per cluster, the latest analysed. A cluster's snapshots reach the queue a few at a
 * time and slightly out of order (concurrent pushes, retries, jobs running concurrently), so a snapshot
 * whose input repeats its predecessor's may be claimed after the next change was analysed already: with
 * the latest input only, 30 of the 52 such repeats in the pipeline bench's mixed stream were analysed
 * again. Two cover a repeat claimed one change late (and a cluster flapping between two states); more
 * would mostly serve the bench, whose changed snapshots cycle through four inputs.
 */
const INPUTS_PER_CLUSTER = 2;

interface KeptAnalysis {
  /** The snapshot's input hash and the cluster's overrides it was analysed with. */
  input: string;
  analyzed: Promise<AnalyzedSnapshot>;
  /** Known once it has resolved: what it weighs in the cache. */
  services: number;
}

/** A cluster's kept analyses, the most recently used last. */
type Kept = KeptAnalysis[];

/**
 * The latest analyses of each cluster, by what they were computed from: the snapshot's input hash (SHA-256
 * of the document without its captured-at, ingest's `inputHashOf`) and the cluster's overrides. A
 * snapshot whose input equals one analysed lately reuses that analysis instead of inflating, parsing and
 * analysing its payload again: the very rule that lets a repeat reuse its predecessor's stored summary
 * (recordRepeatedSummary), applied to the snapshots that rule cannot take (their predecessor was still
 * queued when they were claimed, or a later snapshot was recorded first). They are then recorded as any
 * analysed snapshot, placed by their neighbours, so the history is the same as with a fresh analysis; only
 * the CPU is saved. Two concurrent jobs of one input share one analysis. A failed analysis is not kept.
 */
export class RecentAnalyses {
  private readonly clusters = new LRUCache<string, Kept>({
    maxSize: MAX_KEPT_SERVICES,
    sizeCalculation: (kept) =>
      Math.max(
        1,
        kept.reduce((sum, entry) => sum + entry.services, 0),
      ),
  });

  /** The analysis of a snapshot of the cluster with this input: a kept one when it is equal, else `compute()`'s. */
  analyze(
    clusterId: string,
    inputHash: string | null,
    overrides: ClusterOverrides,
    compute: () => Promise<AnalyzedSnapshot>,
  ): Promise<AnalyzedSnapshot> {
    if (inputHash === null) return compute();
    const input = `${inputHash} ${JSON.stringify([overrides.kubernetesVersion ?? null, overrides.dataPlane ?? null])}`;
    const kept = this.clusters.get(clusterId) ?? [];
    const found = kept.findIndex((entry) => entry.input === input);
    if (found >= 0) {
      const [entry] = kept.splice(found, 1);
      kept.push(entry);
      return entry.analyzed;
    }
    const entry: KeptAnalysis = { input, analyzed: compute(), services: 1 };
    this.keep(clusterId, [...kept, entry].slice(-INPUTS_PER_CLUSTER));
    entry.analyzed.then(
      (analyzed) => {
        entry.services = analyzed.services.length;
        // Set again with its real weight (a cluster over the budget is then dropped).
        const now = this.clusters.peek(clusterId);
        if (now?.includes(entry)) this.keep(clusterId, now);
      },
      () => {
        const now = this.clusters.peek(clusterId);
        if (now?.includes(entry))
          this.keep(
            clusterId,
            now.filter((other) => other !== entry),
          );
      },
    );
    return entry.analyzed;
  }

  private keep(clusterId: string, kept: Kept): void {
    if (kept.length === 0) this.clusters.delete(clusterId);
    else this.clusters.set(clusterId, kept);
  }
}
