import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCluster,
  addSnapshot,
  repositoryDatabase,
  type RepositoryDatabase,
  serviceState,
  SUMMARY_AGGREGATES,
} from '../../../test/support/repositories.js';
import {
  closeAndOpenIntervals,
  inPgTransaction,
  copyIntervalTails,
  intervalsCovering,
  type IntervalState,
  lockCluster,
  placeSnapshot,
  recordRepeatedSummary,
  recordSummary,
  type SqlClient,
  startIntervalsAt,
  withIntervalZones,
  summaryZones,
} from '../src/index.js';

/**
 * The history repository's statements one by one, on real Postgres, each in a transaction holding the
 * cluster's lock as the worker's writer runs them. The writer's own specs (apps/worker/test history,
 * savings-days, partitioned-history) drive them together over whole snapshot sequences.
 */

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));

const AGGREGATES = SUMMARY_AGGREGATES;

/** A state of Service `name` (hash `hash`), with `trafficGb` monthly GB. */
function state(name: string, hash: number, trafficGb = 10, fixes: IntervalState['fixes'] = null): IntervalState {
  return { ...serviceState(name, hash, trafficGb), fixes };
}

let db: RepositoryDatabase;

beforeAll(async () => {
  db = await repositoryDatabase('repo_history_writes');
});

afterAll(async () => {
  await db?.drop();
});

/** Runs `work` as the worker's writer does: one transaction on pg (inPgTransaction) holding the cluster's lock. */
function locked<T>(clusterId: string, work: (tx: SqlClient) => Promise<T>): Promise<T> {
  return inPgTransaction(db.pool, { timeoutMs: 60_000, maxWaitMs: 10_000 }, async (tx) => {
    await lockCluster(tx, clusterId, 10_000);
    return work(tx);
  });
}

/** Records `states` at `minute` as the newest snapshot (nothing open before): its id. */
async function recordFirst(clusterId: string, minute: number, states: IntervalState[], input?: string) {
  const snapshotId = await addSnapshot(db.prisma, clusterId, { capturedAt: at(minute), status: 'processing', input });
  await locked(clusterId, async (tx) => {
    await closeAndOpenIntervals(tx, clusterId, at(minute), null, [], states);
    await recordSummary(
      tx,
      { clusterId, snapshotId, capturedAt: at(minute), analyzer: 'test', aggregates: AGGREGATES },
      null,
    );
  });
  return snapshotId;
}

async function intervalsOf(clusterId: string) {
  const rows = await db.prisma.serviceInterval.findMany({
    where: { clusterId },
    include: { service: { select: { name: true } } },
    orderBy: [{ service: { name: 'asc' } }, { validFrom: 'asc' }],
  });
  return rows.map((row) => ({
    name: row.service.name,
    from: row.validFrom,
    to: row.validTo,
    hash: row.stateHash,
  }));
}

describe('placeSnapshot', () => {
  it('places the first snapshot of a cluster with every Service new', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'place', name: 'first' });
    const snapshotId = await addSnapshot(db.prisma, clusterId, { capturedAt: at(0), status: 'processing' });

    const placed = await locked(clusterId, (tx) =>
      placeSnapshot(tx, { snapshotId, clusterId, keys: ['shop/a', 'shop/b'], stateHashes: [1n, 2n] }),
    );

    expect(placed).toEqual({ previous: null, next: null, changed: ['shop/a', 'shop/b'], atPrevious: new Map() });
  });

  it('keeps only what differs from the snapshot before: changed and new Services, changed and gone intervals', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'place', name: 'diff' });
    await recordFirst(clusterId, 0, [state('same', 1), state('changed', 2), state('gone', 3)]);
    const snapshotId = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), status: 'queued' });

    const placed = await locked(clusterId, (tx) =>
      placeSnapshot(tx, {
        snapshotId,
        clusterId,
        keys: ['shop/same', 'shop/changed', 'shop/new'],
        stateHashes: [1n, 22n, 4n],
      }),
    );

    expect(placed?.previous).toEqual(at(0));
    expect(placed?.next).toBeNull();
    expect(placed?.changed.sort()).toEqual(['shop/changed', 'shop/new']);
    expect([...placed!.atPrevious.values()].sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { id: expect.any(BigInt), key: 'shop/changed', stateHash: 2n, validFrom: at(0), validTo: null },
      { id: expect.any(BigInt), key: 'shop/gone', stateHash: 3n, validFrom: at(0), validTo: null },
    ]);
  });

  it('places a snapshot inserted into the past between its recorded neighbours', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'place', name: 'past' });
    await recordFirst(clusterId, 0, [state('a', 1)]);
    await recordFirst(clusterId, 10, []);
    const snapshotId = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), status: 'processing' });

    const placed = await locked(clusterId, (tx) =>
      placeSnapshot(tx, { snapshotId, clusterId, keys: ['shop/a'], stateHashes: [1n] }),
    );

    expect(placed).toMatchObject({ previous: at(0), next: at(10), changed: [] });
  });

  it('places nothing that no longer waits (processed or failed)', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'place', name: 'done' });
    const processed = await recordFirst(clusterId, 0, [state('a', 1)]);
    const failed = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), status: 'failed' });

    for (const snapshotId of [processed, failed]) {
      const placed = await locked(clusterId, (tx) =>
        placeSnapshot(tx, { snapshotId, clusterId, keys: [], stateHashes: [] }),
      );
      expect(placed).toBeNull();
    }
  });
});

