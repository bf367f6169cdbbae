import type { IncomingMessage } from 'node:http';
import { ProblemException } from '../problem.js';
import { tooLarge } from './snapshot-reading.js';

/** gzip's worst case inflates nothing and adds a few bytes per 16 KiB block plus its header. */
const GZIP_OVERHEAD_BYTES = 64 * 1024;

export interface SnapshotBody {
  /** The body exactly as received. */
  wire: Buffer;
  /** `Content-Encoding: gzip`: inflated (against the limit) by the ingest thread, stored as received. */
  gzipped: boolean;
}

function refuseTooLarge(maxBytes: number): ProblemException {
  const { status, detail, extra } = tooLarge(maxBytes);
  return new ProblemException(status, detail, extra);
}

/**
 * Reads a snapshot request body, plain or `Content-Encoding: gzip`, refusing (413) a plain body past
 * `maxBytes` or a gzip body past what `maxBytes` can compress to, without holding more than that. What a
 * gzip body inflates to is checked while inflating (snapshot-reading.ts).
 */
export async function readSnapshotBody(request: IncomingMessage, maxBytes: number): Promise<SnapshotBody> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const gzipped = encoding === 'gzip' || encoding === 'x-gzip';
  if (!gzipped && encoding !== 'identity') {
    throw new ProblemException(415, `unsupported Content-Encoding "${encoding}": send the snapshot plain or gzip`);
  }
  const wireLimit = gzipped ? maxBytes + GZIP_OVERHEAD_BYTES : maxBytes;
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > wireLimit) throw refuseTooLarge(maxBytes);

  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > wireLimit) throw refuseTooLarge(maxBytes);
    chunks.push(chunk);
  }
  if (received === 0) throw new ProblemException(400, 'empty body: expected a snapshot JSON document', { path: '' });
  return { wire: Buffer.concat(chunks, received), gzipped };
}
