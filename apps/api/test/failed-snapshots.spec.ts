import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailedSnapshotListSchema, RedriveResultSchema } from '../src/snapshots/failed-snapshots.schemas.js';
import { RecordingLogger } from '../../../test/support/logs.js';
import { buildProjects } from '../../../test/support/processes.js';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';

/**
 * The dead letters and their re-drive, over the API and the admin CLI, with the real worker: snapshots
 * fail for real (their clusters stay locked until their attempts run out), the cause goes away, and a
 * re-drive gets each of them processed exactly once, within the caller's organization only.
 */

let stack: QueryStack;
let tenant: Tenant;
let other: Tenant;
let locks: pg.Client;
const failed: Record<'first' | 'second' | 'lone' | 'others', string> = { first: '', second: '', lone: '', others: '' };
const clusters: Record<'main' | 'lone' | 'others', string> = { main: '', lone: '', others: '' };
const workerLogs = new RecordingLogger();

/** The admin CLI with the stack's environment (database, Redis, queue prefix). */
function cli(...args: string[]) {
  const script = join(__dirname, '..', '..', '..', 'dist', 'apps', 'api', 'admin-cli.js');
  return spawnSync(process.execPath, [script, ...args], { env: { ...process.env, ...stack.env }, encoding: 'utf8' });
}

function cliJson(...args: string[]): Record<string, unknown> {
  const run = cli(...args);
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

async function statusOf(snapshotId: string): Promise<string> {
  return (await stack.prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } })).status;
}

beforeAll(async () => {
  buildProjects(['apps/api']);
  stack = await startQueryStack(
    'qfailed',
    { JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50', WORKER_LOCK_WAIT_MS: '200', WORKER_TX_TIMEOUT_MS: '2000' },
    { workerLogger: workerLogs },
  );
  tenant = await createTenant(stack.prisma, 'dead-letters');
  other = await createTenant(stack.prisma, 'other-dead-letters');
  const main = await createCluster(stack.prisma, tenant, 'main');
  const lone = await createCluster(stack.prisma, tenant, 'lone');
  const others = await createCluster(stack.prisma, other, 'theirs');
  Object.assign(clusters, { main: main.id, lone: lone.id, others: others.id });

  // Every cluster's write lock is held: each snapshot's attempts run out and it fails, with its reason.
  locks = new pg.Client({ connectionString: stack.db.url });
  await locks.connect();
  await locks.query('BEGIN');
  for (const id of Object.values(clusters)) {
    await locks.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [id]);
  }
  const hourAgo = Date.now() - 3600_000;
  failed.first = await pushSnapshot(stack.url, main.token, capturedAt(fleet(4, 2), new Date(hourAgo)));
  failed.second = await pushSnapshot(stack.url, main.token, capturedAt(fleet(5, 2), new Date(hourAgo + 60_000)));
  failed.lone = await pushSnapshot(stack.url, lone.token, capturedAt(fleet(3, 2), new Date(hourAgo)));
  failed.others = await pushSnapshot(stack.url, others.token, capturedAt(fleet(3, 2), new Date(hourAgo)));
  await waitFor(
    'four failed snapshots',
    async () => (await stack.prisma.snapshot.count({ where: { status: 'failed' } })) === 4,
  );
  await locks.query('COMMIT'); // the cause is gone; the snapshots stay failed until re-driven
}, 120_000);

afterAll(async () => {
  await locks?.end();
  await stack?.stop();
});

