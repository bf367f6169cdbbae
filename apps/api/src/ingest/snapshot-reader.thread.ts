import { getPriority, setPriority } from 'node:os';
import { readSnapshot, type SnapshotReadOutcome, type SnapshotReadTask } from './snapshot-reading.js';

/**
 * Nice value of each ingest thread: reading a pushed snapshot (inflate, parse, hash) yields the CPU to
 * the API's request thread, so an organization pushing large snapshots does not slow everyone's reads;
 * the push waits a little longer instead.
 */
export const INGEST_THREAD_NICE = 10;

// Linux only: there a nice value belongs to a thread and pid 0 names the calling one, so this lowers this
// ingest thread alone, not the request thread (apps/api/test/ingest-thread-priority.spec.ts checks it).
// Elsewhere it would lower the whole API process, so it is not done. Never raised: a process started under
// a higher nice value keeps it.
if (process.platform === 'linux' && getPriority(0) < INGEST_THREAD_NICE) setPriority(0, INGEST_THREAD_NICE);

/** The body of an ingest thread (see snapshot-reader.ts): read one pushed body. */
export default function readPushedSnapshot(task: SnapshotReadTask): SnapshotReadOutcome {
  return readSnapshot(task);
}
