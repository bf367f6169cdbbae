import { analyzeSnapshot, type KubernetesList, parseSnapshot } from '@zw/core';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { withoutZoneOnFirstNode } from '../../../test/support/reports.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { ReadDb } from '@zw/db';
import { BusinessFiguresSource } from '../src/ops/business-metrics.js';

/**
 * The business figures on /metrics, on the real stack: two organizations' clusters (fresh, stale, never
 * reported), real snapshots analysed by the real worker, and every figure checked against what the fleet
 * summary answers each organization and what the analysis core computes.
 */

let stack: QueryStack;
let acme: Tenant;
let globex: Tenant;
const now = Date.now();
const populatedThenRemoved: KubernetesList[] = [];

/** `name{labels} value` lines of a Prometheus text exposition, by series. */
function samples(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-z0-9_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) series.set(match[1]!, Number(match[2]));
  }
  return series;
}

async function scrape(): Promise<Map<string, number>> {
  const answer = await apiClient(stack.metricsUrl, null).get<string>('/metrics');
  expect(answer.status).toBe(200);
  return samples(answer.body);
}

beforeAll(async () => {
  // A cache shorter than the test's steps: each scrape below sees the database as it is.
  stack = await startQueryStack('bizmetrics', { BUSINESS_METRICS_TTL_MS: '0' });
  acme = await createTenant(stack.prisma, 'acme');
  globex = await createTenant(stack.prisma, 'globex');

  // acme/prod: fresh; its Auto Services' hints are populated, then a Node loses its zone label and the
  // controller removes them (insufficient node information).
  const prod = await createCluster(stack.prisma, acme, 'prod', { cloud: 'aws', region: 'us-east-1' });
  const before = capturedAt(fleet(12, 24, 7), new Date(now - 120_000));
  const after = capturedAt(withoutZoneOnFirstNode(fleet(12, 24, 7)), new Date(now - 60_000));
  populatedThenRemoved.push(before, after);
  const ids = [await pushSnapshot(stack.url, prod.token, before)];
  await waitProcessed(stack.prisma, ids);
  ids.push(await pushSnapshot(stack.url, prod.token, after));
  // globex/batch: stale (its newest snapshot is two hours old), priced at its own rate.
  const batch = await createCluster(stack.prisma, globex, 'batch', { cloud: 'gcp', crossZonePricePerGb: 0.02 });
  ids.push(await pushSnapshot(stack.url, batch.token, capturedAt(fleet(8, 3, 3), new Date(now - 7_200_000))));
  // globex/lab: registered, never reported.
  await createCluster(stack.prisma, globex, 'lab');
  await waitProcessed(stack.prisma, ids);
  // A snapshot of globex/batch that failed for good an hour ago (older than its newest, so still stale).
  await stack.prisma.snapshot.create({
    data: {
      clusterId: batch.id,
      capturedAt: new Date(now - 10_800_000),
      contentHash: randomBytes(32),
      sizeBytes: 10,
      status: 'failed',
      error: 'test: failed for good',
      statusChangedAt: new Date(now - 3_600_000),
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('business metrics on /metrics', () => {
  it('counts clusters by agent freshness over every organization', async () => {
    const metrics = await scrape();
    expect(metrics.get('zonewise_business_metrics_up')).toBe(1);
    expect(metrics.get('zonewise_clusters{staleness="fresh"}')).toBe(1);
    expect(metrics.get('zonewise_clusters{staleness="stale"}')).toBe(1);
    expect(metrics.get('zonewise_clusters{staleness="never"}')).toBe(1);
    // The fleet summary counts a cluster that never reported as stale too.
    let staleInFleets = 0;
    for (const tenant of [acme, globex]) {
      staleInFleets += (await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body.totals.staleClusters;
    }
    expect(staleInFleets).toBe(2);
  });

  it('sums Services by hint state and the monthly cross-zone figures as the fleet summaries do', async () => {
    const metrics = await scrape();
    const services = { populated: 0, removed: 0, none: 0 };
    const monthly = { with_hints: [0, 0], without_hints: [0, 0], missed_savings: [0, 0] };
    for (const tenant of [acme, globex]) {
      const { totals } = (await apiClient(stack.url, tenant.readKey).get('/v1/fleet')).body;
      for (const state of ['populated', 'removed', 'none'] as const) services[state] += totals.services[state];
      const figures = {
        with_hints: totals.monthly.withHints,
        without_hints: totals.monthly.withoutHints,
        missed_savings: totals.monthly.missedSavings,
      };
      for (const [scenario, figure] of Object.entries(figures)) {
        monthly[scenario as keyof typeof monthly][0] += figure.crossZoneGb;
        monthly[scenario as keyof typeof monthly][1] += figure.cost;
      }
    }
    expect(services.populated + services.removed).toBeGreaterThan(0);
    for (const [state, count] of Object.entries(services)) {
      expect(metrics.get(`zonewise_services{hint_state="${state}"}`)).toBe(count);
    }
    expect(monthly.without_hints[1]).toBeGreaterThan(0);
    for (const [scenario, [gb, usd]] of Object.entries(monthly)) {
      expect(metrics.get(`zonewise_cross_zone_monthly_gigabytes{scenario="${scenario}"}`)).toBeCloseTo(gb!, 6);
      // The API answers each organization's total rounded to the cent.
      expect(
        Math.abs(metrics.get(`zonewise_cross_zone_monthly_cost_usd{scenario="${scenario}"}`)! - usd!),
      ).toBeLessThan(0.011);
    }
  });

  it('counts the Services whose populated hints were removed, as the analysis core sees the two snapshots', async () => {
    const [before, after] = populatedThenRemoved.map((list) => analyzeSnapshot(parseSnapshot(list)));
    const key = (service: { namespace: string; name: string }) => `${service.namespace}/${service.name}`;
    const populatedBefore = new Set(before!.services.filter((service) => service.hints.state === 'populated').map(key));
    const lost = after!.services.filter(
      (service) => service.hints.state === 'removed' && populatedBefore.has(key(service)),
    ).length;
    expect(lost).toBeGreaterThan(0);
    expect((await scrape()).get('zonewise_services_hints_lost')).toBe(lost);
  });

  it('reports the snapshot pipeline: nothing waiting, one failure in the last 24 hours', async () => {
    const metrics = await scrape();
    expect(metrics.get('zonewise_snapshots_pending{status="queued"}')).toBe(0);
    expect(metrics.get('zonewise_snapshots_pending{status="processing"}')).toBe(0);
    expect(metrics.get('zonewise_snapshots_oldest_pending_age_seconds')).toBe(0);
    expect(metrics.get('zonewise_snapshots_failed_24h')).toBe(1);
    expect(metrics.get('zonewise_queue_jobs{queue="snapshots",state="waiting"}')).toBe(0);
  });

  it('reads the figures with three statements per scrape, shared by concurrent scrapes, kept for the TTL', async () => {
    const db = stack.api.get(ReadDb);
    const statements: string[] = [];
    const stop = db.onQuery((query) => statements.push(query.text));
    try {
      await scrape();
      expect(statements).toHaveLength(3);
      statements.length = 0;
      await Promise.all([scrape(), scrape(), scrape()]);
      expect(statements.length).toBeGreaterThanOrEqual(3);
      expect(statements.length).toBeLessThan(9);
      // Kept for the configured time: a second read within it asks the database nothing.
      statements.length = 0;
      const cached = new BusinessFiguresSource(db, 900, 60_000);
      const first = await cached.read();
      expect(await cached.read()).toBe(first);
      expect(statements).toHaveLength(3);
    } finally {
      stop();
    }
  });
});
