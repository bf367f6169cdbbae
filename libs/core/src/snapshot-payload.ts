import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import { capturedAtField, capturedAtRetentionProblem } from './captured-at.js';
import type { Snapshot } from './snapshot-model.js';
import { parseSnapshot, parseSnapshotJson, SnapshotError, statedCapturedAt } from './snapshots.js';

const gunzipAsync = promisify(gunzip);

/**
 * zlib hands out one output chunk at a time (16 KiB by default): a 660 KiB mid-size payload took 3 ms
 * that way and 0.4 ms with 1 MiB chunks; the 30 MiB one 115 ms and 22 ms.
 */
const GUNZIP_CHUNK_BYTES = 1 << 20;

/** Why a snapshot payload (a pushed body or a stored one) cannot be read. */
export class PayloadError extends Error {
  constructor(
    readonly kind: 'too-large' | 'gzip' | 'json' | 'snapshot',
    message: string,
    /** The JSON path of the offending value ('' for the whole document). */
    readonly path = '',
  ) {
    super(message);
    this.name = 'PayloadError';
  }
}

export interface DecodedPayload {
  /** The uncompressed JSON text's bytes. */
  json: Buffer;
  /** The parsed document, within the limits of json-limits.ts: pass it to parseSnapshot as it is. */
  document: unknown;
}

export interface PayloadOptions {
  /** What the messages call it: `body` (a push) or `stored payload`. */
  subject: string;
  gzipped: boolean;
  /** Largest JSON accepted, uncompressed: inflating stops as soon as it passes it (a gzip bomb costs no more). */
  maxBytes?: number;
}

/**
 * The one decode of a snapshot payload, as ingest, the worker and the live views read it: inflate, then
 * parse as snapshot JSON. Synchronous, for threads (ingest's readers, the worker's analysis pool).
 */
export function decodePayload(bytes: Uint8Array, options: PayloadOptions): DecodedPayload {
  let json = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (options.gzipped) {
    try {
      json = gunzipSync(json, inflateOptions(options.maxBytes));
    } catch (error) {
      throw inflateError(error, options);
    }
  } else if (options.maxBytes !== undefined && json.length > options.maxBytes) {
    throw tooLarge(options.maxBytes);
  }
  return { json, document: parseJson(json, options.subject) };
}

/** {@link decodePayload} of a gzip payload with the inflating off the event loop (zlib's thread pool). */
export async function decodePayloadAsync(
  gzip: Uint8Array,
  options: Omit<PayloadOptions, 'gzipped'>,
): Promise<DecodedPayload> {
  let json: Buffer;
  try {
    json = await gunzipAsync(gzip, inflateOptions(options.maxBytes));
  } catch (error) {
    throw inflateError(error, options);
  }
  return { json, document: parseJson(json, options.subject) };
}

function inflateOptions(maxBytes: number | undefined) {
  return { chunkSize: GUNZIP_CHUNK_BYTES, ...(maxBytes !== undefined ? { maxOutputLength: maxBytes } : {}) };
}

function inflateError(error: unknown, options: Pick<PayloadOptions, 'subject' | 'maxBytes'>): PayloadError {
  if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' && options.maxBytes !== undefined) {
    return tooLarge(options.maxBytes);
  }
  return new PayloadError('gzip', `${options.subject} is not valid gzip: ${(error as Error).message}`);
}

function tooLarge(maxBytes: number): PayloadError {
  return new PayloadError('too-large', `snapshot exceeds the ${maxBytes}-byte limit (measured uncompressed)`);
}

function parseJson(json: Buffer, subject: string): unknown {
  try {
    return parseSnapshotJson(json.toString('utf8'));
  } catch (error) {
    if (error instanceof SnapshotError)
      throw new PayloadError('snapshot', `invalid snapshot: ${error.message}`, error.path);
    throw new PayloadError('json', `${subject} is not valid JSON: ${(error as Error).message}`);
  }
}

export interface CheckedSnapshot {
  snapshot: Snapshot;
  /** The captured-at the document states, or null. */
  capturedAt: Date | null;
}

/**
 * The one check of a snapshot document, as ingest and simulate make it: the core's parseSnapshot, and a
 * stated captured-at no older than the history retention (`retentionDays` before `now`). A SnapshotError
 * names the JSON path of what is wrong.
 */
export function checkSnapshotDocument(document: unknown, now: Date, retentionDays: number): CheckedSnapshot {
  const checked = parseSnapshotDocument(document);
  checkSnapshotRetention(document, checked.capturedAt, now, retentionDays);
  return checked;
}

/** The document's snapshot and stated captured-at, before any retention is known (see checkSnapshotRetention). */
export function parseSnapshotDocument(document: unknown): CheckedSnapshot {
  const snapshot = parseSnapshot(document);
  return { snapshot, capturedAt: statedCapturedAt(document as Record<string, unknown>) };
}

/** Refuses a stated captured-at older than the history retention, naming the field's JSON path. */
export function checkSnapshotRetention(
  document: unknown,
  capturedAt: Date | null,
  now: Date,
  retentionDays: number,
): void {
  const tooOld = capturedAt && capturedAtRetentionProblem(capturedAt, now, retentionDays);
  if (tooOld) throw new SnapshotError(capturedAtField(document as Record<string, unknown>).path, tooOld);
}
