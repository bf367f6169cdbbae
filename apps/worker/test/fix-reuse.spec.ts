import {
  analyzeSnapshot,
  applyClusterOverrides,
  type ClusterOverrides,
  type KubernetesList,
  MONTHLY_TRAFFIC_ANNOTATION,
  NO_OVERRIDES,
  parseSnapshot,
  seededRandom,
  type Service,
  type ServiceAnalysisReuse,
  type ServiceObjects,
  type ServiceReuse,
  ZONE_TRAFFIC_WEIGHTS_ANNOTATION,
} from '@zw/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatedSnapshots, snapshotText } from '../../../test/support/snapshot-mutations.js';
import { evolve, fleet, timeline } from '../../../test/support/snapshots.js';
import { ClusterFixReuse, type ReuseSession } from '../src/analysis-fix-reuse.js';
import { type AnalysisReuse, analyzeDocument, UnprocessableSnapshotError } from '../src/snapshot-analysis.js';

/**
 * An analysis thread reuses a Service's analysis, fixes and routing preview from the cluster's previous
 * snapshot when none of their inputs changed. Whatever the order snapshots come in (late, re-driven,
 * other clusters in between, overrides changed), the analysis must be exactly the one computed fresh for
 * each snapshot: the core's whole report, fixes, previews, state hashes and aggregates. No I/O.
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

/** The same cluster with the topology annotation of every `every`-th Service toggled (its routing changes). */
function topologyToggled(list: KubernetesList, every: number): KubernetesList {
  let seen = 0;
  const items = list.items.map((item) => {
    if (item.kind !== 'Service' || seen++ % every !== 0) return item;
    const annotations = { ...item.metadata.annotations };
    if (annotations['service.kubernetes.io/topology-mode']) delete annotations['service.kubernetes.io/topology-mode'];
    else annotations['service.kubernetes.io/topology-mode'] = 'Auto';
    return { ...item, metadata: { ...item.metadata, annotations } };
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

function analysisText(text: string, overrides: ClusterOverrides, reuse: AnalysisReuse = {}) {
  const analyzed = analyzeDocument(JSON.parse(text), overrides, reuse);
  // What the thread hands the main thread is a structured clone of it.
  expect(structuredClone(analyzed)).toEqual(analyzed);
  return JSON.stringify(analyzed, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
}

/** The core's whole report (every field of every Service's analysis), as the worker runs the core. */
function reportText(text: string, overrides: ClusterOverrides, reuse?: ServiceAnalysisReuse) {
  const document: unknown = JSON.parse(text);
  applyClusterOverrides(document, overrides);
  return JSON.stringify(analyzeSnapshot(parseSnapshot(document), { reuse }));
}

function counted<T>(store: ServiceReuse<T>, reused: () => void): ServiceReuse<T> {
  return {
    begin(nodes, clusterInputs) {
      const scope = store.begin(nodes, clusterInputs);
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

type Wrap = <T>(store: ServiceReuse<T>) => ServiceReuse<T>;

/**
 * One snapshot's analysis with the cluster's kept results (each store wrapped by `wrap`), how many
 * Services' analyses, fixes and previews were reused, and the core's whole report with the same kept
 * analyses.
 */
function reusedAnalysis(
  kept: ClusterFixReuse,
  clusterId: string,
  text: string,
  overrides = NO_OVERRIDES,
  wrap: Wrap = (store) => store,
) {
  const session: ReuseSession = kept.session(clusterId);
  const reused = { analyses: 0, fixes: 0, previews: 0 };
  const analysis = analysisText(text, overrides, {
    analyses: counted(wrap(session.analyses), () => reused.analyses++),
    fixes: counted(wrap(session.fixes), () => reused.fixes++),
    previews: counted(wrap(session.previews), () => reused.previews++),
  });
  // Recalls from the same kept results; what it remembers equals what the analysis above did.
  const report = reportText(text, overrides, wrap(session.analyses));
  session.keep();
  return { analysis, report, reused };
}

/** Both the worker's analysis and the core's report of a snapshot are those computed fresh. */
function expectFresh(result: { analysis: string; report: string }, text: string, overrides: ClusterOverrides) {
  expect(result.report).toEqual(reportText(text, overrides));
  expect(result.analysis).toEqual(analysisText(text, overrides));
}

describe('reused analyses, fixes and routing previews', () => {
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
    const total = { analyses: 0, fixes: 0, previews: 0 };
    for (const [step, index] of order.entries()) {
      const overrides = overridesOf(step);
      const result = reusedAnalysis(kept, 'cluster', texts[index], overrides);
      expectFresh(result, texts[index], overrides);
      total.analyses += result.reused.analyses;
      total.fixes += result.reused.fixes;
      total.previews += result.reused.previews;
    }
    // Not vacuous: most Services kept their analyses, fixes and previews from one snapshot to the next.
    expect(total.analyses).toBeGreaterThan(order.length * 10);
    expect(total.fixes).toBeGreaterThan(order.length * 5);
    expect(total.previews).toBeGreaterThan(order.length * 5);
  });

  it.each([
    ['other Services’ endpoints moved (the traffic origin moves)', (list: KubernetesList) => endpointsMoved(list, 4)],
    ['a node’s CPU changed', (list: KubernetesList) => nodeCpuChanged(list, 3)],
    ['zone traffic weights stated', (list: KubernetesList) => trafficWeighted(list, 'zone-a=1,zone-b=6,zone-c=2')],
    ['some Services’ traffic stated', (list: KubernetesList) => trafficAnnotated(list, '5000')],
    ['some Services’ topology annotation toggled', (list: KubernetesList) => topologyToggled(list, 4)],
    ['the same snapshot', (list: KubernetesList) => list],
  ])('follow a change of their inputs: %s', (_change, change) => {
    const first = fleet(30, 4, 5);
    const second = JSON.stringify(change(first));
    for (const overrides of OVERRIDES) {
      const kept = new ClusterFixReuse();
      reusedAnalysis(kept, 'cluster', JSON.stringify(first));
      // The overrides change between the two snapshots as well (the first was analysed without any).
      expectFresh(reusedAnalysis(kept, 'cluster', second, overrides), second, overrides);
    }
  });

  // The converse: each of these inputs changes some Service's kept result, so a key that left it out
  // would reuse a stale one, and the comparisons with fresh analyses above would fail.
  it.each([
    [
      'the nodes (a node’s CPU changed: the CPU ratios)',
      'cluster',
      (list: KubernetesList) => nodeCpuChanged(list, 3),
      NO_OVERRIDES,
    ],
    [
      'the origin shares',
      'cluster',
      (list: KubernetesList) => trafficWeighted(list, 'zone-a=1,zone-b=6,zone-c=2'),
      NO_OVERRIDES,
    ],
    ['the cluster model (version)', 'cluster', (list: KubernetesList) => list, OVERRIDES[1]],
    ['the cluster model (data plane)', 'cluster', (list: KubernetesList) => list, OVERRIDES[3]],
    ['the Service', 'service', (list: KubernetesList) => topologyToggled(list, 4), NO_OVERRIDES],
    ['its slices', 'slices', (list: KubernetesList) => endpointsMoved(list, 3), NO_OVERRIDES],
  ] as const)('a key leaving out %s reuses stale results', (_input, omitted, change, overrides) => {
    const first = fleet(30, 4, 5);
    const second = JSON.stringify(change(first));
    const kept = new ClusterFixReuse();
    reusedAnalysis(kept, 'cluster', JSON.stringify(first), NO_OVERRIDES, forgetting(omitted));
    const stale = reusedAnalysis(kept, 'cluster', second, overrides, forgetting(omitted));
    expect(stale.report).not.toEqual(reportText(second, overrides));
    expect(stale.analysis).not.toEqual(analysisText(second, overrides));
  });

  it('never change a kept result: later analyses only read it', () => {
    const texts = timeline(10, 40, 4, new Date('2026-11-01T00:00:00Z')).map((list) => JSON.stringify(list));
    const kept = new ClusterFixReuse();
    for (const [step, text] of [...texts, ...texts.slice(0, 4)].entries()) {
      const overrides = OVERRIDES[step % OVERRIDES.length];
      // Frozen values throw on any write (modules run in strict mode).
      expectFresh(reusedAnalysis(kept, 'cluster', text, overrides, freezing), text, overrides);
    }
  });

  it('reuse every Service’s fixes and preview for an unchanged cluster, none across clusters', () => {
    const list = evolve(fleet(30, 4, 9), 3);
    const text = JSON.stringify(list);
    const kept = new ClusterFixReuse();
    const first = reusedAnalysis(kept, 'a', text);
    expect(first.reused).toEqual({ analyses: 0, fixes: 0, previews: 0 });
    expect(reusedAnalysis(kept, 'b', text).reused).toEqual({ analyses: 0, fixes: 0, previews: 0 });
    const again = reusedAnalysis(kept, 'a', text);
    expect(again.analysis).toEqual(first.analysis);
    expect(again.report).toEqual(first.report);
    expect(again.reused.analyses).toBe(list.items.filter((item) => item.kind === 'Service').length);
    expect(again.reused.fixes).toBeGreaterThan(5);
    expect(again.reused.previews).toBeGreaterThan(5);
  });

  it('keep as many clusters as their Services, endpoints and nodes fit the budget, whatever their Service count', () => {
    const list = evolve(fleet(30, 4, 9), 3);
    const text = JSON.stringify(list);
    const services = list.items.filter((item) => item.kind === 'Service').length;
    const objects =
      services +
      list.items.filter((item) => item.kind === 'Node').length +
      list.items
        .filter((item) => item.kind === 'EndpointSlice')
        .reduce((sum, slice) => sum + (slice as unknown as { endpoints: unknown[] }).endpoints.length, 0);
    expect(objects).toBeGreaterThan(2 * services);

    const fits = new ClusterFixReuse(objects);
    reusedAnalysis(fits, 'a', text);
    expect(reusedAnalysis(fits, 'a', text).reused.analyses).toBe(services);
    // A second cluster as large takes the whole budget: the first is forgotten.
    reusedAnalysis(fits, 'b', text);
    expect(reusedAnalysis(fits, 'a', text).reused).toEqual({ analyses: 0, fixes: 0, previews: 0 });

    const tooLarge = new ClusterFixReuse(objects - 1);
    reusedAnalysis(tooLarge, 'a', text);
    const again = reusedAnalysis(tooLarge, 'a', text);
    expect(again.reused).toEqual({ analyses: 0, fixes: 0, previews: 0 });
    expectFresh(again, text, NO_OVERRIDES);
  });

  it('equal fresh ones for any sequence of snapshots (nodes, slices, annotations changed), two clusters interleaved', () => {
    const kept = new ClusterFixReuse();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b'), mutatedSnapshots()), { minLength: 2, maxLength: 6 }),
        (sequence) => {
          for (const [clusterId, { document }] of sequence) {
            const text = snapshotText(document);
            try {
              analysisText(text, NO_OVERRIDES);
            } catch (error) {
              if (error instanceof UnprocessableSnapshotError) continue;
              throw error;
            }
            expectFresh(reusedAnalysis(kept, clusterId, text), text, NO_OVERRIDES);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

const NO_SERVICE = { metadata: { name: 'any' } } as Service;

/** A store whose key leaves out the cluster's inputs, the Service or its slices (a broken key, on purpose). */
function forgetting(omitted: 'cluster' | 'service' | 'slices'): Wrap {
  const objects = ({ service, slices }: ServiceObjects): ServiceObjects => ({
    service: omitted === 'service' ? NO_SERVICE : service,
    slices: omitted === 'slices' ? [] : slices,
  });
  return (store) => ({
    begin(nodes, clusterInputs) {
      const scope = omitted === 'cluster' ? store.begin([], '') : store.begin(nodes, clusterInputs);
      return {
        recall: (key, serviceObjects, inputs) => scope.recall(key, objects(serviceObjects), inputs),
        remember: (key, serviceObjects, inputs, value) => scope.remember(key, objects(serviceObjects), inputs, value),
      };
    },
  });
}

/** A store that deep-freezes what it keeps and the objects it compares them by. */
const freezing: Wrap = (store) => ({
  begin(nodes, clusterInputs) {
    const scope = store.begin(deepFrozen(nodes), clusterInputs);
    return {
      recall: (key, objects, inputs) => scope.recall(key, deepFrozen(objects), inputs),
      remember: (key, objects, inputs, value) => scope.remember(key, deepFrozen(objects), inputs, deepFrozen(value)),
    };
  },
});

function deepFrozen<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFrozen(child);
  return value;
}
