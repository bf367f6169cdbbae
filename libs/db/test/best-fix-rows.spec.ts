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
  bestFixPatches,
  bestFixRows,
  closeAndOpenIntervals,
  fixRankingRows,
  inPgTransaction,
  type IntervalState,
  lockCluster,
  recordSummary,
} from '../src/index.js';

/**
 * A report's fixes (bestFixRows): every Service ranked as the recommendations API ranks them
 * (fixRankingRows), with its best fix's fields read in Postgres from the stored fixes instead of the
 * whole document: the same rows, order and fields as the document's first recommendation, for fixes
 * with several recommendations, one, none, an overload above the threshold and texts JSON escapes.
 */

const CAPTURED = new Date(Date.UTC(2026, 10, 20, 10, 0));

function recommendation(name: string, k: number, overloadAboveThreshold: boolean) {
  return {
    kind: k === 0 ? 'enable-topology-mode' : 'add-replicas',
    summary: `Fix ${k} for "${name}": enable \\ scale — ${'é'.repeat(k + 1)}`,
    resultingState: k === 0 ? 'populated' : 'removed',
    crossZone: { withHints: (k + 1) / 7 },
    overloadAboveThreshold,
    patch: `kubectl annotate service ${name} -n shop service.kubernetes.io/topology-mode=Auto\n# "quoted"\ttab`,
    savings: { crossZoneFraction: 0.5 - k / 10 },
  };
}

/** Service `index`: index % 4 recommendations (none for every fourth), the third overloaded. */
function stateOf(index: number): IntervalState {
  const name = `svc-${index}`;
  const count = index % 4;
  const document = {
    namespace: 'shop',
    name,
    routing: 'None',
    hintState: 'none',
    hintReason: null,
    trafficGb: 10 + index,
    trafficSource: 'default-per-endpoint',
    recommendations: Array.from({ length: count }, (_, k) => recommendation(name, k, index === 2)),
  };
  const json = JSON.stringify(document);
  return {
    ...serviceState(name, index + 1, 10 + index),
    routing: 'None',
    hintState: 'none',
    fixes: {
      hash: createHash('sha256').update(json).digest('hex').slice(0, 32),
      json,
      fraction: count === 0 ? 0 : 0.5 - (index % 3) / 10,
    },
  };
}

const SERVICES = 12;
let db: RepositoryDatabase;
let clusterId: string;

beforeAll(async () => {
  db = await repositoryDatabase('repo_best_fix_rows');
  ({ clusterId } = await addCluster(db.prisma, { organizationSlug: 'best-fixes', name: 'c' }));
  const snapshotId = await addSnapshot(db.prisma, clusterId, { capturedAt: CAPTURED, status: 'processing' });
  const states = Array.from({ length: SERVICES }, (_, index) => stateOf(index));
  await inPgTransaction(db.pool, { timeoutMs: 60_000, maxWaitMs: 10_000 }, async (tx) => {
    await lockCluster(tx, clusterId, 10_000);
    await closeAndOpenIntervals(tx, clusterId, CAPTURED, null, [], states);
    await recordSummary(
      tx,
      { clusterId, snapshotId, capturedAt: CAPTURED, analyzer: 'test', aggregates: SUMMARY_AGGREGATES },
      null,
    );
  });
});

afterAll(async () => {
  await db?.drop();
});

/** The cluster's fixes as the recommendations API ranks them, and as a report reads them. */
async function rankedBothWays() {
  const query = {
    clusters: [{ id: clusterId, pricePerGb: 0.02 }],
    before: new Date(CAPTURED.getTime() + 1),
    limit: 100,
  };
  return [await fixRankingRows(db.readDb, query), await bestFixRows(db.readDb, query)] as const;
}

describe("a report's best fixes", () => {
  it("are the ranked Services' first recommendations, field by field", async () => {
    const [whole, best] = await rankedBothWays();
    expect(best.map((row) => row.name)).toEqual(whole.map((row) => row.name));
    expect(best).toHaveLength(SERVICES);
    for (const [n, row] of best.entries()) {
      const [first, ...others] = whole[n].fixes.recommendations;
      const { fixes: _, ...ranking } = whole[n];
      expect(row).toMatchObject(ranking);
      expect(row.has_fix, row.name).toBe(first !== undefined);
      if (first === undefined) continue;
      expect(row, row.name).toMatchObject({
        kind: first.kind,
        summary: first.summary,
        resulting_state: first.resultingState,
        cross_zone_after: (first.crossZone as { withHints: number }).withHints,
        overload_above_threshold: first.overloadAboveThreshold === true,
        alternatives: others.length,
      });
    }
    expect(best.filter((row) => !row.has_fix)).toHaveLength(SERVICES / 4);
    expect(best.filter((row) => row.overload_above_threshold).map((row) => row.name)).toEqual(['svc-2']);
    expect(new Set(best.map((row) => row.alternatives))).toEqual(new Set([0, 1, 2]));
  });

  it("name their stored fixes, whose best fix's patch is read for the rows asked", async () => {
    const [whole, best] = await rankedBothWays();
    const asked = [...best].reverse().map((row) => ({ clusterId: row.cluster_id, hash: row.fixes_hash }));
    const patches = await bestFixPatches(db.readDb, [...asked, { clusterId, hash: Buffer.alloc(16, 0xff) }]);
    const firstPatches = [...whole].reverse().map((row) => row.fixes.recommendations[0]?.patch ?? null);
    expect(patches).toEqual([...firstPatches, null]);
    expect(patches.filter((patch) => patch !== null)).toHaveLength(SERVICES - SERVICES / 4);
    expect(await bestFixPatches(db.readDb, [])).toEqual([]);
  });
});
