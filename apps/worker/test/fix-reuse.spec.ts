import {
  type ClusterOverrides,
  type KubernetesList,
  MONTHLY_TRAFFIC_ANNOTATION,
  NO_OVERRIDES,
  seededRandom,
  type ServiceReuse,
  ZONE_TRAFFIC_WEIGHTS_ANNOTATION,
} from '@zw/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatedSnapshots, snapshotText } from '../../../test/support/snapshot-mutations.js';
import { evolve, fleet, timeline } from '../../../test/support/snapshots.js';
import { ClusterFixReuse } from '../src/analysis-fix-reuse.js';
import { analyzeDocument, UnprocessableSnapshotError } from '../src/snapshot-analysis.js';

/**
 * An analysis thread reuses a Service's fixes and routing preview from the cluster's previous snapshot
 * when none of their inputs changed. Whatever the order snapshots come in (late, re-driven, other
 * clusters in between, overrides changed), the analysis must be exactly the one computed fresh for each
 * snapshot: fixes, previews, state hashes and aggregates. No I/O.
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

/** The same cluster with the first Node's allocatable CPU multiplied (the zones' CPU shares move). */
function nodeCpuChanged(list: KubernetesList, factor: number): KubernetesList {
  let done = false;
  const items = list.items.map((item) => {
    if (item.kind !== 'Node' || done) return item;
    done = true;
    const node = item as unknown as { status: { allocatable: { cpu: string } } };
    const cpu = String(Number(node.status.allocatable.cpu) * factor);
    return { ...item, status: { ...node.status, allocatable: { ...node.status.allocatable, cpu } } };
  });
  return { ...list, items };
}

/** The same cluster with every third Service's monthly traffic stated (its fixes save more). */
function trafficAnnotated(list: KubernetesList, gb: string): KubernetesList {
  let seen = 0;
  const items = list.items.map((item) => {
    if (item.kind !== 'Service' || seen++ % 3 !== 0) return item;
    const annotations = { ...item.metadata.annotations, [MONTHLY_TRAFFIC_ANNOTATION]: gb };
    return { ...item, metadata: { ...item.metadata, annotations } };
  });
  return { ...list, items };
}

/** The same cluster with the traffic origin's zone weights stated (the origin shares move). */
function trafficWeighted(list: KubernetesList, weights: string): KubernetesList {
  const annotations = { ...list.metadata.annotations, [ZONE_TRAFFIC_WEIGHTS_ANNOTATION]: weights };
  return { ...list, metadata: { ...list.metadata, annotations } };
}

/** Overrides that change what previews and fixes give: versions before and after topology-mode, a data plane ignoring hints. */
const OVERRIDES: ClusterOverrides[] = [
  NO_OVERRIDES,
  { kubernetesVersion: '1.26', dataPlane: null },
  { kubernetesVersion: '1.30', dataPlane: null },
  { kubernetesVersion: null, dataPlane: 'cilium-no-topology' },
];

function analysisText(text: string, overrides: ClusterOverrides, reuse = {}) {
  return JSON.stringify(analyzeDocument(JSON.parse(text), overrides, reuse), (_key, value: unknown) =>
    typeof value === 'bigint' ? `${value}n` : value,
  );
}

function counted<T>(store: ServiceReuse<T>, reused: () => void): ServiceReuse<T> {
  return {
    begin(clusterInputs) {
      const scope = store.begin(clusterInputs);
      return {
        recall: (key, objects, inputs) => {
          const kept = scope.recall(key, objects, inputs);
          if (kept !== undefined) reused();
          return kept;
        },
        remember: (key, objects, inputs, value) => scope.remember(key, objects, inputs, value),
      };
    },
  };
}

/** One snapshot's analysis with the cluster's kept results, and how many Services' fixes and previews were reused. */
function reusedAnalysis(kept: ClusterFixReuse, clusterId: string, text: string, overrides = NO_OVERRIDES) {
  const session = kept.session(clusterId);
  const reused = { fixes: 0, previews: 0 };
  const analysis = analysisText(text, overrides, {
    fixes: counted(session.fixes, () => reused.fixes++),
    previews: counted(session.previews, () => reused.previews++),
  });
  session.keep();
  return { analysis, reused };
}

