import type { FixReuse, FixReuseScope, Recommendation } from '@zw/core';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';

/**
 * Services whose fixes are kept, over all clusters: a 10,000-Service cluster's fixes take some tens of
 * MiB, so a thread keeps about that many and forgets the least recently analysed clusters first.
 */
const MAX_KEPT_SERVICES = 20_000;

interface KeptFixes {
  /** SHA-256 of the cluster's and the Service's fix inputs. */
  inputs: string;
  fixes: Recommendation[];
}

/**
 * The fixes of each cluster's last analysed snapshot, kept by a pool thread for the next snapshot of the
 * same cluster: between two snapshots most Services change nothing their fixes depend on, and recommending
 * fixes (a run of the controller and the traffic model per candidate change) costs more than the analysis.
 * Reuse is keyed on a digest of every input (see `FixReuse` in the core), so the fixes are those a fresh
 * computation gives, whatever order snapshots come in; a miss only costs the computation.
 */
export class ClusterFixReuse {
  private readonly clusters = new LRUCache<string, Map<string, KeptFixes>>({
    maxSize: MAX_KEPT_SERVICES,
    sizeCalculation: (kept) => Math.max(1, kept.size),
  });

  /** Fixes for one snapshot of the cluster; `keep()` once they are all computed makes them the cluster's. */
  session(clusterId: string): FixReuse & { keep(): void } {
    const previous = this.clusters.get(clusterId);
    const current = new Map<string, KeptFixes>();
    return {
      begin: (clusterInputs) => scope(digest(clusterInputs), previous, current),
      keep: () => {
        // A cluster larger than the whole budget is not kept (LRUCache refuses it) and is computed afresh.
        this.clusters.set(clusterId, current);
      },
    };
  }
}

function scope(
  clusterDigest: string,
  previous: ReadonlyMap<string, KeptFixes> | undefined,
  current: Map<string, KeptFixes>,
): FixReuseScope {
  // A miss is remembered right after it was recalled: its digest is computed once.
  let last = { serviceInputs: '', digest: '' };
  const inputsOf = (serviceInputs: string) => {
    if (last.serviceInputs !== serviceInputs) last = { serviceInputs, digest: digest(serviceInputs, clusterDigest) };
    return last.digest;
  };
  return {
    recall(key, serviceInputs) {
      const kept = previous?.get(key);
      if (kept === undefined || kept.inputs !== inputsOf(serviceInputs)) return undefined;
      current.set(key, kept);
      return kept.fixes;
    },
    remember(key, serviceInputs, fixes) {
      current.set(key, { inputs: inputsOf(serviceInputs), fixes });
    },
  };
}

function digest(text: string, prefix = ''): string {
  return createHash('sha256').update(prefix).update(text).digest('base64');
}
