import { CAPTURED_AT_ANNOTATION } from '@zw/core';
import { createHash } from 'node:crypto';

/** The captured-at time recorded for a snapshot, and whether the stated one was moved to get it. */
export interface RecordedCapturedAt {
  capturedAt: Date;
  /** The stated time lay further in the future than the clock-skew allowance: recorded as received instead. */
  clamped: boolean;
}

/**
 * Decision: a captured-at further in the future than `allowedSkewMs` past the receive time is clamped to
 * the receive time, not refused. History is ordered by captured-at, so a future time would make every
 * later correct snapshot look older and the fleet show the cluster as fresh (age 0) for as long as the
 * lie lasts; refusing would instead lose every snapshot of an agent whose node clock runs fast. Clamped,
 * the snapshot is kept, ordered by when it arrived, and ages as any other; the answer says so.
 */
export function recordedCapturedAt(stated: Date | null, receivedAt: Date, allowedSkewMs: number): RecordedCapturedAt {
  if (stated === null) return { capturedAt: receivedAt, clamped: false };
  if (stated.getTime() > receivedAt.getTime() + allowedSkewMs) return { capturedAt: receivedAt, clamped: true };
  return { capturedAt: stated, clamped: false };
}

/**
 * SHA-256 of what the analysis reads: the document without its captured-at. Two captures of a cluster
 * in which nothing changed have equal input hashes, and the worker records the second without analysing
 * it again. The document must have passed parseSnapshot (its depth is bounded, so stringifying is safe).
 */
export function inputHashOf(document: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  return new Uint8Array(
    createHash('sha256')
      .update(JSON.stringify(withoutCapturedAt(document)))
      .digest(),
  );
}

function withoutCapturedAt(document: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(document.items)) {
    const { capturedAt: _capturedAt, ...rest } = document;
    return rest;
  }
  const metadata = document.metadata as { annotations?: Record<string, unknown> } | undefined;
  if (!metadata?.annotations || !(CAPTURED_AT_ANNOTATION in metadata.annotations)) return document;
  const { [CAPTURED_AT_ANNOTATION]: _capturedAt, ...annotations } = metadata.annotations;
  return { ...document, metadata: { ...metadata, annotations } };
}
