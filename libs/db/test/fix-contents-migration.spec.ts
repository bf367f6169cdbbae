import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabaseAtMigration,
  insertClusterAtAnySchema,
  type MigratedDatabase,
} from '../../../test/support/databases.js';
import { createPrismaClient, fixRankingRows, type PrismaClient, ReadDb } from '../src/index.js';

/**
 * The migration that moved each Service's fixes from one row per recommendations document
 * (service_fixes) to one row per distinct content named by the Service's interval: history recorded
 * the old way, in the schema one migration back, reads the same after it.
 */

const T0 = new Date('2026-11-20T10:00:00Z');
const T1 = new Date('2026-11-20T10:05:00Z');
const T2 = new Date('2026-11-20T10:10:00Z');

function entry(name: string, kind: string, fraction: number, trafficGb: number) {
  return {
    namespace: 'shop',
    name,
    routing: 'None',
    hintState: 'none',
    hintReason: null,
    trafficGb,
    trafficSource: 'default-per-endpoint',
    recommendations: [{ kind, savings: { crossZoneFraction: fraction } }],
  };
}

let db: MigratedDatabase;
let prisma: PrismaClient;
let readDb: ReadDb;
let clusterId: string;

beforeAll(async () => {
  db = await createDatabaseAtMigration('fix_contents_migration', '_fix_ranking_own_traffic');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  // The cluster as that schema holds it (the current client writes columns added later).
  clusterId = await insertClusterAtAnySchema(db.url);
  // cart's fixes never change; pay's change at T1. Two recommendations documents: T0's, and T1's and
  // T2's (the same content).
  const cart = entry('cart', 'enable-topology-mode', 0.4, 100);
  const payBefore = entry('pay', 'add-replicas', 0.2, 50);
  const payAfter = entry('pay', 'enable-topology-mode', 0.5, 50);
  const documents = [
    { hash: Buffer.alloc(16, 1), services: [cart, payBefore] },
    { hash: Buffer.alloc(16, 2), services: [cart, payAfter] },
  ];
  const hashes = documents.map((d) => d.hash);
  const bodies = documents.map((d) => JSON.stringify(d.services));
  const old: [string, ...unknown[]][] = [
    [
      `INSERT INTO cluster_services (cluster_id, namespace, name) VALUES ($1::uuid, 'shop', 'cart'), ($1::uuid, 'shop', 'pay')`,
      clusterId,
    ],
    [
      `INSERT INTO analysis_documents (cluster_id, hash, body)
       SELECT $1::uuid, d.hash, jsonb_build_object('nodeBlockers', NULL) FROM unnest($2::bytea[]) AS d(hash)`,
      clusterId,
      hashes,
    ],
    [
      `INSERT INTO service_fixes (cluster_id, hash, namespace, name, traffic_gb, traffic_source, fraction, saved_gb, fixes)
       SELECT $1::uuid, d.hash, e->>'namespace', e->>'name', (e->>'trafficGb')::float8, e->>'trafficSource',
              (e->'recommendations'->0->'savings'->>'crossZoneFraction')::float8,
              (e->>'trafficGb')::float8 * (e->'recommendations'->0->'savings'->>'crossZoneFraction')::float8, e
         FROM unnest($2::bytea[], $3::text[]) AS d(hash, body), jsonb_array_elements(d.body::jsonb) e`,
      clusterId,
      hashes,
      bodies,
    ],
    [
      `INSERT INTO snapshots (id, cluster_id, captured_at, content_hash, size_bytes, status)
       SELECT gen_random_uuid(), $1::uuid, t, sha256(t::text::bytea), 1, 'processed' FROM unnest($2::timestamptz[]) t`,
      clusterId,
      [T0, T1, T2],
    ],
    [
      `INSERT INTO snapshot_summaries (snapshot_id, cluster_id, captured_at, services, services_populated,
                                       services_removed, services_none, node_info_sufficient, zones,
                                       services_with_drift, cross_zone_without_hints, cross_zone_with_hints,
                                       recommendations_hash)
       SELECT s.id, $1::uuid, s.captured_at, 2, 0, 0, 2, true, '[]', 0, 0, 0,
              CASE WHEN s.captured_at = $2::timestamptz THEN ($3::bytea[])[1] ELSE ($3::bytea[])[2] END
         FROM snapshots s WHERE s.cluster_id = $1::uuid`,
      clusterId,
      T0,
      hashes,
    ],
    [
      `INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state,
                                      zones, traffic_gb, traffic_source)
       SELECT $1::uuid, s.id, v.valid_from, v.valid_to, v.state_hash, 'None', 'none', '{}', v.traffic_gb,
              'default-per-endpoint'
         FROM (VALUES ('cart', $2::timestamptz, NULL::timestamptz, 1::bigint, 100::float8),
                      ('pay', $2, $3::timestamptz, 2, 50), ('pay', $3, NULL, 3, 50))
              AS v(name, valid_from, valid_to, state_hash, traffic_gb)
         JOIN cluster_services s ON s.cluster_id = $1::uuid AND s.name = v.name`,
      clusterId,
      T0,
      T1,
    ],
  ];
  for (const [statement, ...values] of old) await prisma.$executeRawUnsafe(statement, ...values);
  await db.apply('_service_fix_contents');
  await db.applyRest();
  readDb = new ReadDb({ databaseUrl: db.url, poolMax: 2 });
}, 120_000);

afterAll(async () => {
  await readDb?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

async function ranking(before?: Date) {
  const rows = await fixRankingRows(readDb, { clusters: [{ id: clusterId, pricePerGb: 0.01 }], before, limit: 10 });
  return rows.map((row) => ({
    name: row.name,
    kind: (row.fixes.recommendations[0] as { kind: string }).kind,
    savedGb: row.saved_gb,
    capturedAt: row.captured_at.toISOString(),
  }));
}

describe('migration 20261128120000_service_fix_contents', () => {
  it('stores each distinct content once and names it from the interval that held it', async () => {
    // cart's fixes, the same in both documents, are one row; pay's two contents are two.
    expect(await prisma.serviceFixContent.count({ where: { clusterId } })).toBe(3);
    const intervals = await prisma.serviceInterval.findMany({
      where: { clusterId },
      include: { service: true },
      orderBy: [{ serviceId: 'asc' }, { validFrom: 'asc' }],
    });
    expect(intervals.map((i) => [i.service.name, i.fixFraction, i.fixesHash !== null])).toEqual([
      ['cart', 0.4, true],
      ['pay', 0.2, true],
      ['pay', 0.5, true],
    ]);
    const [table] = await prisma.$queryRaw<
      { exists: boolean }[]
    >`SELECT to_regclass('service_fixes') IS NOT NULL AS exists`;
    expect(table.exists).toBe(false);
  });

  it('ranks the newest snapshot and an earlier one as the documents did', async () => {
    expect(await ranking()).toEqual([
      { name: 'cart', kind: 'enable-topology-mode', savedGb: 40, capturedAt: T2.toISOString() },
      { name: 'pay', kind: 'enable-topology-mode', savedGb: 25, capturedAt: T2.toISOString() },
    ]);
    expect(await ranking(T1)).toEqual([
      { name: 'cart', kind: 'enable-topology-mode', savedGb: 40, capturedAt: T0.toISOString() },
      { name: 'pay', kind: 'add-replicas', savedGb: 10, capturedAt: T0.toISOString() },
    ]);
  });
});
