import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCluster,
  addSnapshot,
  repositoryDatabase,
  type RepositoryDatabase,
} from '../../../test/support/repositories.js';
import {
  claimSnapshot,
  insertSnapshot,
  isBeingRecorded,
  markSnapshotFailed,
  newestCaptures,
  newestProcessedPayload,
  pgSql,
  readSnapshotPayload,
  snapshotByContent,
  storedSnapshotPayload,
  waitingSnapshots,
} from '../src/index.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));
const documentOf = (gzip: Uint8Array | null) => (gzip ? JSON.parse(gunzipSync(gzip).toString('utf8')) : null);

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_snapshots');
});

afterAll(async () => {
  await db?.drop();
});

describe('claimSnapshot', () => {
  it('marks a queued snapshot processing, counts the attempt and reads it with its payload and overrides', async () => {
    const { clusterId, organizationId } = await addCluster(db.prisma, { organizationSlug: 'claim', name: 'a' });
    await db.prisma.organization.update({ where: { id: organizationId }, data: { historyRetentionDays: 12 } });
    await db.prisma.cluster.update({
      where: { id: clusterId },
      data: { kubernetesVersion: '1.31', dataPlane: 'cilium' },
    });
    const id = await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), document: { n: 1 }, input: 'x' });

    const claimed = await claimSnapshot(pgSql(db.pool), id);

    expect(claimed).toMatchObject({
      clusterId,
      capturedAt: at(0),
      historyRetentionDays: 12,
      repeats: null,
      overrides: { kubernetesVersion: '1.31', dataPlane: 'cilium' },
    });
    expect(documentOf(claimed!.gzip)).toEqual({ n: 1 });
    // The input hash in hex, what the worker keys the analysis it reuses on.
    expect(claimed!.inputHash).toBe(createHash('sha256').update('x').digest('hex'));
    const row = await db.prisma.snapshot.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: 'processing', attempts: 1 });
    expect(await isBeingRecorded(pgSql(db.pool), id)).toBe(true);
  });

  it('names the recorded predecessor with the same input, and then does not read the payload', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'claim', name: 'b' });
    const first = await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), status: 'processed', input: 'same' });
    const second = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), input: 'same' });
    const third = await addSnapshot(db.prisma, clusterId, { capturedAt: at(10), input: 'changed' });

    expect((await claimSnapshot(pgSql(db.pool), second))?.repeats).toEqual({ snapshotId: first, recorded: true });
    expect((await claimSnapshot(pgSql(db.pool), second))?.gzip).toBeNull();
    const changed = await claimSnapshot(pgSql(db.pool), third);
    expect(changed?.repeats).toBeNull();
    expect(changed?.gzip).not.toBeNull();
  });

  it('names a predecessor still being recorded as not recorded', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'claim', name: 'c' });
    const first = await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), status: 'processing', input: 'same' });
    const second = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), input: 'same' });

    expect((await claimSnapshot(pgSql(db.pool), second))?.repeats).toEqual({ snapshotId: first, recorded: false });
  });

  it('claims nothing already processed, failed or gone', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'claim', name: 'd' });
    const processed = await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), status: 'processed' });
    const failed = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), status: 'failed' });

    expect(await claimSnapshot(pgSql(db.pool), processed)).toBeNull();
    expect(await claimSnapshot(pgSql(db.pool), failed)).toBeNull();
    expect(await claimSnapshot(pgSql(db.pool), '00000000-0000-7000-8000-000000000000')).toBeNull();
    expect(await isBeingRecorded(pgSql(db.pool), processed)).toBe(false);
  });
});

describe('markSnapshotFailed', () => {
  it('fails a waiting or processing snapshot with its reason cut to 4,000 characters', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'fail', name: 'a' });
    const id = await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), status: 'processing' });

    expect(await markSnapshotFailed(db.prisma, id, 'x'.repeat(5000))).toBe(true);

    const row = await db.prisma.snapshot.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe('failed');
    expect(row.error).toHaveLength(4000);
  });

  it('leaves a processed snapshot as it is', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'fail', name: 'b' });
    const id = await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), status: 'processed' });

    expect(await markSnapshotFailed(db.prisma, id, 'late')).toBe(false);
    expect(await db.prisma.snapshot.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'processed',
      error: null,
    });
  });
});

