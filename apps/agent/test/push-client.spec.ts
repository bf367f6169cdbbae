import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Backoff } from '../src/backoff.js';
import { classify, deliver, parseRetryAfter, PushClient } from '../src/push-client.js';

describe('classify', () => {
  it('keeps what a retry can fix and drops what it cannot', () => {
    expect(classify(202, '{"snapshotId":"s1","duplicate":true}', null)).toEqual({
      kind: 'accepted',
      status: 202,
      snapshotId: 's1',
      duplicate: true,
    });
    for (const status of [401, 403, 408, 429, 500, 502, 503]) expect(classify(status, '', null).kind).toBe('retry');
    for (const status of [400, 409, 413, 415])
      expect(classify(status, '{"detail":"why"}', null)).toMatchObject({
        kind: 'rejected',
        reason: `HTTP ${status}: why`,
      });
    expect(classify(503, '', '7')).toMatchObject({ kind: 'retry', retryAfterMs: 7000 });
  });

  it('reads Retry-After as seconds or as a date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe('Backoff', () => {
  it('doubles up to the cap with jitter in the upper half', () => {
    let r = 0;
    const values = [0, 0.999, 0.5, 0, 0.999, 0.5, 0.25];
    const backoff = new Backoff({ initialMs: 100, maxMs: 1000, random: () => values[r++ % values.length] });
    const delays = values.map(() => backoff.next());
    expect(delays).toEqual([50, 200, 300, 400, 1000, 750, 625]);
    backoff.reset();
    expect(backoff.next()).toBeLessThanOrEqual(100);
  });
});

describe('PushClient + deliver', () => {
  it('sends gzip with the Bearer token and cluster header, retrying through 503s until accepted', async () => {
    const seen: { headers: Record<string, unknown>; body: string }[] = [];
    let answers = [503, 503, 202];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({ headers: request.headers, body: gunzipSync(Buffer.concat(chunks)).toString() });
        const status = answers.shift()!;
        response.writeHead(status, {
          'content-type': 'application/json',
          ...(status === 503 ? { 'retry-after': '0' } : {}),
        });
        response.end(status === 202 ? '{"snapshotId":"abc","duplicate":false}' : '{"detail":"busy"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new PushClient({
        apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        token: { value: 'zwa_test' },
        cluster: 'prod-eu-1',
        timeoutMs: 5000,
        userAgent: 'zonewise-agent/test',
      });
      const retries: string[] = [];
      const outcome = await deliver(client, gzipSync('{"kind":"List","items":[]}'), {
        backoff: new Backoff({ initialMs: 10, maxMs: 20 }),
        onRetry: (failed) => retries.push(failed.reason),
      });
      expect(outcome).toEqual({ kind: 'accepted', status: 202, snapshotId: 'abc', duplicate: false });
      expect(retries).toEqual(['HTTP 503: busy', 'HTTP 503: busy']);
      expect(seen).toHaveLength(3);
      expect(seen[0].headers).toMatchObject({
        authorization: 'Bearer zwa_test',
        'content-encoding': 'gzip',
        'content-type': 'application/json',
        'x-zonewise-cluster': 'prod-eu-1',
      });
      expect(seen[0].body).toBe('{"kind":"List","items":[]}');

      answers = [];
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      const down = await client.push(gzipSync('{}'));
      expect(down).toMatchObject({ kind: 'retry', status: null, reason: 'ECONNREFUSED' });
    } finally {
      server.close();
    }
  });
});
