import { CAPTURED_AT_ANNOTATION } from '@zw/core';
import { createHash } from 'node:crypto';
import { ProblemException } from '../problem.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * When the agent took the snapshot. History is ordered by this time, not by arrival, so agents state it:
 * on a List as the `zonewise.io/captured-at` annotation, on the wrapped form as a top-level `capturedAt`.
 *
 * Decision: in the body rather than a header, so it is covered by the content hash (a re-push of the
 * same capture is a duplicate; a new capture of an unchanged cluster is not). A snapshot without it is
 * taken to be captured when it arrived.
 */
export function capturedAtOf(document: Record<string, unknown>, receivedAt: Date): Date {
  const { value, path } = statedCapturedAt(document);
  if (value === undefined) return receivedAt;
  const time = typeof value === 'string' && RFC3339.test(value) ? new Date(value) : null;
  if (!time || Number.isNaN(time.getTime())) {
    throw new ProblemException(400, `${path}: expected an RFC 3339 timestamp such as 2026-01-31T12:00:00Z`, {
      path,
    });
  }
  return time;
}

function statedCapturedAt(document: Record<string, unknown>): { value: unknown; path: string } {
  if (Array.isArray(document.items)) {
    const metadata = document.metadata as { annotations?: Record<string, unknown> } | undefined;
    return {
      value: metadata?.annotations?.[CAPTURED_AT_ANNOTATION],
      path: `metadata.annotations["${CAPTURED_AT_ANNOTATION}"]`,
    };
  }
  return { value: document.capturedAt, path: 'capturedAt' };
}

/**
 * SHA-256 of what the analysis reads: the document without its captured-at. Two captures of a cluster
 * in which nothing changed have equal input hashes, and the worker records the second without analysing
 * it again.
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