describe('reused fixes and routing previews', () => {
  it('equal fresh ones over an evolving cluster taken in order, out of order and re-driven, overrides changing', () => {
    const lists = timeline(12, 40, 4, new Date('2026-11-01T00:00:00Z'));
    const texts = [
      ...lists,
      endpointsMoved(lists[0], 3),
      endpointsMoved(lists[0], 5),
      nodeCpuChanged(lists[0], 4),
      trafficWeighted(lists[0], 'zone-a=5,zone-b=1,zone-c=1'),
    ].map((list) => JSON.stringify(list));
    const overridesOf = (step: number): ClusterOverrides => OVERRIDES[Math.floor(step / 7) % OVERRIDES.length];
    const random = seededRandom(7);
    const order = [
      ...texts.keys(),
      ...Array.from({ length: 40 }, () => Math.floor(random() * texts.length)), // late and re-driven
    ];
    const kept = new ClusterFixReuse();
    const total = { fixes: 0, previews: 0 };
    for (const [step, index] of order.entries()) {
      const overrides = overridesOf(step);
      const { analysis, reused } = reusedAnalysis(kept, 'cluster', texts[index], overrides);
      expect(analysis).toEqual(analysisText(texts[index], overrides));
      total.fixes += reused.fixes;
      total.previews += reused.previews;
    }
    // Not vacuous: most Services kept their fixes and previews from one snapshot to the next.
    expect(total.fixes).toBeGreaterThan(order.length * 5);
    expect(total.previews).toBeGreaterThan(order.length * 5);
  });

  it.each([
    ['other Services’ endpoints moved (the traffic origin moves)', (list: KubernetesList) => endpointsMoved(list, 4)],
    ['a node’s CPU changed', (list: KubernetesList) => nodeCpuChanged(list, 3)],
    ['zone traffic weights stated', (list: KubernetesList) => trafficWeighted(list, 'zone-a=1,zone-b=6,zone-c=2')],
    ['some Services’ traffic stated', (list: KubernetesList) => trafficAnnotated(list, '5000')],
    ['the same snapshot', (list: KubernetesList) => list],
  ])('follow a change of their inputs: %s', (_change, change) => {
    const first = fleet(30, 4, 5);
    const second = change(first);
    for (const overrides of OVERRIDES) {
      const kept = new ClusterFixReuse();
      reusedAnalysis(kept, 'cluster', JSON.stringify(first));
      // The overrides change between the two snapshots as well (the first was analysed without any).
      const { analysis } = reusedAnalysis(kept, 'cluster', JSON.stringify(second), overrides);
      expect(analysis).toEqual(analysisText(JSON.stringify(second), overrides));
    }
  });

  it('reuse every Service’s fixes and preview for an unchanged cluster, none across clusters', () => {
    const list = evolve(fleet(30, 4, 9), 3);
    const text = JSON.stringify(list);
    const kept = new ClusterFixReuse();
    const first = reusedAnalysis(kept, 'a', text);
    expect(first.reused).toEqual({ fixes: 0, previews: 0 });
    expect(reusedAnalysis(kept, 'b', text).reused).toEqual({ fixes: 0, previews: 0 });
    const again = reusedAnalysis(kept, 'a', text);
    expect(again.analysis).toEqual(first.analysis);
    expect(again.reused.fixes).toBeGreaterThan(5);
    expect(again.reused.previews).toBeGreaterThan(5);
  });

  it('equal fresh ones for any sequence of snapshots (nodes, slices, annotations changed), two clusters interleaved', () => {
    const kept = new ClusterFixReuse();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b'), mutatedSnapshots()), { minLength: 2, maxLength: 6 }),
        (sequence) => {
          for (const [clusterId, { document }] of sequence) {
            const text = snapshotText(document);
            let fresh: unknown;
            try {
              fresh = analysisText(text, NO_OVERRIDES);
            } catch (error) {
              if (error instanceof UnprocessableSnapshotError) continue;
              throw error;
            }
            expect(reusedAnalysis(kept, clusterId, text).analysis).toEqual(fresh);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
