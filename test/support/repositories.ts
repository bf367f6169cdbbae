import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type pg from 'pg';
import {
  createDbPool,
  PrismaClient,
  prismaClientOptions,
  ReadDb,
  registerCluster,
  type IntervalState,
  type RegisterClusterInput,
  type SnapshotAggregates,
  type SnapshotStatus,
} from '../../libs/db/src/index.js';
import { createTestDatabase } from './databases.js';

/**
 * A migrated database with the clients a repository may take: Prisma (writes), the pool it runs on
 * (the worker's snapshot writes, inPgTransaction) and the read pool.
 */
export interface RepositoryDatabase {
  prisma: PrismaClient;
  pool: pg.Pool;
  readDb: ReadDb;
  drop(): Promise<void>;
}

export async function repositoryDatabase(tag: string): Promise<RepositoryDatabase> {
  const database = await createTestDatabase(tag);
  const options = { databaseUrl: database.url, poolMax: 4 };
  const pool = createDbPool(options);
  const prisma = new PrismaClient(prismaClientOptions(options, pool));
  const readDb = new ReadDb({ databaseUrl: database.url, poolMax: 2 });
  return {
    prisma,
    pool,
    readDb,
    drop: async () => {
      await Promise.all([prisma.$disconnect(), readDb.end()]);
      await database.drop();
    },
  };
}

/** A daily JSON report schedule of the organization's (anchored now); its id. */
export async function addReportSchedule(
  prisma: PrismaClient,
  organizationId: string,
  input: { name: string; createdAt?: Date; webhookSecret?: string },
): Promise<string> {
  const { id } = await prisma.reportSchedule.create({
    data: {
      organizationId,
      cadence: 'daily',
      cronExpression: '0 0 * * *',
      timeZone: 'UTC',
      formats: ['json'],
      anchorAt: new Date(),
      ...input,
    },
    select: { id: true },
  });
  return id;
}

/** A cluster (and its organization when new); its id and its organization's. */
export async function addCluster(
  prisma: PrismaClient,
  input: Partial<RegisterClusterInput> & { name: string },
): Promise<{ clusterId: string; organizationId: string }> {
  const { cluster } = await registerCluster(prisma, { organizationSlug: 'acme', ...input });
  return { clusterId: cluster.id, organizationId: cluster.organizationId };
}

export interface StoredSnapshotInput {
  capturedAt: Date;
  status?: SnapshotStatus;
  /** The pushed document; its payload row is left out when null. */
  document?: object | null;
  /** What the analysis reads; snapshots with the same input repeat each other. */
  input?: string;
}

/** A snapshot row as ingest stores it, with its gzip payload unless `document` is null; its id. */
export async function addSnapshot(
  prisma: PrismaClient,
  clusterId: string,
  input: StoredSnapshotInput,
): Promise<string> {
  const json = JSON.stringify(input.document === undefined ? { capturedAt: input.capturedAt } : input.document);
  const sha = (text: string) => createHash('sha256').update(text).digest();
  const { id } = await prisma.snapshot.create({
    data: {
      clusterId,
      capturedAt: input.capturedAt,
      contentHash: sha(`${json}${input.capturedAt.toISOString()}`),
      inputHash: input.input === undefined ? null : sha(input.input),
      sizeBytes: Buffer.byteLength(json),
      status: input.status ?? 'queued',
      ...(input.document === null ? {} : { payload: { create: { gzip: gzipSync(json) } } }),
    },
    select: { id: true },
  });
  return id;
}

/** The summary row of a processed snapshot, with the analysis settings it names (the rest zero). */
export async function addSummary(
  prisma: PrismaClient,
  snapshot: { id: string; clusterId: string; capturedAt: Date },
  settings: {
    kubernetesVersion?: string;
    kubernetesVersionSource?: string;
    dataPlane?: string;
    dataPlaneSource?: string;
  },
): Promise<void> {
  await prisma.snapshotSummary.create({
    data: {
      snapshotId: snapshot.id,
      clusterId: snapshot.clusterId,
      capturedAt: snapshot.capturedAt,
      services: 0,
      servicesPopulated: 0,
      servicesRemoved: 0,
      servicesNone: 0,
      nodeInfoSufficient: true,
      zones: [],
      servicesWithDrift: 0,
      crossZoneWithoutHints: 0,
      crossZoneWithHints: 0,
      ...settings,
    },
  });
}

/** A summary's aggregates for a one-zone cluster of two Services, for writing summaries directly. */
export const SUMMARY_AGGREGATES: SnapshotAggregates = {
  services: 2,
  servicesPopulated: 1,
  servicesRemoved: 0,
  servicesNone: 1,
  nodeInfoSufficient: true,
  nodeInfoReason: null,
  servicesWithDrift: 0,
  zones: [{ name: 'a' }],
  crossZoneWithoutHints: 0.5,
  crossZoneWithHints: 0.25,
  zoneStats: { a: { endpoints: 3 } },
  settings: {
    kubernetesVersion: '1.31',
    kubernetesVersionSource: 'nodes',
    dataPlane: null,
    dataPlaneSource: 'default',
  },
};

/** The state of Service shop/`name` (hash `hash`) as the history writer records it: hints populated, no fixes. */
export function serviceState(name: string, hash: number, trafficGb = 10): IntervalState {
  return {
    namespace: 'shop',
    name,
    stateHash: BigInt(hash),
    routing: 'Auto',
    hintState: 'populated',
    hintReason: null,
    zones: { a: { allocated: 1, desired: 1 } },
    crossZoneWithoutHints: 0.5,
    crossZoneWithHints: 0.25,
    verdict: { managedBy: 'endpointslice-controller', honoursHints: true, dataPathReason: null },
    savings: {
      readyEndpoints: 3,
      trafficAnnotation: null,
      trafficGb,
      trafficSource: 'default-per-endpoint',
      previewState: null,
      previewReason: null,
      previewCrossZone: null,
    },
    fixes: null,
  };
}
