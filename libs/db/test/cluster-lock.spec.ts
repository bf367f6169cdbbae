import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryDatabase, type RepositoryDatabase } from '../../../test/support/repositories.js';
import { ClusterBusyError, lockCluster } from '../src/index.js';

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_cluster_lock');
});

afterAll(async () => {
  await db?.drop();
});

/** Holds the cluster's lock in an open transaction until `release` is called. */
async function holdLock(clusterId: string): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const transaction = db.prisma.$transaction(
    async (tx) => {
      await lockCluster(tx, clusterId, 1000);
      locked();
      await released;
    },
    { timeout: 60_000 },
  );
  await Promise.race([isLocked, transaction]);
  return {
    release: async () => {
      release();
      await transaction;
    },
  };
}

function lockIn(clusterId: string, waitMs: number): Promise<string> {
  return db.prisma.$transaction(async (tx) => {
    await lockCluster(tx, clusterId, waitMs);
    const [{ lock_timeout }] = await tx.$queryRawUnsafe<{ lock_timeout: string }[]>('SHOW lock_timeout');
    return lock_timeout;
  });
}

describe('lockCluster', () => {
  it("fails with ClusterBusyError, naming the wait, while another transaction holds the cluster's history", async () => {
    const clusterId = randomUUID();
    const held = await holdLock(clusterId);
    try {
      const attempt = lockIn(clusterId, 20);
      await expect(attempt).rejects.toBeInstanceOf(ClusterBusyError);
      await expect(attempt).rejects.toMatchObject({ waitedMs: 20 });
    } finally {
      await held.release();
    }
    expect(await lockIn(clusterId, 20)).toBe('20ms');
  });

  it('does not make another cluster wait', async () => {
    const held = await holdLock(randomUUID());
    try {
      expect(await lockIn(randomUUID(), 20)).toBe('20ms');
    } finally {
      await held.release();
    }
  });

  it('sets the lock timeout for its transaction only', async () => {
    await lockIn(randomUUID(), 20);
    const [{ lock_timeout }] = await db.prisma.$queryRawUnsafe<{ lock_timeout: string }[]>('SHOW lock_timeout');
    expect(lock_timeout).not.toBe('20ms');
  });
});
