import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { waitFor } from '../../../test/support/wait.js';
import { addSnapshot, addSummary } from '../../../test/support/repositories.js';
import {
  createPrismaClient,
  dropExpiredIntervalPartitions,
  dropExpiredPartitions,
  ensureIntervalPartitions,
  ensurePartitions,
  historyCutoffs,
  intervalPartitions,
  type PrismaClient,
  pruneClusterHistory,
  PAYLOADS,
  registerCluster,
  SAVINGS_DAYS,
  SUMMARIES,
  tableBytes,
  weeklyPartitions,
  weekOf,
} from '../src/index.js';

/**
 * service_intervals' weekly partitions on real Postgres: created ahead, rows never missing one, and
 * retention dropping whole weeks that hold only intervals past every organization's retention, the
 * intervals still held (open, or ending after the cutoff) and the fixes they name kept.
 */

const DAY = 24 * 3600_000;
/** A Monday. */
const MONDAY = Date.UTC(2026, 8, 7);
const at = (days: number, hours = 0) => new Date(MONDAY + days * DAY + hours * 3600_000);

let db: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase('historypartitions');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

async function newCluster(organizationSlug: string, name: string, historyRetentionDays?: number) {
  const { cluster } = await registerCluster(prisma, { organizationSlug, name });
  if (historyRetentionDays !== undefined)
    await prisma.organization.update({ where: { slug: organizationSlug }, data: { historyRetentionDays } });
  return cluster.id;
}

async function addService(clusterId: string, name: string): Promise<bigint> {
  const service = await prisma.clusterService.create({ data: { clusterId, namespace: 'shop', name } });
  return service.id;
}

async function addInterval(
  clusterId: string,
  serviceId: bigint,
  validFrom: Date,
  validTo: Date | null,
  fixes?: { hash: Uint8Array<ArrayBuffer>; json: object },
) {
  if (fixes)
    await prisma.serviceFixContent.upsert({
      where: { clusterId_hash: { clusterId, hash: fixes.hash } },
      create: { clusterId, hash: fixes.hash, fixes: fixes.json },
      update: {},
    });
  await prisma.serviceInterval.create({
    data: {
      clusterId,
      serviceId,
      validFrom,
      validTo,
      stateHash: BigInt(validFrom.getTime()),
      routing: 'None',
      hintState: 'none',
      zones: {},
      fixesHash: fixes?.hash ?? null,
      fixFraction: fixes ? 0.25 : null,
    },
  });
}

/** The partition holding each interval of a Service, by its start. */
async function partitionsOf(serviceId: bigint): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ partition: string }[]>`
    SELECT tableoid::regclass::text AS partition FROM service_intervals
     WHERE service_id = ${serviceId} ORDER BY valid_from`;
  return rows.map((row) => row.partition);
}

describe('weekOf', () => {
  it('names the ISO week (UTC) holding an instant after its Monday', () => {
    expect(weekOf(at(3, 23.5))).toEqual({ name: 'service_intervals_w20260907', from: at(0), to: at(7) });
    expect(weekOf(at(0))).toEqual(weekOf(at(6, 23.99)));
    expect(weekOf(new Date(at(0).getTime() - 1)).name).toBe('service_intervals_w20260831');
  });
});

