import { type FixReuse, type KubernetesList, NO_OVERRIDES, seededRandom } from '@zw/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatedSnapshots, snapshotText } from '../../../test/support/snapshot-mutations.js';
import { timeline } from '../../../test/support/snapshots.js';
import { ClusterFixReuse } from '../src/analysis-fix-reuse.js';
import { analyzeDocument, UnprocessableSnapshotError } from '../src/snapshot-analysis.js';

/**
 * An analysis thread reuses a Service's fixes from the cluster's previous snapshot when none of their
 * inputs changed. Whatever the order snapshots come in (late, re-driven, other clusters in between), the
 * fixes must be exactly those computed fresh for each snapshot. No I/O.
 */

/** The same cluster with one endpoint of every `every`-th slice moved to the next zone (its counts unchanged). */
function endpointsMoved(list: KubernetesList, every: number): KubernetesList {
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  let seen = 0;
  const items = list.items.map((item) => {
    if (item.kind !== 'EndpointSlice' || seen++ % every !== 0) return item;
    const [first, ...rest] = (item as { endpoints: { zone?: string }[] }).endpoints;
    const zone = zones[(zones.indexOf(first.zone ?? '') + 1) % zones.length];
    return { ...item, endpoints: [{ ...first, zone }, ...rest] };
  });
  return { ...list, items };
}

/** Every Service's fixes (as stored: JSON, content hash, best fraction) and the blocking nodes, as one text. */
function fixesOf(analyzed: ReturnType<typeof analyzeDocument>): string {
  return JSON.stringify([analyzed.aggregates.recommendations, analyzed.services.map((state) => state.fixes ?? null)]);
}

function freshFixes(text: string) {
  return fixesOf(analyzeDocument(JSON.parse(text)));
}

/** The fixes of one snapshot with the cluster's kept fixes, and how many Services' fixes were reused. */
function reusedFixes(reuse: ClusterFixReuse, clusterId: string, text: string) {
  const session = reuse.session(clusterId);
  let reused = 0;
  const counted: FixReuse = {
    begin(clusterInputs) {
      const scope = session.begin(clusterInputs);
      return {
        recall: (key, inputs) => {
          const kept = scope.recall(key, inputs);
          if (kept !== undefined) reused++;
          return kept;
        },
        remember: (key, inputs, fixes) => scope.remember(key, inputs, fixes),
      };
    },
  };
  const analyzed = analyzeDocument(JSON.parse(text), NO_OVERRIDES, counted);
  session.keep();
  return { fixes: fixesOf(analyzed), reused };
}

describe('reused fixes', () => {
  it('equal fresh ones over an evolving cluster taken in order, out of order and re-driven', () => {
    const lists = timeline(12, 40, 4, new Date('2026-11-01T00:00:00Z'));
    const texts = [...lists, endpointsMoved(lists[0], 3), endpointsMoved(lists[0], 5)].map((list) =>
      JSON.stringify(list),
    );
    const random = seededRandom(7);
    const order = [
      ...texts.keys(),
      ...Array.from({ length: 30 }, () => Math.floor(random() * texts.length)), // late and re-driven
    ];
    const reuse = new ClusterFixReuse();
    let reusedServices = 0;
    for (const index of order) {
      const { fixes, reused } = reusedFixes(reuse, 'cluster', texts[index]);
      expect(fixes).toEqual(freshFixes(texts[index]));
      reusedServices += reused;
    }
    // Not vacuous: most Services kept their fixes from one snapshot to the next.
    expect(reusedServices).toBeGreaterThan(order.length * 5);
  });

  it('equal fresh ones for any sequence of snapshots (nodes, slices, annotations changed), two clusters interleaved', () => {
    const reuse = new ClusterFixReuse();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b'), mutatedSnapshots()), { minLength: 2, maxLength: 6 }),
        (sequence) => {
          for (const [clusterId, { document }] of sequence) {
            const text = snapshotText(document);
            let fresh: unknown;
            try {
              fresh = freshFixes(text);
            } catch (error) {
              if (error instanceof UnprocessableSnapshotError) continue;
              throw error;
            }
            expect(reusedFixes(reuse, clusterId, text).fixes).toEqual(fresh);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