describe('closeAndOpenIntervals', () => {
  it('ends intervals at the snapshot and opens new ones, registering each Service, fix and zones content once', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'close', name: 'a' });
    const fixes = { hash: 'ab'.repeat(16), json: '{"fixes":[1]}', fraction: 0.125 };
    await recordFirst(clusterId, 0, [state('kept', 1), state('changed', 2, 10, fixes)]);
    const atZero = await locked(clusterId, (tx) => intervalsCovering(tx, clusterId, at(0), ['shop/changed']));

    const { ended, inserted } = await locked(clusterId, (tx) =>
      closeAndOpenIntervals(
        tx,
        clusterId,
        at(5),
        null,
        [...atZero.values()],
        [state('changed', 22, 20, fixes), state('new', 3)],
      ),
    );

    const services = await db.prisma.clusterService.findMany({ where: { clusterId }, orderBy: { name: 'asc' } });
    const id = (name: string) => services.find((s) => s.name === name)!.id;
    expect(services.map((s) => s.name)).toEqual(['changed', 'kept', 'new']);
    expect(ended).toEqual([{ id: atZero.get('shop/changed')!.id, serviceId: id('changed'), validFrom: at(0) }]);
    expect(inserted.sort()).toEqual([id('changed'), id('new')].sort());
    expect(await intervalsOf(clusterId)).toEqual([
      { name: 'changed', from: at(0), to: at(5), hash: 2n },
      { name: 'changed', from: at(5), to: null, hash: 22n },
      { name: 'kept', from: at(0), to: null, hash: 1n },
      { name: 'new', from: at(5), to: null, hash: 3n },
    ]);
    expect(await db.prisma.serviceFixContent.findMany({ where: { clusterId } })).toEqual([
      { clusterId, hash: new Uint8Array(Buffer.from(fixes.hash, 'hex')), fixes: { fixes: [1] } },
    ]);
    const stored = await db.prisma.serviceInterval.findFirstOrThrow({
      where: { serviceId: id('changed'), validFrom: at(5) },
    });
    // Every state has the same zones: stored once, under the first 16 bytes of SHA-256 over their JSON,
    // which each interval names (its own zones column stays null).
    const zonesJson = JSON.stringify(state('any', 0).zones);
    const zonesHash = new Uint8Array(createHash('sha256').update(zonesJson).digest().subarray(0, 16));
    expect(await db.prisma.serviceZoneContent.findMany({ where: { clusterId } })).toEqual([
      { clusterId, hash: zonesHash, zones: { a: { allocated: 1, desired: 1 } } },
    ]);
    const [own] = await db.prisma.$queryRaw<{ zones: number; hashes: number }[]>`
      SELECT count(zones)::int AS zones, count(zones_hash)::int AS hashes FROM service_intervals
       WHERE cluster_id = ${clusterId}::uuid`;
    expect(own).toEqual({ zones: 0, hashes: 4 });
    expect(await withIntervalZones(db.prisma, [stored])).toMatchObject([
      { zones: { a: { allocated: 1, desired: 1 } } },
    ]);
    expect(stored).toMatchObject({
      routing: 'Auto',
      hintState: 'populated',
      zones: null,
      zonesHash,
      readyEndpoints: 3,
      trafficGb: 20,
      trafficSource: 'default-per-endpoint',
      managedBy: 'endpointslice-controller',
      honoursHints: true,
      fixesHash: new Uint8Array(Buffer.from(fixes.hash, 'hex')),
      fixFraction: 0.125,
    });
  });

  it('opens intervals up to the next snapshot when inserted into the past, and makes no round trip for nothing', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'close', name: 'b' });

    const opened = await locked(clusterId, (tx) =>
      closeAndOpenIntervals(tx, clusterId, at(5), at(10), [], [state('a', 1)]),
    );
    const nothing = await locked(clusterId, (tx) => closeAndOpenIntervals(tx, clusterId, at(5), null, [], []));

    expect(opened.ended).toEqual([]);
    expect(opened.inserted).toHaveLength(1);
    expect(nothing).toEqual({ ended: [], inserted: [] });
    expect(await intervalsOf(clusterId)).toEqual([{ name: 'a', from: at(5), to: at(10), hash: 1n }]);
  });
});

