import { readSnapshot, type SnapshotReadOutcome, type SnapshotReadTask } from './snapshot-reading.js';

/** The body of an ingest thread (see snapshot-reader.ts): read one pushed body. */
export default function readPushedSnapshot(task: SnapshotReadTask): SnapshotReadOutcome {
  return readSnapshot(task);
}
