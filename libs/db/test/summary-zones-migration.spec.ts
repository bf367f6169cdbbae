import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabaseAtMigration,
  insertClusterAtAnySchema,
  type MigratedDatabase,
} from '../../../test/support/databases.js';
import { addSnapshot } from '../../../test/support/repositories.js';
import {
  createPrismaClient,
  lockCluster,
  type PrismaClient,
  pruneAnalysisDocuments,
  ReadDb,
  recordSummary,
  type SnapshotAggregates,
  summaryDocuments,
  summaryZones,
} from '../src/index.js';

/**
 * The migration that stores a snapshot summary's nodeInfo zones once per distinct content, as an
 * analysis document the summary names: summaries recorded before it keep their own zones and read the
 * same after it; those recorded after it name the document, which every snapshot with the same zones
 * shares and which retention keeps while a summary names it.
 */

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));
const OLD_ZONES = [{ name: 'a', allocatableCpuMillis: 4000, cpuRatio: 1, readyNodes: 2 }];
const NEW_ZONES = [
  { name: 'a', allocatableCpuMillis: 4000, cpuRatio: 0.5, readyNodes: 2 },
  { name: 'b', allocatableCpuMillis: 4000, cpuRatio: 0.5, readyNodes: 2 },
];

const AGGREGATES: SnapshotAggregates = {
  services: 0,
  servicesPopulated: 0,
  servicesRemoved: 0,
  servicesNone: 0,
  nodeInfoSufficient: true,
  nodeInfoReason: null,
  servicesWithDrift: 0,
  zones: NEW_ZONES,
  crossZoneWithoutHints: 0,
  crossZoneWithHints: 0,
};

let db: MigratedDatabase;
let prisma: PrismaClient;
let readDb: ReadDb;
let clusterId: string;

async function zonesAt(minute: number) {
  const [row] = await summaryDocuments(readDb, [clusterId], at(minute));
  return row.zones;
}

async function record(minute: number) {
  const snapshotId = await addSnapshot(prisma, clusterId, { capturedAt: at(minute), status: 'processing' });
  await prisma.$transaction(async (tx) => {
    await lockCluster(tx, clusterId, 10_000);
    await recordSummary(
      tx,
      { clusterId, snapshotId, capturedAt: at(minute), analyzer: 'test', aggregates: AGGREGATES },
      null,
    );
  });
}

beforeAll(async () => {
  db = await createDatabaseAtMigration('summary_zones_migration', '_service_zone_contents');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  // A summary as that schema holds it, its zones in the row.
  clusterId = await insertClusterAtAnySchema(db.url);
  await prisma.$executeRawUnsafe(
    `WITH s AS (INSERT INTO snapshots (id, cluster_id, captured_at, content_hash, size_bytes, status)
                VALUES (gen_random_uuid(), $1::uuid, $2::timestamptz, sha256('old'::bytea), 1, 'processed')
                RETURNING id, captured_at)
     INSERT INTO snapshot_summaries (snapshot_id, cluster_id, captured_at, services, services_populated,
                                     services_removed, services_none, node_info_sufficient, zones,
                                     services_with_drift, cross_zone_without_hints, cross_zone_with_hints)
     SELECT s.id, $1::uuid, s.captured_at, 0, 0, 0, 0, true, $3::jsonb, 0, 0, 0 FROM s`,
    clusterId,
    at(0),
    JSON.stringify(OLD_ZONES),
  );
  await db.apply('_summary_zones_documents');
  await db.applyRest();
  readDb = new ReadDb({ databaseUrl: db.url, poolMax: 2 });
}, 120_000);

afterAll(async () => {
  await readDb?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

describe('migration 20261129023000_summary_zones_documents', () => {
  it('leaves the summaries recorded before it as they were, and they read the same', async () => {
    const summary = await prisma.snapshotSummary.findFirstOrThrow({ where: { clusterId } });
    expect(summary).toMatchObject({ zones: OLD_ZONES, zonesHash: null });
    expect(await summaryZones(prisma, summary)).toEqual(OLD_ZONES);
    expect(await zonesAt(0)).toEqual(OLD_ZONES);
  });

  it('stores the zones of later summaries once, which they name and read', async () => {
    await record(5);
    await record(10);
    const later = await prisma.snapshotSummary.findMany({
      where: { clusterId, zonesHash: { not: null } },
      orderBy: { capturedAt: 'asc' },
    });
    expect(later.map((s) => s.zones)).toEqual([null, null]);
    expect(new Set(later.map((s) => Buffer.from(s.zonesHash!).toString('hex'))).size).toBe(1);
    expect(await prisma.analysisDocument.count({ where: { clusterId } })).toBe(1);
    expect(await zonesAt(5)).toEqual(NEW_ZONES);
    expect(await zonesAt(10)).toEqual(NEW_ZONES);
    expect(await zonesAt(7)).toEqual(NEW_ZONES);
    expect(await zonesAt(3)).toEqual(OLD_ZONES);
  });

  it('keeps the zones document while a summary names it, and deletes it once none does', async () => {
    expect(await pruneAnalysisDocuments(prisma, clusterId)).toBe(0);
    await prisma.snapshot.deleteMany({ where: { clusterId, capturedAt: { gt: at(0) } } });
    expect(await pruneAnalysisDocuments(prisma, clusterId)).toBe(1);
    expect(await zonesAt(10)).toEqual(OLD_ZONES);
  });
});
