import {
  type AnalyzedSnapshot,
  analyzeDocument,
  readPayload,
  UnprocessableSnapshotError,
} from './snapshot-analysis.js';

/** What a pool thread answers: the analysis, or why the snapshot can never be analysed. */
export type ThreadOutcome = { analyzed: AnalyzedSnapshot } | { unprocessable: string };

/** One stored payload, and the endpoint counts its flapping Services were seen at (`namespace/name`). */
export interface AnalysisTask {
  gzip: Uint8Array;
  countsSeen: Record<string, number[]>;
}

/**
 * The body of a pool thread (see analysis-pool.ts): inflate, parse, analyse and hash one stored payload.
 * A permanent failure comes back as a value, since an error crossing threads loses its class.
 */
export default async function analyzeStoredPayload(task: AnalysisTask): Promise<ThreadOutcome> {
  try {
    return { analyzed: analyzeDocument(await readPayload(task.gzip), task.countsSeen) };
  } catch (error) {
    if (error instanceof UnprocessableSnapshotError) return { unprocessable: error.message };
    throw error;
  }
}
