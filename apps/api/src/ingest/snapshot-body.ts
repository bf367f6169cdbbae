import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { ProblemException } from '../problem.js';

const gunzipAsync = promisify(gunzip);

/** zlib's default 16 KiB chunks cost a thread-pool round trip each: 1 MiB inflates 30 MiB 5x faster. */
const GUNZIP_CHUNK_BYTES = 1 << 20;

/** gzip's worst case inflates nothing and adds a few bytes per 16 KiB block plus its header. */
const GZIP_OVERHEAD_BYTES = 64 * 1024;

export interface SnapshotBody {
  /** The snapshot JSON as bytes, uncompressed. */
  json: Buffer;
  /** The body exactly as received when it came gzip-compressed: stored as-is, never compressed twice. */
  gzip: Buffer | null;
}

function tooLarge(maxBytes: number): ProblemException {
  return new ProblemException(413, `snapshot exceeds the ${maxBytes}-byte limit (measured uncompressed)`, {
    limitBytes: maxBytes,
  });
}

/**
 * Reads a snapshot request body, plain or `Content-Encoding: gzip`, refusing (413) anything whose
 * uncompressed size passes `maxBytes` without ever holding more than that in memory.
 */
export async function readSnapshotBody(request: IncomingMessage, maxBytes: number): Promise<SnapshotBody> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const gzipped = encoding === 'gzip' || encoding === 'x-gzip';
  if (!gzipped && encoding !== 'identity') {
    throw new ProblemException(415, `unsupported Content-Encoding "${encoding}": send the snapshot plain or gzip`);
  }
  const wireLimit = gzipped ? maxBytes + GZIP_OVERHEAD_BYTES : maxBytes;
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > wireLimit) throw tooLarge(maxBytes);

  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > wireLimit) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  const wire = Buffer.concat(chunks, received);
  if (received === 0) throw new ProblemException(400, 'empty body: expected a snapshot JSON document', { path: '' });
  if (!gzipped) return { json: wire, gzip: null };
  try {
    return { json: await gunzipAsync(wire, { maxOutputLength: maxBytes, chunkSize: GUNZIP_CHUNK_BYTES }), gzip: wire };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes);
    throw new ProblemException(400, `body is not valid gzip: ${(error as Error).message}`);
  }
}