describe('failed snapshots', () => {
  it('lists the organization’s failed snapshots with their reasons, filtered and paginated, for admins only', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const all = await admin.get('/v1/snapshots/failed');
    expect(all.status).toBe(200);
    const listed = FailedSnapshotListSchema.parse(all.body);
    expect(listed.snapshots.map((s) => s.snapshotId).sort()).toEqual([failed.first, failed.second, failed.lone].sort());
    for (const snapshot of listed.snapshots) {
      // What users see says why in the product's words; the database's error is in the worker's log.
      expect(snapshot.error).toBe(
        "could not be recorded in 2 attempts: another write held the cluster's history for longer than the 200 ms a snapshot waits for it; re-drive it once the cause is gone",
      );
      expect(snapshot.attempts).toBe(2);
      expect(workerLogs.find(`snapshot ${snapshot.snapshotId}: attempt 2 of 2 failed`)).toHaveLength(1);
    }
    expect(listed.snapshots.find((s) => s.snapshotId === failed.lone)?.clusterName).toBe('lone');

    const lone = FailedSnapshotListSchema.parse(
      (await admin.get(`/v1/snapshots/failed?clusterId=${clusters.lone}`)).body,
    );
    expect(lone.snapshots.map((s) => s.snapshotId)).toEqual([failed.lone]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect(
      FailedSnapshotListSchema.parse((await admin.get(`/v1/snapshots/failed?since=${future}`)).body).snapshots,
    ).toEqual([]);

    const first = FailedSnapshotListSchema.parse((await admin.get('/v1/snapshots/failed?limit=2')).body);
    expect(first.snapshots).toHaveLength(2);
    const rest = FailedSnapshotListSchema.parse(
      (await admin.get(`/v1/snapshots/failed?limit=2&cursor=${first.nextCursor}`)).body,
    );
    expect(rest.nextCursor).toBeNull();
    expect([...first.snapshots, ...rest.snapshots].map((s) => s.snapshotId)).toEqual(
      listed.snapshots.map((s) => s.snapshotId),
    );

    const theirs = FailedSnapshotListSchema.parse(
      (await apiClient(stack.url, other.adminKey).get('/v1/snapshots/failed')).body,
    );
    expect(theirs.snapshots.map((s) => s.snapshotId)).toEqual([failed.others]);
    expect((await apiClient(stack.url, tenant.readKey).get('/v1/snapshots/failed')).status).toBe(403);
    const bad = await admin.get('/v1/snapshots/failed?since=yesterday');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/since/);
  });

  it("shows a database error in the product's words, the error itself only in the worker's log", async () => {
    const own = await createTenant(stack.prisma, 'broken-table'); // its re-drive stays out of the others' audit
    const cluster = await createCluster(stack.prisma, own, 'broken-table');
    // A table every analysed snapshot writes to is gone: the worker meets the database's own error.
    await stack.prisma.$executeRawUnsafe('ALTER TABLE snapshot_summaries RENAME TO snapshot_summaries_away');
    let snapshotId: string;
    try {
      snapshotId = await pushSnapshot(stack.url, cluster.token, capturedAt(fleet(3, 2), new Date()));
      await waitFor('the snapshot to fail', async () => (await statusOf(snapshotId)) === 'failed');
    } finally {
      await stack.prisma.$executeRawUnsafe('ALTER TABLE snapshot_summaries_away RENAME TO snapshot_summaries');
    }
    const listed = FailedSnapshotListSchema.parse(
      (await apiClient(stack.url, own.adminKey).get('/v1/snapshots/failed')).body,
    );
    expect(listed.snapshots.map((s) => [s.snapshotId, s.error])).toEqual([
      [
        snapshotId,
        "could not be recorded in 2 attempts: an internal error, logged by the worker with this snapshot's id; re-drive it once the cause is gone",
      ],
    ]);
    const logged = workerLogs.find(`snapshot ${snapshotId}: attempt 2 of 2 failed`);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/snapshot_summaries/);
    // The cause gone, a re-drive records it.
    await apiClient(stack.url, own.adminKey).post('/v1/snapshots/redrive', { snapshotIds: [snapshotId] });
    await waitProcessed(stack.prisma, [snapshotId]);
  });

  it('fails a stored snapshot listing an object twice (accepted before ingest refused them) at once, naming both paths', async () => {
    const own = await createTenant(stack.prisma, 'legacy-duplicates');
    const cluster = await createCluster(stack.prisma, own, 'legacy');
    const list = capturedAt(fleet(3, 2), new Date());
    const twice = JSON.stringify({ ...list, items: [...list.items, ...list.items] });
    // Stored as ingest stored it; the sweeper finds it without a job and queues it.
    const { id } = await stack.prisma.snapshot.create({
      data: {
        clusterId: cluster.id,
        capturedAt: new Date(),
        contentHash: new Uint8Array(createHash('sha256').update(twice).digest()),
        sizeBytes: twice.length,
        payload: { create: { gzip: new Uint8Array(gzipSync(twice)) } },
      },
    });
    await waitFor('the snapshot to fail', async () => (await statusOf(id)) === 'failed', 30_000);
    const [shown] = FailedSnapshotListSchema.parse(
      (await apiClient(stack.url, own.adminKey).get('/v1/snapshots/failed')).body,
    ).snapshots;
    const first = list.items[0] as { kind: string; metadata: { name: string } };
    expect(shown).toMatchObject({
      snapshotId: id,
      attempts: 1, // no retry can change the payload
      error: `invalid snapshot: items[${list.items.length}]: the same object as items[0] (${first.kind} ${first.metadata.name}): each object may appear once (was the List put together from two kubectl outputs?)`,
    });
  });

  it('refuses a re-drive that names nothing, or all with conditions, naming the problem', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const nothing = await admin.post('/v1/snapshots/redrive', {});
    expect(nothing.status).toBe(400);
    expect(JSON.stringify(nothing.body)).toMatch(/name what to re-drive/);
    const mixed = await admin.post('/v1/snapshots/redrive', { all: true, clusterId: clusters.main });
    expect(mixed.status).toBe(400);
    expect(JSON.stringify(mixed.body)).toMatch(/all/);
    expect((await admin.post('/v1/snapshots/redrive', { snapshotIds: ['nope'] })).status).toBe(400);
    expect((await apiClient(stack.url, tenant.readKey).post('/v1/snapshots/redrive', { all: true })).status).toBe(403);
  });

  it('re-drives by id, by cluster and since an instant, each snapshot processed exactly once, audited', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const redrive = async (body: unknown) => {
      const answer = await admin.post('/v1/snapshots/redrive', body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return RedriveResultSchema.parse(answer.body);
    };

    // Another organization's snapshot cannot be re-driven from here.
    expect(await redrive({ snapshotIds: [failed.first, failed.others] })).toEqual({
      redriven: 1,
      snapshotIds: [failed.first],
    });
    await waitProcessed(stack.prisma, [failed.first]);
    expect(await statusOf(failed.others)).toBe('failed');
    // Again: nothing is failed any more, nothing is done.
    expect(await redrive({ snapshotIds: [failed.first] })).toEqual({ redriven: 0, snapshotIds: [] });

    expect(await redrive({ clusterId: clusters.lone })).toEqual({ redriven: 1, snapshotIds: [failed.lone] });
    const since = new Date(Date.now() - 3600_000).toISOString();
    expect(await redrive({ since })).toEqual({ redriven: 1, snapshotIds: [failed.second] });
    await waitProcessed(stack.prisma, [failed.lone, failed.second]);

    const mine = [failed.first, failed.second, failed.lone];
    const rows = await stack.prisma.snapshot.findMany({ where: { id: { in: mine } } });
    expect(rows.map((row) => [row.status, row.error, row.attempts])).toEqual(mine.map(() => ['processed', null, 1]));
    expect(await stack.prisma.snapshotSummary.count({ where: { snapshotId: { in: mine } } })).toBe(3);
    expect(await redrive({ all: true })).toEqual({ redriven: 0, snapshotIds: [] });

    const audit = await stack.prisma.auditLogEntry.findMany({
      where: { organizationId: tenant.organizationId, action: 'snapshot.redrive' },
      orderBy: { at: 'asc' },
    });
    expect(audit.map((entry) => [entry.targetId, entry.details])).toEqual([
      [failed.first, { selection: { snapshotIds: 2 }, redriven: 1 }],
      [failed.lone, { selection: { clusterId: clusters.lone }, redriven: 1 }],
      [failed.second, { selection: { since }, redriven: 1 }],
    ]);
  });

  it('lists and re-drives from the admin CLI, exit 2 naming a bad argument', async () => {
    const listed = cliJson('failed-snapshots', '--org', other.slug);
    expect((listed.snapshots as { snapshotId: string }[]).map((s) => s.snapshotId)).toEqual([failed.others]);

    const bad = cli('redrive', '--org', other.slug, '--snapshot', 'nope');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--snapshot must be a snapshot id/);
    const none = cli('redrive', '--org', other.slug);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/--snapshot, --cluster, --since or --all/);

    expect(cliJson('redrive', '--org', other.slug, '--cluster', 'theirs')).toEqual({
      redriven: 1,
      snapshotIds: [failed.others],
      queued: true,
    });
    await waitProcessed(stack.prisma, [failed.others]);
    expect(cliJson('redrive', '--org', other.slug, '--all')).toEqual({ redriven: 0, snapshotIds: [], queued: true });
    const entry = await stack.prisma.auditLogEntry.findFirstOrThrow({
      where: { organizationId: other.organizationId, action: 'snapshot.redrive' },
    });
    expect(entry.actorType).toBe('admin_cli');
  });
});
