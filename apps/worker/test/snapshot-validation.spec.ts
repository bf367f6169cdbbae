import { parseSnapshot, SnapshotError } from '@zw/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseSnapshots, mutatedSnapshots, snapshotText } from '../../../test/support/snapshot-mutations.js';
import { analyzeDocument } from '../src/snapshot-analysis.js';

/**
 * The core's snapshot parser is the one door of the pipeline (ingest, simulate and the worker call it):
 * whatever it accepts, the worker's analysis must process. Mutated snapshots, no I/O.
 */
describe('a snapshot parseSnapshot accepts is one the worker can analyse', () => {
  it('holds for thousands of mutated snapshots', () => {
    let accepted = 0;
    fc.assert(
      fc.property(mutatedSnapshots(), ({ document }) => {
        const text = snapshotText(document);
        try {
          parseSnapshot(JSON.parse(text));
        } catch (error) {
          if (error instanceof SnapshotError) return;
          throw error;
        }
        accepted++;
        const analyzed = analyzeDocument(JSON.parse(text));
        expect(analyzed.aggregates.services).toBe(analyzed.services.length);
        // What the analysis thread hands the main thread is a structured clone: a value that cannot be
        // cloned (a function) would fail every attempt to record the snapshot.
        expect(structuredClone(analyzed)).toEqual(analyzed);
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(300);
  });
});

/** Names a plain object inherits: a lookup by such a name finds Object.prototype's member, not a miss. */
const INHERITED_NAMES = ['constructor', 'hasOwnProperty', 'isPrototypeOf', '__proto__', '__defineGetter__'];

/** The analysis as JSON, content hashes left out (they hash the names), the renamed name put back. */
function analysisText(text: string, rename?: { from: string; to: string }): string {
  const analyzed = analyzeDocument(JSON.parse(text));
  const json = JSON.stringify(structuredClone(analyzed), (key, value: unknown) =>
    /hash$/i.test(key) ? undefined : value,
  );
  return rename ? json.replaceAll(rename.to, rename.from) : json;
}

/** The base snapshots, the first endpoint of each put in a zone no node is in. */
function withOrphanZone(name: string): string[] {
  return baseSnapshots().map((base) => snapshotText(base).replace(/"zone":"zone-[abc]"/, `"zone":"${name}"`));
}

describe('a zone or node named like an Object.prototype member is analysed like any other', () => {
  // Label values and node names may be any of these. Each sorts before the name it replaces and the
  // names after it, so no order of the analysis moves. Found by the ingest fuzz: an endpoint's zone named
  // `constructor`, in which no node was, took the inherited function as its traffic share, so the
  // analysis could not be handed to the history writer and the accepted snapshot was never recorded.
  const renames = INHERITED_NAMES.flatMap((name) => [
    { what: 'zone of nodes and endpoints', from: 'zone-a', to: name, texts: () => baseSnapshots().map(snapshotText) },
    { what: 'zone of an endpoint only', from: 'aaa-orphan', to: name, texts: () => withOrphanZone('aaa-orphan') },
    { what: 'node', from: 'node-00001', to: name, texts: () => baseSnapshots().map(snapshotText) },
  ]);
  it.each(renames)('$what $from renamed $to', ({ from, to, texts }) => {
    for (const text of texts()) {
      // Quoted names, and the zone-traffic-weights annotation's `zone=weight` pairs.
      const renamed = text.replaceAll(`"${from}"`, `"${to}"`).replaceAll(`${from}=`, `${to}=`);
      expect(renamed).not.toBe(text);
      expect(analysisText(renamed, { from, to })).toBe(analysisText(text));
    }
  });
});
