import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createPrismaClient, type PrismaClient, PrismaService, registerCluster } from '@zw/db';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { loadWorkerConfig } from '../src/config.js';
import { ReadModelPublisher } from '../src/read-model-events.js';
import { RetentionService } from '../src/retention.service.js';

/**
 * Raw payloads are kept PAYLOAD_RETENTION_DAYS (or their organization's own period) from the snapshot's
 * captured-at time, as history is: a snapshot pushed late keeps its payload no longer than one pushed
 * on time, and none outlives the days it describes.
 */

let db: TestDatabase;
let prisma: PrismaClient;
const DAY = 86_400_000;

beforeAll(async () => {
  db = await createTestDatabase('payloadretention');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

async function snapshot(clusterId: string, name: string, capturedAt: Date, receivedAt: Date, status = 'processed') {
  const row = await prisma.snapshot.create({
    data: {
      clusterId,
      capturedAt,
      receivedAt,
      status: status as 'processed' | 'queued',
      contentHash: new Uint8Array(createHash('sha256').update(name).digest()),
      sizeBytes: 2,
      payload: { create: { gzip: new Uint8Array(gzipSync('{}')) } },
    },
  });
  return row.id;
}

describe('payload retention', () => {
  it('prunes payloads by captured-at time, per organization, never one still waiting', async () => {
    const now = new Date();
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'payloads-short', name: 'a' });
    const { cluster: keeper } = await registerCluster(prisma, { organizationSlug: 'payloads-long', name: 'b' });
    await prisma.organization.update({ where: { slug: 'payloads-long' }, data: { payloadRetentionDays: 30 } });
    const ago = (days: number) => new Date(now.getTime() - days * DAY);
    const ids = {
      // Captured three days ago, pushed just now (an agent catching up): past one day of payloads.
      late: await snapshot(cluster.id, 'late', ago(3), now),
      // Captured an hour ago: kept, whenever it arrived.
      recent: await snapshot(cluster.id, 'recent', ago(1 / 24), now),
      // Captured three days ago in an organization that keeps payloads 30 days.
      kept: await snapshot(keeper.id, 'kept', ago(3), ago(3)),
      // Captured three days ago and still waiting to be processed: never pruned.
      waiting: await snapshot(cluster.id, 'waiting', ago(3.5), now, 'queued'),
    };
    const prefix = uniquePrefix('payloadretention');
    const config = loadWorkerConfig({
      DATABASE_URL: db.url,
      QUEUE_PREFIX: prefix,
      PAYLOAD_RETENTION_DAYS: '1',
      HISTORY_RETENTION_DAYS: '90',
    });
    const redis = new Redis(TEST_REDIS_URL);
    const service = new PrismaService({ databaseUrl: db.url, poolMax: 2 });
    try {
      const retention = new RetentionService(service, config, new ReadModelPublisher(redis, config));
      const pruned = await retention.prune(now);
      expect(pruned.payloadsDeleted).toBe(1);
      expect(pruned.snapshotsDeleted).toBe(0);
    } finally {
      await service.$disconnect();
      redis.disconnect();
    }
    const payloads = new Set(
      (await prisma.snapshotPayload.findMany({ select: { snapshotId: true } })).map((p) => p.snapshotId),
    );
    expect(payloads.has(ids.late)).toBe(false);
    expect(payloads.has(ids.recent)).toBe(true);
    expect(payloads.has(ids.kept)).toBe(true);
    expect(payloads.has(ids.waiting)).toBe(true);
    // The snapshots themselves stay: history is kept 90 days.
    expect(await prisma.snapshot.count()).toBe(4);
  });
});
