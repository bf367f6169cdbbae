import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import type { KubernetesList } from '@zw/core';
import {
  createPrismaClient,
  issueAgentToken,
  type PrismaClient,
  registerCluster,
  serviceStateAt,
  summaryZones,
} from '@zw/db';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { CAPTURED_AT, capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { createApiApp } from '../src/http-app.js';
import { SnapshotReader } from '../src/ingest/snapshot-reader.js';
import { startInProcessWorker } from '../../../test/support/worker.js';
import { buildProjects } from '../../../test/support/processes.js';

const LIMIT = 2 * 1024 * 1024;
const quiet = { logger: ['error' as const] };

let db: TestDatabase;
let prisma: PrismaClient;
let prefix: string;
let api: INestApplication;
let url: string;
let worker: INestApplicationContext | undefined;
let a: { id: string; token: string };
let b: { id: string; token: string };

function env(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    INGEST_MAX_BODY_BYTES: String(LIMIT),
    JOB_BACKOFF_MS: '100',
    SWEEP_GRACE_MS: '0',
    ...overrides,
  };
}

/** Settings one test sets for its own API only: cleared again before the next API starts. */
const ONE_TEST_SETTINGS = [
  'INGEST_THREAD_HEAP_MB',
  'INGEST_READ_TIMEOUT_MS',
  'INGEST_CONCURRENCY',
  'INGEST_QUEUE_TIMEOUT_MS',
];

async function startApi(overrides: Record<string, string> = {}): Promise<{ app: INestApplication; url: string }> {
  for (const name of ONE_TEST_SETTINGS) delete process.env[name];
  Object.assign(process.env, env(overrides));
  buildProjects(['apps/api']); // the ingest threads run the compiled thread script
  const app = await createApiApp(quiet);
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

async function startWorker(): Promise<INestApplicationContext> {
  return startInProcessWorker(env(), quiet);
}

function push(body: string | Buffer, token: string | null, headers: Record<string, string> = {}, base = url) {
  return fetch(`${base}/v1/ingest/snapshots`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body,
  });
}

const start = Date.now() - 24 * 3600_000;
let minute = 0;
/** A valid small snapshot with its own recent captured-at (so each call is a distinct snapshot). */
function snapshot(services = 5): KubernetesList {
  minute++;
  return capturedAt(fleet(services, 3), new Date(start + minute * 60_000));
}

beforeAll(async () => {
  db = await createTestDatabase('ingest');
  prefix = uniquePrefix('ingest');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  const ra = await registerCluster(prisma, { organizationSlug: 'acme', name: 'alpha', cloud: 'aws' });
  const rb = await registerCluster(prisma, { organizationSlug: 'acme', name: 'beta', cloud: 'gcp' });
  a = { id: ra.cluster.id, token: ra.agentToken };
  b = { id: rb.cluster.id, token: rb.agentToken };
  ({ app: api, url } = await startApi());
});

afterAll(async () => {
  await worker?.close();
  await api?.close();
  await prisma?.$disconnect();
  await deletePrefixKeys(prefix);
  await db?.drop();
});

