import { checkSnapshotDocument, decodePayload, PayloadError, SnapshotError } from '@zw/core';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { inputHashOf } from './captured-at.js';

/**
 * Everything ingest does to a pushed body before it touches Postgres: inflate, hash, parse, validate,
 * compress. It runs in the ingest threads (snapshot-reader.thread.ts), so none of it blocks the API's
 * event loop, and a thread's heap limit bounds what one push may cost in memory.
 */

// Decision: level 1 for payloads that arrive uncompressed. They are kept only for the retention window,
// and on the 150,000-endpoint snapshot level 1 is several times faster than the default 6 for a payload
// about a third larger; agents that care about bytes send gzip, which is stored as received.
const PAYLOAD_GZIP_LEVEL = 1;

export interface SnapshotReadTask {
  /** The body as received. */
  wire: Uint8Array;
  gzipped: boolean;
  /** Largest snapshot accepted, measured uncompressed. */
  maxBytes: number;
  /** When the push arrived (ms since the epoch), and the history retention of its organization (days). */
  receivedAtMs: number;
  historyRetentionDays: number;
}

export interface ReadSnapshot {
  /** SHA-256 of the uncompressed body: the same bytes pushed twice are one snapshot. */
  contentHash: Uint8Array<ArrayBuffer>;
  inputHash: Uint8Array<ArrayBuffer>;
  /** The captured-at the body states (ISO 8601), or null. */
  statedCapturedAt: string | null;
  /** What is stored: the body as received when it came gzip-compressed, else compressed here. */
  payload: Uint8Array<ArrayBuffer>;
  sizeBytes: number;
}

/** Why a body is refused: the answer's status, detail and extra problem fields. */
export interface RefusedSnapshot {
  status: 400 | 413;
  detail: string;
  extra: Record<string, unknown>;
}

/** A value, not an exception: errors crossing threads lose their class. */
export type SnapshotReadOutcome = { read: ReadSnapshot } | { refused: RefusedSnapshot };

export function tooLarge(maxBytes: number): RefusedSnapshot {
  return {
    status: 413,
    detail: `snapshot exceeds the ${maxBytes}-byte limit (measured uncompressed)`,
    extra: { limitBytes: maxBytes },
  };
}

export function readSnapshot(task: SnapshotReadTask): SnapshotReadOutcome {
  const { wire, gzipped, maxBytes } = task;
  let json: Buffer;
  let document: unknown;
  let capturedAt: Date | null;
  try {
    ({ json, document } = decodePayload(wire, { subject: 'body', gzipped, maxBytes }));
    ({ capturedAt } = checkSnapshotDocument(document, new Date(task.receivedAtMs), task.historyRetentionDays));
  } catch (error) {
    return { refused: refusal(error, maxBytes) };
  }
  const contentHash = new Uint8Array(createHash('sha256').update(json).digest());
  const payload = gzipped ? wire : gzipSync(json, { level: PAYLOAD_GZIP_LEVEL });
  return {
    read: {
      contentHash,
      inputHash: inputHashOf(document as Record<string, unknown>),
      statedCapturedAt: capturedAt?.toISOString() ?? null,
      payload: new Uint8Array(payload.buffer as ArrayBuffer, payload.byteOffset, payload.byteLength),
      sizeBytes: json.length,
    },
  };
}

/** A payload that cannot be read, as the answer refusing it (anything else is a bug, and thrown on). */
function refusal(error: unknown, maxBytes: number): RefusedSnapshot {
  if (error instanceof PayloadError && error.kind === 'too-large') return tooLarge(maxBytes);
  if (error instanceof PayloadError) {
    return { status: 400, detail: error.message, extra: error.kind === 'gzip' ? {} : { path: error.path } };
  }
  if (error instanceof SnapshotError) {
    return { status: 400, detail: `invalid snapshot: ${error.message}`, extra: { path: error.path } };
  }
  throw error;
}