describe('payload reads', () => {
  it('reads a payload by snapshot, and null when it was pruned', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'payload', name: 'a' });
    const kept = await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), document: { kept: true } });
    const pruned = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), document: null });

    expect(documentOf(await readSnapshotPayload(pgSql(db.pool), kept, at(0)))).toEqual({ kept: true });
    expect(await readSnapshotPayload(pgSql(db.pool), kept, at(1))).toBeNull();
    expect(await readSnapshotPayload(pgSql(db.pool), pruned, at(5))).toBeNull();
    const stored = await storedSnapshotPayload(db.readDb, kept);
    expect(stored?.sizeBytes).toBe(JSON.stringify({ kept: true }).length);
    expect(documentOf(stored!.gzip)).toEqual({ kept: true });
    expect(await storedSnapshotPayload(db.readDb, pruned)).toBeNull();
  });

  it("reads the newest processed snapshot's payload still stored, whatever newer ones wait", async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'payload', name: 'b' });
    expect(await newestProcessedPayload(db.prisma, clusterId)).toBeNull();
    await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), status: 'processed', document: { n: 0 } });
    await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), status: 'processed', document: { n: 5 } });
    await addSnapshot(db.prisma, clusterId, { capturedAt: at(10), status: 'processed', document: null });
    await addSnapshot(db.prisma, clusterId, { capturedAt: at(15), status: 'queued', document: { n: 15 } });

    expect(documentOf(await newestProcessedPayload(db.prisma, clusterId))).toEqual({ n: 5 });
  });
});

describe('newestCaptures', () => {
  it("gives each cluster with a snapshot its newest capture, whatever that snapshot's status", async () => {
    const { clusterId, organizationId } = await addCluster(db.prisma, { organizationSlug: 'captures', name: 'a' });
    const { clusterId: empty } = await addCluster(db.prisma, { organizationSlug: 'captures', name: 'empty' });
    await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), status: 'processed' });
    await addSnapshot(db.prisma, clusterId, { capturedAt: at(30), status: 'failed' });

    const captures = await newestCaptures(db.prisma);

    expect(captures.find((capture) => capture.clusterId === clusterId)).toEqual({
      clusterId,
      organizationId,
      capturedAt: at(30),
    });
    expect(captures.some((capture) => capture.clusterId === empty)).toBe(false);
  });
});

describe('waitingSnapshots', () => {
  it('pages through the queued and processing snapshots waiting since before the cut, by id', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'waiting', name: 'a' });
    const { clusterId: other } = await addCluster(db.prisma, { organizationSlug: 'waiting-too', name: 'b' });
    const longAgo = new Date('2020-01-01T00:00:00Z');
    const cut = new Date('2020-06-01T00:00:00Z');
    const add = async (cluster: string, minute: number, status: 'queued' | 'processing' | 'processed' | 'failed') => {
      const id = await addSnapshot(db.prisma, cluster, { capturedAt: at(minute), status });
      await db.prisma.snapshot.update({ where: { id }, data: { statusChangedAt: longAgo, attempts: minute } });
      return { id, clusterId: cluster, attempts: minute };
    };
    const waiting = [
      await add(clusterId, 1, 'queued'),
      await add(clusterId, 2, 'processing'),
      await add(other, 3, 'queued'),
    ];
    waiting.sort((a, b) => a.id.localeCompare(b.id));
    await add(clusterId, 4, 'processed');
    await add(clusterId, 5, 'failed');
    await addSnapshot(db.prisma, clusterId, { capturedAt: at(6), status: 'queued' }); // still within the grace period

    const first = await waitingSnapshots(db.prisma, cut, 2);
    const rest = await waitingSnapshots(db.prisma, cut, 2, first[first.length - 1].id);

    expect(first).toEqual(waiting.slice(0, 2));
    expect(rest).toEqual(waiting.slice(2));
  });
});

describe('insertSnapshot and snapshotByContent', () => {
  const sha = (text: string) => new Uint8Array(createHash('sha256').update(text).digest());
  const pushed = (clusterId: string, content: string, minute: number) => ({
    clusterId,
    capturedAt: at(minute),
    receivedAt: at(minute),
    contentHash: sha(content),
    inputHash: sha(`input of ${content}`),
    sizeBytes: content.length,
    gzip: new Uint8Array(gzipSync(content)),
  });

  it('stores a snapshot with its payload, and refuses the same bytes or captured-at of the same cluster', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'ingest', name: 'a' });
    const { clusterId: other } = await addCluster(db.prisma, { organizationSlug: 'ingest-too', name: 'b' });

    const id = await insertSnapshot(db.prisma, pushed(clusterId, '{"n":1}', 0));

    expect(id).toEqual(expect.any(String));
    expect(await snapshotByContent(db.prisma, clusterId, sha('{"n":1}'))).toEqual({ id, capturedAt: at(0) });
    expect(await snapshotByContent(db.prisma, other, sha('{"n":1}'))).toBeNull();
    expect(gunzipSync((await readSnapshotPayload(pgSql(db.pool), id!, at(0)))!).toString()).toBe('{"n":1}');
    expect(await db.prisma.snapshot.findUniqueOrThrow({ where: { id: id! } })).toMatchObject({
      status: 'queued',
      sizeBytes: 7,
      receivedAt: at(0),
    });
    expect(await insertSnapshot(db.prisma, pushed(clusterId, '{"n":1}', 1))).toBeNull(); // same bytes
    expect(await insertSnapshot(db.prisma, pushed(clusterId, '{"n":2}', 0))).toBeNull(); // same instant
    expect(await insertSnapshot(db.prisma, pushed(other, '{"n":1}', 0))).toEqual(expect.any(String));
    expect(await db.prisma.snapshot.count({ where: { clusterId } })).toBe(1);
  });
});
