import {
  type AnalyzedSnapshot,
  analyzeDocument,
  readPayload,
  UnprocessableSnapshotError,
} from './snapshot-analysis.js';

/** What a pool thread answers: the analysis, or why the snapshot can never be analysed. */
export type ThreadOutcome = { analyzed: AnalyzedSnapshot } | { unprocessable: string };

/**
 * The body of a pool thread (see analysis-pool.ts): inflate, parse, analyse and hash one stored payload.
 * A permanent failure comes back as a value, since an error crossing threads loses its class.
 */
export default async function analyzeStoredPayload(gzip: Uint8Array): Promise<ThreadOutcome> {
  try {
    return { analyzed: analyzeDocument(await readPayload(gzip)) };
  } catch (error) {
    if (error instanceof UnprocessableSnapshotError) return { unprocessable: error.message };
    throw error;
  }
}
