import {
  createPrismaClient,
  PrismaClient,
  prismaClientOptions,
  registerCluster,
  serviceStateAt,
  serviceTimeline,
  tableBytes,
  type ServiceRef,
  type SnapshotAggregates,
  withIntervalZones,
} from '@zw/db';
import { seededRandom } from '@zw/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { recordAt } from './support/record.js';
import { recordSnapshot } from '../src/history/history-writer.js';
import { type ServiceState, withStateHash } from '../src/history/service-state.js';

/**
 * The history tables against the real Postgres: what recording writes, what an unchanged snapshot costs,
 * and that "state at T" / "timeline" are single indexed queries.
 */

let db: TestDatabase;
let prisma: PrismaClient;

const AGGREGATES: SnapshotAggregates = {
  services: 0,
  servicesPopulated: 0,
  servicesRemoved: 0,
  servicesNone: 0,
  servicesWithDrift: 0,
  nodeInfoSufficient: true,
  nodeInfoReason: null,
  zones: [
    { name: 'zone-a', allocatableCpuMillis: 12000, cpuRatio: 0.5, readyNodes: 3 },
    { name: 'zone-b', allocatableCpuMillis: 12000, cpuRatio: 0.5, readyNodes: 3 },
  ],
  crossZoneWithoutHints: 0.5,
  crossZoneWithHints: 0.1,
};

function serviceState(index: number, variant = 0): ServiceState {
  return withStateHash({
    namespace: `team-${index % 20}`,
    name: `svc-${index}`,
    routing: 'Auto',
    hintState: variant % 2 === 0 ? 'populated' : 'removed',
    hintReason: variant % 2 === 0 ? null : 'insufficient endpoints',
    zones: {
      'zone-b': { minimum: 1, maximum: 4, desired: 2.5, allocated: 2 + variant, expectedOverload: 0 },
      'zone-a': { minimum: 1, maximum: 4, desired: 2.5, allocated: 3, expectedOverload: 0.1 },
    },
    crossZoneWithoutHints: 0.5,
    crossZoneWithHints: variant === 0 ? 0 : 0.5,
  });
}

/** Records the given states at `at`. */
function record(clusterId: string, at: Date, services: ServiceState[]) {
  return recordAt(prisma, clusterId, at, { services, aggregates: { ...AGGREGATES, services: services.length } });
}

const minute = (n: number) => new Date(Date.UTC(2026, 5, 1, 0, n));

async function rowsOf(clusterId: string): Promise<string[]> {
  const rows = await withIntervalZones(
    prisma,
    await prisma.serviceInterval.findMany({ where: { clusterId }, include: { service: true } }),
  );
  return rows
    .map((i) =>
      [i.service.name, i.validFrom.toISOString(), i.validTo?.toISOString(), i.stateHash, JSON.stringify(i.zones)].join(
        '|',
      ),
    )
    .sort();
}