describe('intervalsCovering', () => {
  it('finds the named Services’ intervals holding at an instant, and nothing for no names', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'covering', name: 'a' });
    await recordFirst(clusterId, 0, [state('a', 1), state('b', 2)]);
    const atZero = await locked(clusterId, (tx) => intervalsCovering(tx, clusterId, at(0), ['shop/a']));
    await locked(clusterId, (tx) => closeAndOpenIntervals(tx, clusterId, at(5), null, [...atZero.values()], []));

    const covering = await locked(clusterId, async (tx) => ({
      before: await intervalsCovering(tx, clusterId, at(4), ['shop/a', 'shop/b']),
      after: await intervalsCovering(tx, clusterId, at(5), ['shop/a', 'shop/b']),
      none: await intervalsCovering(tx, clusterId, at(5), []),
    }));

    expect([...covering.before.keys()].sort()).toEqual(['shop/a', 'shop/b']);
    expect(covering.before.get('shop/a')).toMatchObject({ stateHash: 1n, validFrom: at(0), validTo: at(5) });
    expect([...covering.after.keys()]).toEqual(['shop/b']);
    expect(covering.none).toEqual(new Map());
  });
});

describe('copyIntervalTails and startIntervalsAt', () => {
  it('split an interval around a snapshot inserted into the past, and move a later state’s start back', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'split', name: 'a' });
    await recordFirst(clusterId, 0, [state('split', 1), state('later', 2)]);
    const atZero = await locked(clusterId, (tx) =>
      intervalsCovering(tx, clusterId, at(0), ['shop/split', 'shop/later']),
    );
    const later = atZero.get('shop/later')!;
    // shop/later changed at 10; a snapshot at 5 turns out to have that state already.
    const { inserted } = await locked(clusterId, (tx) =>
      closeAndOpenIntervals(tx, clusterId, at(10), null, [later], [state('later', 22)]),
    );
    const laterFrom10 = (await locked(clusterId, (tx) => intervalsCovering(tx, clusterId, at(10), ['shop/later']))).get(
      'shop/later',
    )!;
    const split = atZero.get('shop/split')!;

    const extended = await locked(clusterId, async (tx) => {
      await copyIntervalTails(tx, at(10), [split]);
      await closeAndOpenIntervals(tx, clusterId, at(5), at(10), [split, later], [state('split', 11)]);
      return startIntervalsAt(tx, at(5), [laterFrom10]);
    });

    expect(extended).toEqual([{ serviceId: inserted[0], validTo: null }]);
    expect(await intervalsOf(clusterId)).toEqual([
      { name: 'later', from: at(0), to: at(5), hash: 2n },
      { name: 'later', from: at(5), to: null, hash: 22n },
      { name: 'split', from: at(0), to: at(5), hash: 1n },
      { name: 'split', from: at(5), to: at(10), hash: 11n },
      { name: 'split', from: at(10), to: null, hash: 1n },
    ]);
  });

  it('make no round trip for no intervals', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'split', name: 'none' });
    const rows = await locked(clusterId, async (tx) => {
      await copyIntervalTails(tx, at(10), []);
      return startIntervalsAt(tx, at(5), []);
    });
    expect(rows).toEqual([]);
  });
});

/** The roll-up columns of the summary at `minute`. */
async function rollupAt(clusterId: string, minute: number) {
  return db.prisma.snapshotSummary.findFirstOrThrow({
    where: { clusterId, capturedAt: at(minute) },
    select: { trafficGb: true, crossZoneGbWithoutHints: true, crossZoneGbWithHints: true, opportunities: true },
  });
}