describe('interval partitions', () => {
  it('creates the current week and the ones ahead, once, moving rows the default partition held for them', async () => {
    const clusterId = await newCluster('parts-create', 'c');
    const ahead = await addService(clusterId, 'ahead');
    const past = await addService(clusterId, 'past');
    // Recorded before any week exists: a snapshot captured a week ahead of the clock, and an old one.
    await addInterval(clusterId, ahead, at(8, 5), null);
    await addInterval(clusterId, past, at(-30), at(-29));
    expect(await partitionsOf(ahead)).toEqual(['service_intervals_default']);

    const created = await ensureIntervalPartitions(prisma, at(2), 2);
    expect(created).toEqual([
      'service_intervals_w20260907',
      'service_intervals_w20260914',
      'service_intervals_w20260921',
    ]);
    expect(await ensureIntervalPartitions(prisma, at(2), 2)).toEqual([]);
    expect((await intervalPartitions(prisma)).map((week) => week.name)).toEqual(created);
    expect(await partitionsOf(ahead)).toEqual(['service_intervals_w20260914']);
    expect(await partitionsOf(past)).toEqual(['service_intervals_default']);

    // Beyond every week: still recorded (default partition), never refused.
    await addInterval(clusterId, ahead, at(400), null);
    expect(await partitionsOf(ahead)).toEqual(['service_intervals_w20260914', 'service_intervals_default']);
    // Closing an interval (the writer's UPDATE) keeps it where it is: the key is its start.
    await prisma.serviceInterval.updateMany({ where: { serviceId: ahead, validTo: null }, data: { validTo: at(401) } });
    expect(await partitionsOf(ahead)).toEqual(['service_intervals_w20260914', 'service_intervals_default']);
  });

  it('moves rows into a new week without hiding them from a statement that waited for the move', async () => {
    // A statement planned before the week exists and run after its rows moved out of the default
    // partition would read neither copy (the history writer then re-opened every Service of a cluster).
    // The reader here queues behind the move, which queues behind a transaction reading the default.
    const clusterId = await newCluster('parts-concurrent', 'c');
    const services = await Promise.all(['a', 'b', 'c'].map((name) => addService(clusterId, name)));
    for (const service of services) await addInterval(clusterId, service, at(71, 3), null);
    const holder = await connected();
    const reader = await connected();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT count(*) FROM service_intervals_default');
      // Waiting for the holder as long as the test takes (a change gives up after 0.5 s by default).
      const move = ensureIntervalPartitions(prisma, at(71), 0, { lockWaitMs: 600_000 });
      await waitForLockWaits(1);
      const read = reader.query<{ n: string }>(
        `SELECT count(*) AS n FROM service_intervals WHERE cluster_id = $1 AND valid_from >= $2`,
        [clusterId, at(70)],
      );
      await waitForLockWaits(2);
      await holder.query('COMMIT');

      expect(await move).toEqual(['service_intervals_w20261116']);
      expect(Number((await read).rows[0].n)).toBe(services.length);
      expect(await partitionsOf(services[0])).toEqual(['service_intervals_w20261116']);
    } finally {
      await Promise.all([holder.end(), reader.end()]);
    }
  });

  it('yields to a transaction that locked Services and then reads intervals, instead of deadlocking it', async () => {
    // The API's traffic-value write: Services first, then the intervals of the roll-up. A week change
    // takes the intervals, then waits for the Services: a deadlock, which must cost the change, not the write.
    const clusterId = await newCluster('parts-deadlock', 'c');
    await addService(clusterId, 'a');
    const writer = await connected();
    try {
      await writer.query('BEGIN');
      await writer.query('UPDATE cluster_services SET name = name WHERE cluster_id = $1', [clusterId]);
      const change = ensureIntervalPartitions(prisma, at(91), 0).catch(() => []);
      // Past the change's first deadlock check (deadlock_timeout, 1 s): the write would then be the one
      // to find the deadlock, and be aborted, had the change not given up already.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await writer.query('SELECT count(*) FROM service_intervals WHERE cluster_id = $1', [clusterId]);
      await writer.query('COMMIT');
      await change;
    } finally {
      await writer.end();
    }
    await ensureIntervalPartitions(prisma, at(91), 0);
    expect((await intervalPartitions(prisma)).map((week) => week.name)).toContain('service_intervals_w20261207');
  });

  it('drops whole weeks past retention, keeping open and still-held intervals and the fixes they name', async () => {
    // Weeks from 2026-09-07 (created above) and two before it.
    await ensureIntervalPartitions(prisma, at(-14), 1);
    const clusterId = await newCluster('parts-drop', 'c');
    const otherId = await newCluster('parts-drop', 'other');
    const expired = await addService(clusterId, 'expired');
    const held = await addService(clusterId, 'held');
    const open = await addService(clusterId, 'open');
    const fixes = { hash: new Uint8Array(16).fill(7), json: { recommendations: [{ kind: 'enable-topology-mode' }] } };
    const gone = { hash: new Uint8Array(16).fill(8), json: { recommendations: [{ kind: 'add-replicas' }] } };
    // Week 2026-08-24 (at(-14) .. at(-7)) holds an interval past retention, one that ends after the cutoff, and
    // the Service's state since then (open, naming fixes); week 2026-08-31 one more past retention.
    await addInterval(clusterId, expired, at(-13), at(-12), gone);
    await addInterval(clusterId, held, at(-13), at(3));
    await addInterval(clusterId, open, at(-12), null, fixes);
    await addInterval(clusterId, expired, at(-5), at(-4));
    await addInterval(otherId, await addService(otherId, 'x'), at(-10), at(-9));
    const cutoff = at(1);

    const dropped = await dropExpiredIntervalPartitions(prisma, [
      { id: clusterId, cutoff },
      { id: otherId, cutoff },
    ]);
    expect(dropped.map((week) => [week.name, Object.fromEntries(week.removedByCluster), week.kept])).toEqual([
      ['service_intervals_w20260824', { [clusterId]: 1, [otherId]: 1 }, 2],
      ['service_intervals_w20260831', { [clusterId]: 1 }, 0],
    ]);
    const [gone24, gone31] = await prisma.$queryRaw<{ exists: boolean }[]>`
      SELECT to_regclass(t) IS NOT NULL AS exists
        FROM unnest(ARRAY['service_intervals_w20260824', 'service_intervals_w20260831']) t`;
    expect([gone24.exists, gone31.exists]).toEqual([false, false]);
    expect(await partitionsOf(expired)).toEqual([]);
    expect(await partitionsOf(held)).toEqual(['service_intervals_default']);
    expect(await partitionsOf(open)).toEqual(['service_intervals_default']);

    // The cluster's follow-up (under its lock, in the worker): Services left without intervals go, and
    // fix contents no interval names; those an open interval names stay.
    const removed = dropped.reduce((sum, week) => sum + (week.removedByCluster.get(clusterId) ?? 0), 0);
    const result = await prisma.$transaction((tx) => pruneClusterHistory(tx, { id: clusterId, cutoff }, removed));
    expect(result).toEqual({ intervals: 2, services: 1 });
    const contents = await prisma.serviceFixContent.findMany({ where: { clusterId } });
    expect(contents.map((content) => Buffer.from(content.hash))).toEqual([Buffer.from(fixes.hash)]);
    const names = await prisma.clusterService.findMany({ where: { clusterId }, orderBy: { name: 'asc' } });
    expect(names.map((service) => service.name)).toEqual(['held', 'open']);
  });

  it('keeps a week while an organization with a longer retention still keeps part of it', async () => {
    await ensureIntervalPartitions(prisma, at(-21), 0);
    const shortId = await newCluster('parts-short', 'c', 1);
    const longId = await newCluster('parts-long', 'c', 400);
    await addInterval(shortId, await addService(shortId, 's'), at(-20), at(-19));
    await addInterval(longId, await addService(longId, 'l'), at(-20), at(-19));
    const now = at(2);
    const clusters = (await historyCutoffs(prisma, { now, defaultDays: 90 })).filter((cluster) =>
      [shortId, longId].includes(cluster.id),
    );
    expect(Object.fromEntries(clusters.map((cluster) => [cluster.id, cluster.cutoff]))).toEqual({
      [shortId]: at(1),
      [longId]: new Date(now.getTime() - 400 * DAY),
    });
    expect(await dropExpiredIntervalPartitions(prisma, clusters)).toEqual([]);
    expect((await intervalPartitions(prisma)).map((week) => week.name)).toContain('service_intervals_w20260817');
    // The shorter retention's rows still go, one by one.
    const short = clusters.find((cluster) => cluster.id === shortId)!;
    const pruned = await prisma.$transaction((tx) => pruneClusterHistory(tx, short, 0));
    expect(pruned).toEqual({ intervals: 1, services: 1 });
    expect(await prisma.serviceInterval.count({ where: { clusterId: longId } })).toBe(1);
  });

  it('sizes a partitioned table over its partitions and a plain one as itself', async () => {
    const bytes = await tableBytes(prisma, ['service_intervals', 'cluster_services', 'no_such_table']);
    expect([...bytes.keys()]).toEqual(['service_intervals', 'cluster_services']);
    const [row] = await prisma.$queryRaw<{ intervals: bigint; services: bigint }[]>`
      SELECT (SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits
               WHERE inhparent = 'service_intervals'::regclass)::bigint AS intervals,
             pg_total_relation_size('cluster_services') AS services`;
    expect(bytes.get('service_intervals')).toBe(Number(row.intervals));
    expect(bytes.get('cluster_services')).toBe(Number(row.services));
    expect(Number(row.services)).toBeGreaterThan(0);
  });
});