beforeAll(async () => {
  db = await createTestDatabase('history');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

describe('history storage', () => {
  it('opens one interval per Service, closes and opens only what changed', async () => {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'h', name: 'basic' });
    const first = await record(cluster.id, minute(0), [serviceState(1), serviceState(2), serviceState(3)]);
    expect(first).toEqual({ intervalsOpened: 3, intervalsClosed: 0, inOrder: true, reusedPrevious: false });
    // svc-2 changes, svc-3 disappears, svc-4 appears
    const second = await record(cluster.id, minute(1), [serviceState(1), serviceState(2, 1), serviceState(4)]);
    expect(second).toEqual({ intervalsOpened: 2, intervalsClosed: 2, inOrder: true, reusedPrevious: false });
    const unchanged = await record(cluster.id, minute(2), [serviceState(1), serviceState(2, 1), serviceState(4)]);
    expect(unchanged).toEqual({ intervalsOpened: 0, intervalsClosed: 0, inOrder: true, reusedPrevious: false });

    const ref = (i: number): ServiceRef => ({ clusterId: cluster.id, namespace: `team-${i % 20}`, name: `svc-${i}` });
    expect(await serviceStateAt(prisma, ref(2), new Date(minute(0).getTime() - 1))).toBeNull();
    expect((await serviceStateAt(prisma, ref(2), minute(0)))?.hintState).toBe('populated');
    expect((await serviceStateAt(prisma, ref(2), new Date(minute(1).getTime() - 1)))?.hintState).toBe('populated');
    const later = await serviceStateAt(prisma, ref(2), minute(1));
    expect(later).toMatchObject({ hintState: 'removed', hintReason: 'insufficient endpoints', validTo: null });
    expect(later?.zones).toEqual(serviceState(2, 1).zones);
    expect(await serviceStateAt(prisma, ref(3), minute(1))).toBeNull(); // gone
    expect(await serviceStateAt(prisma, ref(3), minute(0))).not.toBeNull();

    const timeline = await serviceTimeline(prisma, ref(2), minute(0), minute(10));
    expect(timeline.map((i) => [i.validFrom, i.validTo, i.hintState])).toEqual([
      [minute(0), minute(1), 'populated'],
      [minute(1), null, 'removed'],
    ]);
    expect(await serviceTimeline(prisma, ref(2), minute(1), minute(10))).toHaveLength(1);
  });

  it('records a snapshot once: a second run finds it processed and writes nothing', async () => {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'h', name: 'twice' });
    const snapshot = await prisma.snapshot.create({
      data: { clusterId: cluster.id, capturedAt: minute(0), contentHash: new Uint8Array(32), sizeBytes: 0 },
    });
    const write = () =>
      prisma.$transaction((tx) =>
        recordSnapshot(tx, {
          clusterId: cluster.id,
          snapshotId: snapshot.id,
          capturedAt: minute(0),
          analyzer: 'test',
          services: [serviceState(1), serviceState(2)],
          aggregates: AGGREGATES,
        }),
      );
    expect(await write()).toEqual({ intervalsOpened: 2, intervalsClosed: 0, inOrder: true, reusedPrevious: false });
    expect((await prisma.snapshot.findUniqueOrThrow({ where: { id: snapshot.id } })).status).toBe('processed');
    expect(await write()).toBeNull();
    expect(await prisma.serviceInterval.count({ where: { clusterId: cluster.id } })).toBe(2);
    expect(await prisma.snapshotSummary.count({ where: { clusterId: cluster.id } })).toBe(1);
  });

  it('inserts a late snapshot into the past: splits the interval it falls in', async () => {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'h', name: 'late' });
    await record(cluster.id, minute(0), [serviceState(1), serviceState(2)]);
    await record(cluster.id, minute(2), [serviceState(1), serviceState(2)]);
    const late = await record(cluster.id, minute(1), [serviceState(1), serviceState(2, 1)]);
    expect(late).toEqual({ intervalsOpened: 2, intervalsClosed: 1, inOrder: false, reusedPrevious: false });
    const intervals = await serviceTimeline(
      prisma,
      { clusterId: cluster.id, namespace: 'team-2', name: 'svc-2' },
      minute(0),
      minute(10),
    );
    expect(intervals.map((i) => [i.validFrom, i.validTo, i.hintState])).toEqual([
      [minute(0), minute(1), 'populated'],
      [minute(1), minute(2), 'removed'],
      [minute(2), null, 'populated'],
    ]);
  });

  it('places a late snapshot after the intervals of a pruned predecessor, without a second interval', async () => {
    // Retention deletes a summary (with its snapshot) and keeps the intervals still held: a snapshot
    // recorded before the earliest kept summary follows those intervals, as it would the summary's.
    for (const variant of [1, 0]) {
      const { cluster } = await registerCluster(prisma, { organizationSlug: 'h', name: `pruned-${variant}` });
      await record(cluster.id, minute(0), [serviceState(1)]);
      await record(cluster.id, minute(10), [serviceState(1)]);
      await prisma.snapshot.deleteMany({ where: { clusterId: cluster.id, capturedAt: minute(0) } });
      await record(cluster.id, minute(5), [serviceState(1, variant)]);
      const timeline = await serviceTimeline(
        prisma,
        { clusterId: cluster.id, namespace: 'team-1', name: 'svc-1' },
        minute(0),
        minute(20),
      );
      expect(timeline.map((i) => [i.validFrom, i.validTo, i.hintState])).toEqual(
        variant === 0
          ? [[minute(0), null, 'populated']]
          : [
              [minute(0), minute(5), 'populated'],
              [minute(5), minute(10), 'removed'],
              [minute(10), null, 'populated'],
            ],
      );
    }
  });

  it('ends with the same rows whatever order snapshots are recorded in (random sequences)', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const random = seededRandom(seed);
      const sequence = Array.from({ length: 10 }, (_, step) => ({
        at: minute(100 + step),
        services: Array.from({ length: 12 }, (_, i) => i)
          .filter(() => random() > 0.2)
          .map((i) => serviceState(i, Math.floor(random() * 3))),
      }));
      const inOrder = await registerCluster(prisma, { organizationSlug: 'h', name: `in-order-${seed}` });
      const shuffled = await registerCluster(prisma, { organizationSlug: 'h', name: `shuffled-${seed}` });
      for (const snapshot of sequence) await record(inOrder.cluster.id, snapshot.at, snapshot.services);
      const arrival = [...sequence].sort(() => random() - 0.5);
      for (const snapshot of arrival) await record(shuffled.cluster.id, snapshot.at, snapshot.services);
      expect(await rowsOf(shuffled.cluster.id)).toEqual(await rowsOf(inOrder.cluster.id));
    }
  }, 60_000);

  describe('with 2,000 Services', () => {
    const SERVICES = 2000;
    let clusterId: string;

    beforeAll(async () => {
      ({
        cluster: { id: clusterId },
      } = await registerCluster(prisma, { organizationSlug: 'h', name: 'big' }));
      // Five snapshots in which every 5th Service changes state each time: ~2,000 + 4 × 400 intervals.
      for (let step = 0; step < 5; step++) {
        const states = Array.from({ length: SERVICES }, (_, i) => serviceState(i, i % 5 === 0 ? step : 0));
        await record(clusterId, minute(step), states);
      }
      await prisma.$executeRawUnsafe('ANALYZE');
    }, 60_000);

    it('adds almost nothing for a snapshot in which nothing changed', async () => {
      const states = Array.from({ length: SERVICES }, (_, i) => serviceState(i, i % 5 === 0 ? 4 : 0));
      const sizes = async () => {
        const bytes = await tableBytes(prisma, [
          'service_intervals',
          'cluster_services',
          'snapshot_summaries',
          'snapshots',
        ]);
        return {
          intervals: bytes.get('service_intervals')!,
          services: bytes.get('cluster_services')!,
          summaries: bytes.get('snapshot_summaries')!,
          snapshots: bytes.get('snapshots')!,
        };
      };
      const before = await sizes();
      const count = 100;
      for (let i = 0; i < count; i++) {
        expect((await record(clusterId, minute(10 + i), states))?.intervalsOpened).toBe(0);
      }
      const after = await sizes();
      expect(after.intervals).toBe(before.intervals);
      expect(after.services).toBe(before.services);
      const perSnapshot = Number(after.summaries - before.summaries + (after.snapshots - before.snapshots)) / count;
      // One summary row and one snapshot row (with their index entries): well under a kilobyte each.
      expect(perSnapshot).toBeLessThan(2048);
    }, 60_000);

    it('answers "state of X at T" and "timeline of X" with one indexed query each, and their zones', async () => {
      const queries: { query: string; params: string }[] = [];
      const traced = new PrismaClient({
        ...prismaClientOptions({ databaseUrl: db.url, poolMax: 1 }),
        log: [{ emit: 'event', level: 'query' }],
      });
      traced.$on('query', (event) => queries.push(event));
      const explain = new pg.Client({ connectionString: db.url });
      await explain.connect();
      try {
        const ref: ServiceRef = { clusterId, namespace: 'team-5', name: 'svc-5' };
        // The intervals in one indexed query, then the zones contents they name by primary key.
        const state = await serviceStateAt(traced, ref, new Date(minute(2).getTime() + 30_000));
        expect(state?.validFrom).toEqual(minute(2));
        expect(state?.validTo).toEqual(minute(3));
        expect(queries).toHaveLength(2);
        await expectIndexScan(explain, queries[0]);
        expect(queries[1].query).toContain('service_zone_contents');

        queries.length = 0;
        const timeline = await serviceTimeline(traced, ref, new Date(minute(1).getTime() + 1), minute(4));
        expect(timeline.map((i) => i.validFrom)).toEqual([minute(1), minute(2), minute(3)]);
        expect(queries).toHaveLength(2);
        await expectIndexScan(explain, queries[0]);
        expect(queries[1].query).toContain('service_zone_contents');
      } finally {
        await explain.end();
        await traced.$disconnect();
      }
    });
  });
});

/**
 * EXPLAIN of a query Prisma ran, with its parameters, must walk the (service_id, valid_from) index: the
 * partitioned table's, in each weekly or default partition (named after the partition).
 */
async function expectIndexScan(client: pg.Client, { query, params }: { query: string; params: string }): Promise<void> {
  const { rows } = await client.query(`EXPLAIN ${query}`, JSON.parse(params) as unknown[]);
  const plan = rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
  expect(plan).toMatch(/Index (Only )?Scan using service_intervals_(\w+_)?service_id_valid_from_(key|idx)/);
  expect(plan).not.toMatch(/Seq Scan on service_intervals/);
}
