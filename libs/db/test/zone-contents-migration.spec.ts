import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabaseAtMigration,
  insertClusterAtAnySchema,
  type MigratedDatabase,
} from '../../../test/support/databases.js';
import {
  closeAndOpenIntervals,
  createPrismaClient,
  type IntervalState,
  listServiceStates,
  lockCluster,
  type Prisma,
  type PrismaClient,
  pruneServiceContents,
  ReadDb,
  serviceIntervals,
  serviceTimeline,
} from '../src/index.js';

/**
 * The migration that stores a Service's zones once per distinct content (service_zone_contents), named
 * by its interval: intervals recorded before it keep their own zones and read the same after it; those
 * recorded after it name a content, and every read answers their zones as before; retention deletes the
 * contents no interval names any more.
 */

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));
const OLD_ZONES = { a: { allocated: 1, desired: 1.5, expectedOverload: 0, maximum: null, minimum: 1 } };
const NEW_ZONES = { a: { allocated: 2, desired: 2, expectedOverload: 0.25, maximum: 3, minimum: 1 } };

function state(name: string, hash: number, zones: unknown): IntervalState {
  return {
    namespace: 'shop',
    name,
    stateHash: BigInt(hash),
    routing: 'Auto',
    hintState: 'populated',
    hintReason: null,
    zones,
    crossZoneWithoutHints: 0.5,
    crossZoneWithHints: 0.25,
  };
}

let db: MigratedDatabase;
let prisma: PrismaClient;
let readDb: ReadDb;
let clusterId: string;

function locked<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    await lockCluster(tx, clusterId, 10_000);
    return work(tx);
  });
}

async function listed(minute: number) {
  const rows = await listServiceStates(readDb, {
    clusterId,
    at: at(minute),
    filters: {},
    sort: 'name',
    descending: false,
    after: null,
    limit: 10,
  });
  return rows.map((row) => [row.name, row.zones]);
}

beforeAll(async () => {
  db = await createDatabaseAtMigration('zone_contents_migration', '_history_tables_partitioned');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  // History as that schema holds it: cart's interval from minute 0 still open, pay's closed at minute 5.
  clusterId = await insertClusterAtAnySchema(db.url);
  await prisma.$executeRawUnsafe(
    `INSERT INTO cluster_services (cluster_id, namespace, name) VALUES ($1::uuid, 'shop', 'cart'), ($1::uuid, 'shop', 'pay')`,
    clusterId,
  );
  await prisma.$executeRawUnsafe(
    `INSERT INTO service_intervals (cluster_id, service_id, valid_from, valid_to, state_hash, routing, hint_state, zones)
     SELECT $1::uuid, s.id, $2::timestamptz, CASE WHEN s.name = 'pay' THEN $3::timestamptz END, 1, 'Auto', 'populated',
            $4::jsonb
       FROM cluster_services s WHERE s.cluster_id = $1::uuid`,
    clusterId,
    at(0),
    at(5),
    JSON.stringify(OLD_ZONES),
  );
  await db.apply('_service_zone_contents');
  await db.applyRest();
  readDb = new ReadDb({ databaseUrl: db.url, poolMax: 2 });
}, 120_000);

afterAll(async () => {
  await readDb?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

describe('migration 20261129021000_service_zone_contents', () => {
  it('leaves the intervals recorded before it as they were, and they read the same', async () => {
    const [own] = await prisma.$queryRaw<{ zones: number; hashes: number }[]>`
      SELECT count(zones)::int AS zones, count(zones_hash)::int AS hashes FROM service_intervals`;
    expect(own).toEqual({ zones: 2, hashes: 0 });
    expect(await listed(1)).toEqual([
      ['cart', OLD_ZONES],
      ['pay', OLD_ZONES],
    ]);
  });

  it('stores each distinct zones content of later intervals once, and every read answers their zones', async () => {
    // pay comes back at minute 10, and a new Service with the same zones; cart's zones change at minute 10.
    const atFive = await prisma.serviceInterval.findFirstOrThrow({
      where: { clusterId, service: { name: 'cart' } },
    });
    await locked((tx) =>
      closeAndOpenIntervals(
        tx,
        clusterId,
        at(10),
        null,
        [{ id: atFive.id, key: 'shop/cart', stateHash: 1n, validFrom: atFive.validFrom, validTo: null }],
        [state('cart', 2, NEW_ZONES), state('pay', 1, OLD_ZONES), state('web', 3, NEW_ZONES)],
      ),
    );
    expect(await prisma.serviceZoneContent.count({ where: { clusterId } })).toBe(2);
    const [own] = await prisma.$queryRaw<{ zones: number; hashes: number }[]>`
      SELECT count(zones)::int AS zones, count(zones_hash)::int AS hashes FROM service_intervals`;
    expect(own).toEqual({ zones: 2, hashes: 3 });

    expect(await listed(10)).toEqual([
      ['cart', NEW_ZONES],
      ['pay', OLD_ZONES],
      ['web', NEW_ZONES],
    ]);
    const sorted = await listServiceStates(readDb, {
      clusterId,
      at: at(10),
      filters: {},
      sort: 'cost',
      descending: true,
      after: null,
      limit: 10,
    });
    expect(sorted.map((row) => [row.name, row.zones]).sort()).toEqual([
      ['cart', NEW_ZONES],
      ['pay', OLD_ZONES],
      ['web', NEW_ZONES],
    ]);
    const cart = await prisma.clusterService.findFirstOrThrow({ where: { clusterId, name: 'cart' } });
    expect((await serviceIntervals(readDb, String(cart.id), at(0), at(20), 10)).map((row) => row.zones)).toEqual([
      OLD_ZONES,
      NEW_ZONES,
    ]);
    const timeline = await serviceTimeline(prisma, { clusterId, namespace: 'shop', name: 'cart' }, at(0), at(20));
    expect(timeline.map((i) => i.zones)).toEqual([OLD_ZONES, NEW_ZONES]);
  });

  it('deletes the zones contents no interval names any more', async () => {
    await prisma.$executeRaw`DELETE FROM service_intervals WHERE cluster_id = ${clusterId}::uuid
                               AND service_id IN (SELECT id FROM cluster_services WHERE name IN ('cart', 'web'))
                               AND zones_hash IS NOT NULL`;
    await locked((tx) => pruneServiceContents(tx as PrismaClient, clusterId));
    const kept = await prisma.serviceZoneContent.findMany({ where: { clusterId } });
    expect(kept.map((content) => content.zones)).toEqual([OLD_ZONES]);
  });
});