describe('recordSummary', () => {
  it('writes the summary with the roll-up of the intervals holding at it, marks the snapshot processed and stores its documents once', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'summary', name: 'a' });
    const first = await recordFirst(clusterId, 0, [state('a', 1, 10), state('b', 2, 30)]);
    const second = await recordFirst(clusterId, 5, []);

    expect(await rollupAt(clusterId, 0)).toEqual({
      trafficGb: 40,
      crossZoneGbWithoutHints: 20,
      crossZoneGbWithHints: 10,
      opportunities: 0,
    });
    const snapshots = await db.prisma.snapshot.findMany({ where: { id: { in: [first, second] } } });
    expect(snapshots.map((s) => s.status)).toEqual(['processed', 'processed']);
    const summary = await db.prisma.snapshotSummary.findFirstOrThrow({ where: { snapshotId: first } });
    expect(summary).toMatchObject({ services: 2, analyzer: 'test', kubernetesVersion: '1.31', dataPlane: null });
    // The zones and the zone statistics, one document each (no CIDRs or blocking nodes in AGGREGATES),
    // shared by both snapshots; the summary names its zones instead of holding them.
    expect(await db.prisma.analysisDocument.count({ where: { clusterId } })).toBe(2);
    expect(summary.zones).toBeNull();
    expect(await summaryZones(db.prisma, summary)).toEqual(AGGREGATES.zones);
  });

  it('copies the roll-up of the summary it names instead of summing the intervals', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'summary', name: 'same' });
    await recordFirst(clusterId, 0, [state('a', 1, 10)]);
    await db.prisma.snapshotSummary.updateMany({ where: { clusterId }, data: { trafficGb: 123 } });
    const snapshotId = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), status: 'processing' });

    await locked(clusterId, (tx) =>
      recordSummary(tx, { clusterId, snapshotId, capturedAt: at(5), analyzer: 'test', aggregates: AGGREGATES }, at(0)),
    );

    expect((await rollupAt(clusterId, 5)).trafficGb).toBe(123);
  });
});

describe('recordRepeatedSummary', () => {
  it('repeats the newest summary for the same input, analyzer and overrides', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'repeat', name: 'a' });
    await recordFirst(clusterId, 0, [state('a', 1, 10)], 'same');
    const snapshotId = await addSnapshot(db.prisma, clusterId, {
      capturedAt: at(5),
      status: 'processing',
      input: 'same',
    });

    expect(await locked(clusterId, (tx) => recordRepeatedSummary(tx, snapshotId, 'test'))).toBe('recorded');

    const [first, repeated] = await db.prisma.snapshotSummary.findMany({
      where: { clusterId },
      orderBy: { capturedAt: 'asc' },
    });
    const { snapshotId: _first, capturedAt: _at0, ...figures } = first;
    expect(repeated).toEqual({ ...figures, snapshotId, capturedAt: at(5) });
    expect((await db.prisma.snapshot.findUniqueOrThrow({ where: { id: snapshotId } })).status).toBe('processed');
    expect(await intervalsOf(clusterId)).toEqual([{ name: 'a', from: at(0), to: null, hash: 1n }]);
  });

  it('is not a repeat for another input, another analyzer, a changed override or a later summary', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'repeat', name: 'b' });
    await recordFirst(clusterId, 0, [state('a', 1)], 'same');
    const other = await addSnapshot(db.prisma, clusterId, { capturedAt: at(5), status: 'processing', input: 'other' });
    const same = await addSnapshot(db.prisma, clusterId, { capturedAt: at(6), status: 'processing', input: 'same' });

    expect(await locked(clusterId, (tx) => recordRepeatedSummary(tx, other, 'test'))).toBe('not-a-repeat');
    expect(await locked(clusterId, (tx) => recordRepeatedSummary(tx, same, 'another'))).toBe('not-a-repeat');
    await db.prisma.cluster.update({ where: { id: clusterId }, data: { dataPlane: 'cilium' } });
    expect(await locked(clusterId, (tx) => recordRepeatedSummary(tx, same, 'test'))).toBe('not-a-repeat');
    await db.prisma.cluster.update({ where: { id: clusterId }, data: { dataPlane: null } });
    await recordFirst(clusterId, 10, [], 'newer');
    expect(await locked(clusterId, (tx) => recordRepeatedSummary(tx, same, 'test'))).toBe('not-a-repeat');
    expect(await db.prisma.snapshotSummary.count({ where: { clusterId } })).toBe(2);
  });

  it('records nothing for a snapshot no longer waiting', async () => {
    const { clusterId } = await addCluster(db.prisma, { organizationSlug: 'repeat', name: 'c' });
    const processed = await recordFirst(clusterId, 0, [state('a', 1)], 'same');

    expect(await locked(clusterId, (tx) => recordRepeatedSummary(tx, processed, 'test'))).toBe('not-waiting');
  });
});