describe('POST /v1/ingest/snapshots', () => {
  it('stores the snapshot, queues it by id, and the worker turns it into history', async () => {
    const list = snapshot(8);
    const text = JSON.stringify(list);
    const response = await push(text, a.token);
    expect(response.status).toBe(202);
    const { snapshotId, duplicate } = (await response.json()) as { snapshotId: string; duplicate: boolean };
    expect(duplicate).toBe(false);

    const stored = await prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId }, include: { payload: true } });
    expect(stored.clusterId).toBe(a.id);
    expect(stored.capturedAt.toISOString()).toBe(list.metadata.annotations[CAPTURED_AT]);
    expect(Buffer.from(stored.contentHash).toString('hex')).toBe(createHash('sha256').update(text).digest('hex'));
    expect(gunzipSync(stored.payload!.gzip).toString()).toBe(text);

    worker = await startWorker();
    const processed = await waitFor('snapshot processed', async () => {
      const row = await prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } });
      return row.status === 'processed' ? row : null;
    });
    expect(processed.attempts).toBe(1);
    const summary = await prisma.snapshotSummary.findFirstOrThrow({ where: { snapshotId } });
    const services = list.items.filter((item) => item.kind === 'Service');
    expect(summary.services).toBe(services.length);
    expect(summary.servicesPopulated + summary.servicesRemoved + summary.servicesNone).toBe(services.length);
    expect(await summaryZones(prisma, summary)).toHaveLength(3);
    const intervals = await prisma.serviceInterval.findMany({ where: { clusterId: a.id } });
    expect(intervals).toHaveLength(services.length);
    expect(intervals.every((i) => i.validTo === null && i.validFrom.getTime() === stored.capturedAt.getTime())).toBe(
      true,
    );
    const first = services[0];
    const state = await serviceStateAt(
      prisma,
      { clusterId: a.id, namespace: first.metadata.namespace!, name: first.metadata.name },
      new Date(stored.capturedAt.getTime() + 1000),
    );
    expect(state).not.toBeNull();
  });

  it('accepts a gzip body and stores the compressed bytes as received', async () => {
    const text = JSON.stringify(snapshot());
    const gz = gzipSync(text);
    const response = await push(gz, a.token, { 'content-encoding': 'gzip' });
    expect(response.status).toBe(202);
    const { snapshotId } = (await response.json()) as { snapshotId: string };
    const payload = await prisma.snapshotPayload.findFirstOrThrow({ where: { snapshotId } });
    expect(Buffer.from(payload.gzip).equals(gz)).toBe(true);
    const stored = await prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } });
    expect(stored.sizeBytes).toBe(Buffer.byteLength(text));
  });

  it('accepts the same snapshot pushed twice only once', async () => {
    const text = JSON.stringify(snapshot());
    const first = (await (await push(text, a.token)).json()) as { snapshotId: string; duplicate: boolean };
    const again = await push(gzipSync(text), a.token, { 'content-encoding': 'gzip' });
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({
      snapshotId: first.snapshotId,
      duplicate: true,
      capturedAtClamped: false,
    });
    const hash = new Uint8Array(createHash('sha256').update(text).digest());
    expect(await prisma.snapshot.count({ where: { contentHash: hash } })).toBe(1);
  });

  it('treats the same content from another cluster as a different snapshot', async () => {
    const text = JSON.stringify(snapshot());
    const fromA = (await (await push(text, a.token)).json()) as { snapshotId: string };
    const fromB = (await (await push(text, b.token)).json()) as { snapshotId: string; duplicate: boolean };
    expect(fromB.duplicate).toBe(false);
    expect(fromB.snapshotId).not.toBe(fromA.snapshotId);
  });

  it('gives two captures of an unchanged cluster the same input hash, and a changed cluster another', async () => {
    const pushed = async (list: KubernetesList) =>
      ((await (await push(JSON.stringify(list), a.token)).json()) as { snapshotId: string }).snapshotId;
    const first = await pushed(snapshot(9));
    const recapture = await pushed(snapshot(9)); // same objects, a later captured-at
    const changed = await pushed(snapshot(10));
    const rows = await prisma.snapshot.findMany({
      where: { id: { in: [first, recapture, changed] } },
      select: { id: true, contentHash: true, inputHash: true },
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    const hex = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('hex');
    expect(hex(byId.get(first)?.inputHash)).toHaveLength(64);
    expect(hex(byId.get(recapture)?.contentHash)).not.toBe(hex(byId.get(first)?.contentHash));
    expect(hex(byId.get(recapture)?.inputHash)).toBe(hex(byId.get(first)?.inputHash));
    expect(hex(byId.get(changed)?.inputHash)).not.toBe(hex(byId.get(first)?.inputHash));
  });

  it('refuses a different snapshot claiming an instant already taken (409)', async () => {
    const list = snapshot();
    expect((await push(JSON.stringify(list), a.token)).status).toBe(202);
    const changed = { ...list, items: list.items.slice(0, -1) };
    const response = await push(JSON.stringify(changed), a.token);
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  describe('malformed snapshots (400 naming the JSON path)', () => {
    async function problem(response: Response) {
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      return (await response.json()) as { status: number; detail: string; path: string };
    }

    it('not JSON at all', async () => {
      const body = await problem(await push('{"kind":"List","items":[', a.token));
      expect(body.path).toBe('');
      expect(body.detail).toMatch(/not valid JSON/);
    });

    it('a field of the wrong type deep inside', async () => {
      const list = snapshot();
      const index = list.items.findIndex((item) => item.kind === 'EndpointSlice');
      const broken = structuredClone(list) as unknown as { items: Record<string, unknown>[] };
      broken.items[index].endpoints = 'none';
      const body = await problem(await push(JSON.stringify(broken), a.token));
      expect(body.path).toBe(`items[${index}].endpoints`);
      expect(body.detail).toContain(`items[${index}].endpoints`);
    });

    it('a document that is no snapshot', async () => {
      const body = await problem(await push('[1,2,3]', a.token));
      expect(body.path).toBe('');
    });

    it('an unreadable captured-at', async () => {
      const list = snapshot();
      list.metadata.annotations[CAPTURED_AT] = 'yesterday';
      const body = await problem(await push(JSON.stringify(list), a.token));
      expect(body.path).toBe(`metadata.annotations["${CAPTURED_AT}"]`);
    });

    it('a body that claims gzip but is not', async () => {
      await problem(await push('plain text', a.token, { 'content-encoding': 'gzip' }));
    });

    it('an empty body', async () => {
      await problem(await push('', a.token));
    });

    it('stores nothing for any of them', async () => {
      const perCluster = await prisma.snapshot.groupBy({ by: ['clusterId'], _count: true });
      const total = perCluster.reduce((sum, row) => sum + row._count, 0);
      expect((await push('{', a.token)).status).toBe(400);
      expect(await prisma.snapshot.count()).toBe(total);
    });
  });

  describe('oversized snapshots (413)', () => {
    it('a plain body past the limit', async () => {
      const list = snapshot();
      const padded = { ...list, padding: 'x'.repeat(LIMIT) };
      const response = await push(JSON.stringify(padded), a.token);
      expect(response.status).toBe(413);
      expect(((await response.json()) as { limitBytes: number }).limitBytes).toBe(LIMIT);
    });

    it('a small gzip body that inflates past the limit', async () => {
      const bomb = gzipSync(Buffer.alloc(LIMIT * 4, 0x20));
      expect(bomb.length).toBeLessThan(LIMIT / 10);
      const response = await push(bomb, a.token, { 'content-encoding': 'gzip' });
      expect(response.status).toBe(413);
    });

    it('documents too dense to read within a thread heap or in time (413), the API unharmed', async () => {
      const dense = await startApi({
        INGEST_MAX_BODY_BYTES: String(48 * 1024 * 1024),
        INGEST_THREAD_HEAP_MB: '64',
        INGEST_READ_TIMEOUT_MS: '5000',
      });
      const denseList = (values: number) => `{"kind":"List","items":[],"x":[${'{},'.repeat(values)}{}]}`;
      try {
        const outOfHeap = await push(denseList(1_500_000), a.token, {}, dense.url);
        expect(outOfHeap.status).toBe(413);
        expect(((await outOfHeap.json()) as { detail: string }).detail).toMatch(/more than the 64 MiB|longer than 5 s/);
        // So many values that the thread collects garbage near its limit rather than fail: its time runs out.
        const outOfTime = await push(denseList(12_000_000), a.token, {}, dense.url);
        expect(outOfTime.status).toBe(413);
        expect(((await outOfTime.json()) as { detail: string }).detail).toMatch(/more than the 64 MiB|longer than 5 s/);
        expect((await push(JSON.stringify(snapshot()), a.token, {}, dense.url)).status).toBe(202);
      } finally {
        await dense.app.close();
      }
    }, 60_000);

    it('accepts a body just under the limit', async () => {
      const list = snapshot();
      const base = JSON.stringify({ ...list, padding: '' });
      const padded = JSON.stringify({ ...list, padding: 'x'.repeat(LIMIT - Buffer.byteLength(base)) });
      expect(Buffer.byteLength(padded)).toBe(LIMIT);
      expect((await push(padded, a.token)).status).toBe(202);
    });
  });

  describe('reading slots', () => {
    it('a push finding every slot taken past INGEST_QUEUE_TIMEOUT_MS is told to come back (503, Retry-After)', async () => {
      const busy = await startApi({ INGEST_CONCURRENCY: '1', INGEST_QUEUE_TIMEOUT_MS: '200' });
      const text = JSON.stringify(snapshot());
      // A push whose body arrives slowly holds the only slot while it is read.
      const slow = request(`${busy.url}/v1/ingest/snapshots`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${a.token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
        },
      });
      const slowAnswer = new Promise<number>((resolve, reject) => {
        slow.on('response', (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        slow.on('error', reject);
      });
      try {
        slow.write(text.slice(0, 10));
        const reader = busy.app.get(SnapshotReader);
        await waitFor('the slow push to hold the slot', async () => reader.reading === 1);
        const refused = await push(JSON.stringify(snapshot()), a.token, {}, busy.url);
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('5');
        expect(((await refused.json()) as { detail: string }).detail).toMatch(/ingest is busy/);
        slow.end(text.slice(10));
        expect(await slowAnswer).toBe(202);
        expect((await push(JSON.stringify(snapshot()), a.token, {}, busy.url)).status).toBe(202);
      } finally {
        slow.destroy();
        await busy.app.close();
      }
    });
  });

  describe('authentication', () => {
    it('401 without a token, with a Bearer challenge', async () => {
      const response = await push(JSON.stringify(snapshot()), null);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    });

    it('401 with a wrong token or another scheme', async () => {
      expect((await push(JSON.stringify(snapshot()), 'zwa_not-a-real-token')).status).toBe(401);
      const basic = await push(JSON.stringify(snapshot()), null, { authorization: `Basic ${a.token}` });
      expect(basic.status).toBe(401);
    });

    it("403 when an agent names a cluster that is not its token's", async () => {
      const before = await prisma.snapshot.count({ where: { clusterId: a.id } });
      const byId = await push(JSON.stringify(snapshot()), b.token, { 'x-zonewise-cluster': a.id });
      expect(byId.status).toBe(403);
      const byName = await push(JSON.stringify(snapshot()), b.token, { 'x-zonewise-cluster': 'alpha' });
      expect(byName.status).toBe(403);
      expect(await prisma.snapshot.count({ where: { clusterId: a.id } })).toBe(before);
      const own = await push(JSON.stringify(snapshot()), b.token, { 'x-zonewise-cluster': 'beta' });
      expect(own.status).toBe(202);
    });

    it('a token only ever writes into its own cluster', async () => {
      const response = await push(JSON.stringify(snapshot()), b.token);
      const { snapshotId } = (await response.json()) as { snapshotId: string };
      expect((await prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } })).clusterId).toBe(b.id);
    });

    it('a rotated token stops working at once; the new one works', async () => {
      const rotated = await issueAgentToken(prisma, b.id);
      expect((await push(JSON.stringify(snapshot()), b.token)).status).toBe(401);
      expect((await push(JSON.stringify(snapshot()), rotated)).status).toBe(202);
      const row = await prisma.agentToken.findUniqueOrThrow({ where: { clusterId: b.id } });
      expect(row.rotatedAt).not.toBeNull();
      expect(Buffer.from(row.tokenHash).toString('hex')).not.toContain(rotated.slice(4));
      b.token = rotated;
    });
  });

  describe('connections (the large push that failed with EPIPE)', () => {
    /** One push over a keep-alive agent's connection, its body written in 1 MiB chunks; the answer as read. */
    function pushOver(agent: Agent, body: Buffer, token: string | null, headers: Record<string, string> = {}) {
      return new Promise<{ status: number; connection: string | undefined; body: string; socket: Socket }>(
        (resolve, reject) => {
          const target = new URL(`${url}/v1/ingest/snapshots`);
          const req = request(target, {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': String(body.length),
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...headers,
            },
          });
          req.on('error', reject);
          req.on('response', (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                connection: response.headers.connection,
                body: Buffer.concat(chunks).toString('utf8'),
                socket: req.socket!,
              }),
            );
          });
          for (let at = 0; at < body.length; at += 1024 * 1024) req.write(body.subarray(at, at + 1024 * 1024));
          req.end();
        },
      );
    }

    it('every answer closes its connection, so no later push goes out on one a keep-alive timeout is closing', async () => {
      const agent = new Agent({ keepAlive: true });
      try {
        const first = await pushOver(agent, Buffer.from(JSON.stringify(snapshot())), a.token);
        expect(first.status).toBe(202);
        expect(first.connection).toBe('close');
        // The server ends the connection right after its answer: the agent keeps no idle socket to reuse.
        if (!first.socket.destroyed) await once(first.socket, 'close');
        expect(Object.keys(agent.freeSockets)).toHaveLength(0);
        const list = snapshot(400);
        const second = await pushOver(agent, Buffer.from(JSON.stringify(list)), a.token);
        expect(second.status).toBe(202);
        expect(second.socket).not.toBe(first.socket);
      } finally {
        agent.destroy();
      }
    });

    it('a refusal answered before a large body is read is still read by the client, then the connection closes', async () => {
      const agent = new Agent({ keepAlive: true });
      const large = Buffer.alloc(LIMIT * 4, 0x20);
      try {
        const unknown = await pushOver(agent, large, 'zwa_not-a-real-token');
        expect(unknown.status).toBe(401);
        expect(unknown.connection).toBe('close');
        expect(JSON.parse(unknown.body)).toMatchObject({ status: 401, detail: 'invalid agent token' });
        const tooLarge = await pushOver(agent, large, a.token);
        expect(tooLarge.status).toBe(413);
        expect(tooLarge.connection).toBe('close');
        expect(JSON.parse(tooLarge.body)).toMatchObject({ status: 413, limitBytes: LIMIT });
      } finally {
        agent.destroy();
      }
    });
  });

  it('keeps a snapshot accepted while Redis is unreachable, and the sweeper queues it later', async () => {
    const offline = await startApi({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      // Redis never comes back for this API: the answer comes from ingest not waiting on it.
      const response = await push(JSON.stringify(snapshot()), a.token, {}, offline.url);
      expect(response.status).toBe(202);
      const { snapshotId } = (await response.json()) as { snapshotId: string };
      expect((await prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } })).status).toBe('queued');
      await worker?.close();
      worker = await startWorker(); // sweeps at boot: SWEEP_GRACE_MS is 0 here
      await waitFor('late snapshot processed', async () => {
        const row = await prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } });
        return row.status === 'processed';
      });
    } finally {
      await offline.app.close();
    }
  });
});