describe('summary, payload and roll-up partitions', () => {
  it('names weeks of a date key by their days, and bounds them by day', async () => {
    expect(weekOf(at(3), SAVINGS_DAYS).name).toBe('service_savings_days_w20260907');
    expect(await ensurePartitions(prisma, SAVINGS_DAYS, at(3), 0)).toEqual(['service_savings_days_w20260907']);
    const [{ bound }] = await prisma.$queryRaw<{ bound: string }[]>`
      SELECT pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_class c WHERE c.relname = 'service_savings_days_w20260907'`;
    expect(bound).toBe("FOR VALUES FROM ('2026-09-07') TO ('2026-09-14')");
  });

  it('leaves a week the default partition holds more rows of than it may move, and creates it once it may', async () => {
    const clusterId = await newCluster('parts-limit', 'c');
    for (const hours of [1, 2, 3]) {
      const capturedAt = at(28, hours);
      const id = await addSnapshot(prisma, clusterId, { capturedAt, status: 'processed' });
      await addSummary(prisma, { id, clusterId, capturedAt }, {});
    }
    expect(await ensurePartitions(prisma, SUMMARIES, at(28), 0, { moveLimit: 2 })).toEqual([]);
    expect(await ensurePartitions(prisma, SUMMARIES, at(28), 0, { moveLimit: 3 })).toEqual([
      'snapshot_summaries_w20261005',
    ]);
    const [{ moved }] = await prisma.$queryRaw<{ moved: bigint }[]>`
      SELECT count(*) AS moved FROM snapshot_summaries_w20261005 WHERE cluster_id = ${clusterId}::uuid`;
    expect(moved).toBe(3n);
  });

  it("drops a week of payloads past every cutoff, keeping a waiting snapshot's and those of a cluster without one", async () => {
    await ensurePartitions(prisma, PAYLOADS, at(-35), 0);
    const clusterId = await newCluster('parts-payloads', 'c');
    const newcomer = await newCluster('parts-payloads', 'newcomer');
    const processed = await addSnapshot(prisma, clusterId, { capturedAt: at(-34), status: 'processed' });
    const failed = await addSnapshot(prisma, clusterId, { capturedAt: at(-33), status: 'failed' });
    const waiting = await addSnapshot(prisma, clusterId, { capturedAt: at(-32), status: 'queued' });
    const unlisted = await addSnapshot(prisma, newcomer, { capturedAt: at(-32), status: 'processed' });
    const dropped = await dropExpiredPartitions(prisma, PAYLOADS, [{ id: clusterId, cutoff: at(-20) }]);
    expect(dropped.map((week) => [week.name, Object.fromEntries(week.removedByCluster), week.kept])).toEqual([
      ['snapshot_payloads_w20260803', { [clusterId]: 2 }, 2],
    ]);
    expect((await weeklyPartitions(prisma, PAYLOADS)).map((week) => week.name)).not.toContain(
      'snapshot_payloads_w20260803',
    );
    const left = await prisma.snapshotPayload.findMany({
      where: { snapshotId: { in: [processed, failed, waiting, unlisted] } },
    });
    expect(left.map((payload) => payload.snapshotId).sort()).toEqual([waiting, unlisted].sort());
    // Their snapshots stay: history retention deletes them (and their summaries) on its own terms.
    expect(await prisma.snapshot.count({ where: { id: { in: [processed, failed] } } })).toBe(2);
  });
});

async function connected(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return client;
}

/** Until `count` lock requests in the test database wait (an outcome of the sessions' order, not a delay). */
async function waitForLockWaits(count: number): Promise<void> {
  await waitFor(`${count} waiting lock request(s)`, async () => {
    const [row] = await prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(DISTINCT l.pid) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE NOT l.granted AND a.datname = current_database()`;
    return Number(row.n) >= count;
  });
}
