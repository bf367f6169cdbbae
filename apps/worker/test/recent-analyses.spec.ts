import { type ClusterOverrides, type KubernetesList, NO_OVERRIDES, seededRandom } from '@zw/core';
import { describe, expect, it } from 'vitest';
import { capturedAt, fleet, timeline } from '../../../test/support/snapshots.js';
import { inputHashOf } from '../../api/src/ingest/captured-at.js';
import { ClusterFixReuse } from '../src/analysis-fix-reuse.js';
import { RecentAnalyses } from '../src/recent-analyses.js';
import { type AnalyzedSnapshot, analyzeDocument, UnprocessableSnapshotError } from '../src/snapshot-analysis.js';

/**
 * A worker reuses the analysis of the last input it analysed for a cluster when a snapshot has the same
 * input (hash of the document without its captured-at) and overrides. Whatever the order snapshots come
 * in (ordered, shuffled, re-driven, other clusters in between), what it gets must be exactly the fresh
 * analysis of that very snapshot. No I/O.
 */

const hex = (list: KubernetesList) => Buffer.from(inputHashOf(structuredClone(list) as never)).toString('hex');

/** The analysis as comparable text (state hashes are bigints). */
function textOf(analyzed: AnalyzedSnapshot): string {
  return JSON.stringify(analyzed, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

function shuffled<T>(items: T[], seed: number): T[] {
  const random = seededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** A cluster's snapshots where every other one repeats its predecessor's input at a later captured-at. */
function withRepeats(count: number): KubernetesList[] {
  const start = new Date('2026-11-28T00:00:00Z');
  return timeline(count, 24, 3, start).flatMap((list, i) => [
    capturedAt(list, new Date(start.getTime() + i * 120_000)),
    capturedAt(list, new Date(start.getTime() + i * 120_000 + 60_000)),
  ]);
}

describe('the analysis a worker reuses for a snapshot of the same input', () => {
  const sequence = withRepeats(8);
  const overridesOf = (i: number): ClusterOverrides =>
    i % 4 === 1 ? { kubernetesVersion: '1.30', dataPlane: null } : NO_OVERRIDES;

  it.each([
    ['in captured-at order', sequence.map((_, i) => i)],
    ['shuffled', shuffled([...sequence.keys()], 7)],
    [
      're-driven (the whole sequence twice, the second time backwards)',
      [...sequence.keys(), ...[...sequence.keys()].reverse()],
    ],
  ])('equals the fresh analysis of every snapshot, %s', async (_order, indexes) => {
    const recent = new RecentAnalyses();
    const fixReuse = new ClusterFixReuse();
    let computed = 0;
    for (const [step, i] of indexes.entries()) {
      // Two clusters share the worker: the other one's snapshots come in between.
      const clusterId = step % 3 === 2 ? 'other' : 'cluster';
      const overrides = clusterId === 'other' ? NO_OVERRIDES : overridesOf(i);
      const analyzed = await recent.analyze(clusterId, hex(sequence[i]), overrides, async () => {
        computed++;
        const fixes = fixReuse.session(clusterId);
        const result = analyzeDocument(structuredClone(sequence[i]), overrides, fixes);
        fixes.keep();
        return result;
      });
      expect(textOf(analyzed)).toEqual(textOf(analyzeDocument(structuredClone(sequence[i]), overrides)));
    }
    // It really reused some: not every snapshot was analysed.
    expect(computed).toBeLessThan(indexes.length);
  });

  it('is not the analysis of another input, or of the same input with other overrides', async () => {
    const recent = new RecentAnalyses();
    const lists = [1, 2, 3, 4, 5, 6].map((seed) => fleet(10, 3, seed));
    const [first, second] = lists;
    const analyses: string[] = [];
    const cilium = { kubernetesVersion: null, dataPlane: 'cilium' };
    const analyze = (list: KubernetesList, overrides: ClusterOverrides) =>
      recent.analyze('cluster', hex(list), overrides, async () => {
        analyses.push(`${hex(list)} ${overrides.dataPlane}`);
        return analyzeDocument(structuredClone(list), overrides);
      });
    await analyze(first, NO_OVERRIDES);
    await analyze(second, NO_OVERRIDES);
    // The last two inputs of a cluster are kept: the first is still there.
    await analyze(first, NO_OVERRIDES);
    await analyze(second, cilium);
    await analyze(second, cilium);
    expect(analyses).toEqual([`${hex(first)} null`, `${hex(second)} null`, `${hex(second)} cilium`]);
    // Two other inputs later it is not.
    for (const list of lists.slice(2, 4)) await analyze(list, NO_OVERRIDES);
    await analyze(first, NO_OVERRIDES);
    expect(analyses).toHaveLength(3 + 2 + 1);
    expect(analyses.at(-1)).toBe(`${hex(first)} null`);
  });

  it('is shared by concurrent snapshots of one input, and a failed analysis is not kept', async () => {
    const recent = new RecentAnalyses();
    const [list] = timeline(1, 6, 3, new Date('2026-11-28T00:00:00Z'));
    let calls = 0;
    const failing = () =>
      recent.analyze('cluster', hex(list), NO_OVERRIDES, async () => {
        calls++;
        throw new UnprocessableSnapshotError('raw payload is gone');
      });
    await expect(Promise.all([failing(), failing()])).rejects.toThrow(/payload is gone/);
    expect(calls).toBe(1);
    const fresh = () =>
      recent.analyze('cluster', hex(list), NO_OVERRIDES, async () => {
        calls++;
        return analyzeDocument(structuredClone(list));
      });
    const [a, b] = await Promise.all([fresh(), fresh()]);
    expect(a).toBe(b);
    expect(calls).toBe(2);
    // A snapshot stored without an input hash is always analysed.
    await recent.analyze('cluster', null, NO_OVERRIDES, async () => {
      calls++;
      return a;
    });
    expect(calls).toBe(3);
  });
});
