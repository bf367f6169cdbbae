import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { SnapshotError } from '../src/snapshots.js';
import { checkSnapshotDocument, decodePayload, decodePayloadAsync, PayloadError } from '../src/snapshot-payload.js';

const DAY_MS = 86_400_000;
const list = capturedAt(fleet(3, 2), new Date('2026-06-01T00:00:00Z'));
const text = JSON.stringify(list);

function caught(work: () => unknown): PayloadError {
  try {
    work();
  } catch (error) {
    if (error instanceof PayloadError) return error;
    throw error;
  }
  throw new Error('expected a PayloadError');
}

describe('decodePayload', () => {
  it('reads a gzip payload and a plain one alike: the JSON bytes and the parsed document', async () => {
    const plain = decodePayload(Buffer.from(text), { subject: 'body', gzipped: false });
    const gzipped = decodePayload(gzipSync(text), { subject: 'body', gzipped: true });
    const stored = await decodePayloadAsync(gzipSync(text), { subject: 'stored payload' });
    for (const decoded of [plain, gzipped, stored]) {
      expect(decoded.json.toString('utf8')).toBe(text);
      expect(decoded.document).toEqual(list);
    }
  });

  it('stops inflating past the limit: a gzip bomb is refused as too large', async () => {
    const bomb = gzipSync(Buffer.alloc(10_000_000, 0x20));
    expect(caught(() => decodePayload(bomb, { subject: 'body', gzipped: true, maxBytes: 1024 }))).toMatchObject({
      kind: 'too-large',
      message: 'snapshot exceeds the 1024-byte limit (measured uncompressed)',
    });
    await expect(decodePayloadAsync(bomb, { subject: 'stored payload', maxBytes: 1024 })).rejects.toMatchObject({
      kind: 'too-large',
    });
  });

  it('names what it could not read, in the words of its caller', async () => {
    expect(caught(() => decodePayload(Buffer.from('not gzip'), { subject: 'body', gzipped: true }))).toMatchObject({
      kind: 'gzip',
      message: expect.stringMatching(/^body is not valid gzip: /),
    });
    await expect(decodePayloadAsync(gzipSync('{"kind":'), { subject: 'stored payload' })).rejects.toMatchObject({
      kind: 'json',
      message: expect.stringMatching(/^stored payload is not valid JSON: /),
    });
    const deep = '['.repeat(200) + ']'.repeat(200);
    expect(caught(() => decodePayload(Buffer.from(deep), { subject: 'body', gzipped: false }))).toMatchObject({
      kind: 'snapshot',
      message: expect.stringMatching(/^invalid snapshot: /),
    });
  });
});

describe('checkSnapshotDocument', () => {
  const now = new Date('2026-06-02T00:00:00Z');

  it('parses the snapshot and returns the captured-at it states', () => {
    const { snapshot, capturedAt: at } = checkSnapshotDocument(structuredClone(list), now, 90);
    expect(snapshot.services.length).toBe(list.items.filter((item) => item.kind === 'Service').length);
    expect(at?.toISOString()).toBe('2026-06-01T00:00:00.000Z');
  });

  it('refuses a snapshot captured before the history retention, naming the captured-at field', () => {
    const late = new Date(now.getTime() + 30 * DAY_MS);
    expect(() => checkSnapshotDocument(structuredClone(list), late, 7)).toThrow(SnapshotError);
    try {
      checkSnapshotDocument(structuredClone(list), late, 7);
    } catch (error) {
      expect((error as SnapshotError).path).toMatch(/capturedAt|captured-at/);
    }
  });

  it('refuses what is not a snapshot, naming the path', () => {
    expect(() => checkSnapshotDocument({ kind: 'List', items: 'none' }, now, 90)).toThrow(/items/);
  });
});
