import { generateFleetSnapshot, MONTHLY_TRAFFIC_ANNOTATION } from '@zw/core';
import { createPrismaClient, type PrismaClient, registerCluster, tableBytes } from '@zw/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { withServiceAnnotations } from '../../../test/support/query-snapshots.js';
import { analyzeDocument } from '../src/snapshot-analysis.js';
import { recordAt } from './support/record.js';

/**
 * The query API's additions to the stored read model (savings inputs per interval, the monthly roll-up per
 * summary, zone statistics, Service CIDR analyses and recommended fixes as shared documents) keep the history's key
 * property: a snapshot in which nothing changed adds one summary row and one snapshot row, nothing else.
 */

let db: TestDatabase;
let prisma: PrismaClient;
const minute = (n: number) => new Date(Date.UTC(2026, 5, 1, 0, n));

beforeAll(async () => {
  db = await createTestDatabase('readmodelsize');
  prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

function record(clusterId: string, at: Date, analyzed: ReturnType<typeof analyzeDocument>) {
  return recordAt(prisma, clusterId, at, analyzed);
}

describe('read model size', () => {
  it('adds almost nothing for an unchanged snapshot, with savings inputs, roll-ups and documents stored', async () => {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'size', name: 'big', cloud: 'aws' });
    let list = generateFleetSnapshot({
      nodes: 30,
      zones: 3,
      services: 2000,
      endpointsPerService: 6,
      autoShare: 0.4,
      seed: 9,
    });
    list = withServiceAnnotations(list, (_, i) => i % 10 === 0, { [MONTHLY_TRAFFIC_ANNOTATION]: '250' });
    const analyzed = analyzeDocument(JSON.parse(JSON.stringify(list)));
    expect(analyzed.services.every((s) => s.savings !== undefined)).toBe(true);
    expect(analyzed.services.some((s) => s.savings?.previewState === 'populated')).toBe(true);
    await record(cluster.id, minute(0), analyzed);
    await prisma.$executeRawUnsafe('VACUUM ANALYZE');

    const sizes = async () => {
      const bytes = await tableBytes(prisma, [
        'service_intervals',
        'service_fix_contents',
        'cluster_services',
        'analysis_documents',
        'snapshot_summaries',
        'snapshots',
      ]);
      return {
        intervals: bytes.get('service_intervals')!,
        fixes: bytes.get('service_fix_contents')!,
        services: bytes.get('cluster_services')!,
        documents: bytes.get('analysis_documents')!,
        summaries: bytes.get('snapshot_summaries')!,
        snapshots: bytes.get('snapshots')!,
      };
    };
    const before = await sizes();
    const count = 100;
    for (let i = 1; i <= count; i++) {
      expect((await record(cluster.id, minute(i), analyzed))?.intervalsOpened).toBe(0);
    }
    const after = await sizes();
    expect(after.intervals).toBe(before.intervals);
    expect(after.services).toBe(before.services);
    expect(after.documents).toBe(before.documents);
    expect(after.fixes).toBe(before.fixes);
    // Zones, zone statistics, Service CIDRs and blocking nodes: one document each, shared by every snapshot.
    expect(await prisma.analysisDocument.count({ where: { clusterId: cluster.id } })).toBe(4);
    const perSnapshot = Number(after.summaries - before.summaries + (after.snapshots - before.snapshots)) / count;
    expect(perSnapshot).toBeLessThan(2048);

    // Every summary carries the same roll-up: unchanged state, unchanged figures.
    const rollups = await prisma.snapshotSummary.findMany({
      where: { clusterId: cluster.id },
      select: { trafficGb: true, crossZoneGbWithHints: true, missedGb: true, opportunities: true },
    });
    expect(new Set(rollups.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(rollups[0].opportunities).toBeGreaterThan(0);
  }, 120_000);

  it("stores a Service's fixes once per distinct content: a snapshot that changes a few Services adds theirs alone", async () => {
    const { cluster } = await registerCluster(prisma, { organizationSlug: 'size', name: 'changing', cloud: 'aws' });
    const list = generateFleetSnapshot({
      nodes: 30,
      zones: 3,
      services: 400,
      endpointsPerService: 6,
      autoShare: 0.4,
      seed: 4,
    });
    const base = analyzeDocument(JSON.parse(JSON.stringify(list)));
    const withFixes = base.services.filter((s) => s.fixes).length;
    expect(withFixes).toBeGreaterThan(50);
    await record(cluster.id, minute(0), base);
    const contents = () => prisma.serviceFixContent.count({ where: { clusterId: cluster.id } });
    expect(await contents()).toBe(withFixes);
    // Ten Services gain a traffic annotation (their fixes' traffic changes), then lose it again.
    const changedNames = new Set(
      base.services
        .filter((s) => s.fixes)
        .slice(0, 10)
        .map((s) => s.name),
    );
    const annotated = withServiceAnnotations(list, (service) => changedNames.has(service.metadata.name), {
      [MONTHLY_TRAFFIC_ANNOTATION]: '900',
    });
    const changed = analyzeDocument(JSON.parse(JSON.stringify(annotated)));
    expect(
      changed.services.filter(
        (s) => s.fixes && s.fixes.hash !== base.services.find((b) => b.name === s.name)?.fixes?.hash,
      ),
    ).toHaveLength(10);
    expect((await record(cluster.id, minute(1), changed))?.intervalsOpened).toBe(10);
    expect(await contents()).toBe(withFixes + 10);
    // Back to the first state: its contents are stored already, nothing is added.
    expect((await record(cluster.id, minute(2), base))?.intervalsOpened).toBe(10);
    expect(await contents()).toBe(withFixes + 10);
  }, 120_000);
});
