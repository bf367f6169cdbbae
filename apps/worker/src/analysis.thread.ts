import {
  type AnalyzedSnapshot,
  analyzeDocument,
  readPayload,
  UnprocessableSnapshotError,
} from './snapshot-analysis.js';

import type { ClusterOverrides } from '@zw/core';
import { ClusterFixReuse } from './analysis-fix-reuse.js';

/** What a pool thread is given: a stored payload, its cluster and the cluster's overrides. */
export interface AnalysisTask {
  clusterId: string;
  gzip: Uint8Array;
  overrides: ClusterOverrides;
}

const kept = new ClusterFixReuse();

/** What a pool thread answers: the analysis, or why the snapshot can never be analysed. */
export type ThreadOutcome = { analyzed: AnalyzedSnapshot } | { unprocessable: string };

/**
 * The body of a pool thread (see analysis-pool.ts): inflate, parse, analyse and hash one stored payload.
 * A permanent failure comes back as a value, since an error crossing threads loses its class.
 */
export default async function analyzeStoredPayload({
  clusterId,
  gzip,
  overrides,
}: AnalysisTask): Promise<ThreadOutcome> {
  try {
    const document = await readPayload(gzip);
    const reuse = kept.session(clusterId);
    const analyzed = analyzeDocument(document, overrides, reuse);
    reuse.keep();
    return { analyzed };
  } catch (error) {
    if (error instanceof UnprocessableSnapshotError) return { unprocessable: error.message };
    throw error;
  }
}
