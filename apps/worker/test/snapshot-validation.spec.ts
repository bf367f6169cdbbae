import { parseSnapshot, SnapshotError } from '@zw/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatedSnapshots, snapshotText } from '../../../test/support/snapshot-mutations.js';
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
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(300);
  });
});
