import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  inCents,
  postGraphQL,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { withServiceAnnotations } from '../../../test/support/query-snapshots.js';
import { capturedAt, evolve, fleet } from '../../../test/support/snapshots.js';
import { MONTHLY_TRAFFIC_ANNOTATION, TOPOLOGY_MODE_ANNOTATION } from '@zw/core';
import { clusterPricing } from '../src/cluster-pricing.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * GET /v1/fleet/trends and /v1/clusters/{id}/trends: the stored summaries bucketed over a range. The
 * expected points are computed here from the summary rows themselves.
 */
describe('trends', () => {
  let stack: QueryStack;
  let tenant: Tenant;
  let other: Tenant;
  let eu: { id: string; token: string };
  let us: { id: string; token: string };
  /** Another tenant's cluster whose one Service changes its declared traffic twice, then its hints. */
  let steady: { id: string; token: string };
  const steadyAt: Date[] = [];
  // Whole hours, so buckets are predictable: three hours of history.
  const start = new Date(Math.floor(Date.now() / HOUR) * HOUR - 4 * HOUR);

  beforeAll(async () => {
    stack = await startQueryStack('trends');
    tenant = await createTenant(stack.prisma, 'trends');
    other = await createTenant(stack.prisma, 'trends-other');
    eu = await createCluster(stack.prisma, tenant, 'eu', { cloud: 'aws', region: 'eu-west-1' });
    us = await createCluster(stack.prisma, tenant, 'us', { cloud: 'gcp', crossZonePricePerGb: 0.05 });
    const theirs = await createCluster(stack.prisma, other, 'theirs');
    steady = await createCluster(stack.prisma, other, 'steady', { cloud: 'aws' });
    const a = fleet(20, 4, 3);
    const b = fleet(12, 5, 4);
    const at = (hours: number, minutes = 0) => new Date(start.getTime() + hours * HOUR + minutes * 60_000);
    await waitProcessed(stack.prisma, [
      await pushSnapshot(stack.url, eu.token, capturedAt(a, at(0, 10))),
      await pushSnapshot(stack.url, eu.token, capturedAt(evolve(a, 1), at(0, 40))),
      await pushSnapshot(stack.url, eu.token, capturedAt(evolve(a, 2), at(2, 5))),
      await pushSnapshot(stack.url, us.token, capturedAt(b, at(0, 20))),
      await pushSnapshot(stack.url, us.token, capturedAt(evolve(b, 3), at(1, 30))),
      await pushSnapshot(stack.url, theirs.token, capturedAt(fleet(5, 3, 9), at(0, 30))),
    ]);
    // In `steady`, the first Service keeps its hint state while its declared traffic changes twice (each
    // change closes its interval); the second loses its topology annotation in the newest snapshot.
    const plain = withServiceAnnotations(fleet(6, 4, 12), (_, i) => i < 2, { [TOPOLOGY_MODE_ANNOTATION]: 'Auto' });
    const traffic = (gb: string) =>
      withServiceAnnotations(plain, (_, i) => i === 0, { [MONTHLY_TRAFFIC_ANNOTATION]: gb });
    const steps = [
      plain,
      traffic('100'),
      traffic('200'),
      withServiceAnnotations(traffic('200'), (_, i) => i === 1, { [TOPOLOGY_MODE_ANNOTATION]: null }),
    ];
    for (const [index, list] of steps.entries()) {
      steadyAt.push(at(index, 50));
      await waitProcessed(stack.prisma, [
        await pushSnapshot(stack.url, steady.token, capturedAt(list, steadyAt[index])),
      ]);
    }
  });
  afterAll(() => stack?.stop());

  async function expectedPoints(clusterIds: string[]) {
    const rows = await stack.prisma.snapshotSummary.findMany({
      where: { clusterId: { in: clusterIds }, capturedAt: { gte: start, lt: new Date(start.getTime() + 4 * HOUR) } },
    });
    const clusters = await stack.prisma.cluster.findMany({ where: { id: { in: clusterIds } } });
    const price = new Map(
      clusters.map((c) => [
        c.id,
        clusterPricing({
          cloud: c.cloud,
          region: c.region,
          crossZonePricePerGb: c.crossZonePricePerGb === null ? null : Number(c.crossZonePricePerGb),
          organizationPricePerGb: null,
        }).pricePerGb,
      ]),
    );
    const buckets = new Map<number, Map<string, typeof rows>>();
    for (const row of rows) {
      const key = Math.floor(row.capturedAt.getTime() / HOUR) * HOUR;
      const byCluster = buckets.get(key) ?? new Map();
      byCluster.set(row.clusterId, [...(byCluster.get(row.clusterId) ?? []), row]);
      buckets.set(key, byCluster);
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    return [...buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([key, byCluster]) => {
        let withHints = 0;
        let missed = 0;
        let populated = 0;
        let snapshots = 0;
        for (const [clusterId, summaries] of byCluster) {
          withHints += mean(summaries.map((s) => s.crossZoneGbWithHints ?? 0)) * price.get(clusterId)!;
          missed += mean(summaries.map((s) => s.missedGb ?? 0)) * price.get(clusterId)!;
          populated += mean(summaries.map((s) => s.servicesPopulated));
          snapshots += summaries.length;
        }
        return {
          start: new Date(key).toISOString(),
          clusters: byCluster.size,
          snapshots,
          populated,
          withHints,
          missed,
        };
      });
  }

  it("buckets the organization's summaries by hour, priced per cluster, never another tenant's", async () => {
    const to = new Date(start.getTime() + 4 * HOUR);
    const answer = await apiClient(stack.url, tenant.readKey).get(
      `/v1/fleet/trends?from=${start.toISOString()}&to=${to.toISOString()}&bucket=hour`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.bucket).toBe('hour');
    const expected = await expectedPoints([eu.id, us.id]);
    expect(answer.body.points.map((p: { start: string }) => p.start)).toEqual(expected.map((p) => p.start));
    expect(answer.body.points.map((p: { clusters: number }) => p.clusters)).toEqual([2, 1, 1]);
    type Point = {
      snapshots: number;
      services: { populated: number };
      monthly: { withHints: { cost: number }; ifEnabled: { cost: number } };
    };
    answer.body.points.forEach((point: Point, index: number) => {
      expect(point.snapshots).toBe(expected[index].snapshots);
      expect(point.services.populated).toBeCloseTo(expected[index].populated, 6);
      expect(point.monthly.withHints.cost).toBe(inCents({ cost: expected[index].withHints }).cost);
      expect(point.monthly.ifEnabled.cost).toBe(
        inCents({ cost: expected[index].withHints - expected[index].missed }).cost,
      );
    });
  });

  it("gives one cluster's trend, and 404 for another tenant's cluster", async () => {
    const to = new Date(start.getTime() + 4 * HOUR);
    const client = apiClient(stack.url, tenant.readKey);
    const answer = await client.get(`/v1/clusters/${eu.id}/trends?from=${start.toISOString()}&to=${to.toISOString()}`);
    expect(answer.status).toBe(200);
    expect(answer.body.cluster).toEqual({ id: eu.id, name: 'eu' });
    expect(answer.body.bucket).toBe('hour');
    expect(answer.body.points.map((p: { snapshots: number }) => p.snapshots)).toEqual([2, 1]);
    const foreign = await apiClient(stack.url, other.readKey).get(`/v1/clusters/${eu.id}/trends`);
    expect(foreign.status).toBe(404);
  });

  it('answers the same over GraphQL (fleetTrends, clusterTrends)', async () => {
    const to = new Date(start.getTime() + 4 * HOUR).toISOString();
    const from = start.toISOString();
    const fields = `from to bucket fitted points { start clusters snapshots services { populated removed none } servicesWithDrift
      monthly { trafficGb withoutHints { crossZoneGb cost } withHints { crossZoneGb cost } ifEnabled { crossZoneGb cost }
        realizedSavings { crossZoneGb cost } missedSavings { crossZoneGb cost } } }`;
    const answer = await postGraphQL(stack.url, tenant.readKey, {
      query: `query($from: String, $to: String, $id: ID!) {
        fleetTrends(from: $from, to: $to, bucket: "hour") { ${fields} }
        clusterTrends(id: $id, from: $from, to: $to, bucket: "hour") { ${fields} }
      }`,
      variables: { from, to, id: us.id },
    });
    expect(answer.body.errors).toBeUndefined();
    const client = apiClient(stack.url, tenant.readKey);
    const rest = (await client.get(`/v1/fleet/trends?from=${from}&to=${to}&bucket=hour`)).body;
    expect(answer.body.data.fleetTrends).toEqual(rest);
    const { cluster, ...clusterRest } = (
      await client.get(`/v1/clusters/${us.id}/trends?from=${from}&to=${to}&bucket=hour`)
    ).body;
    expect(cluster.name).toBe('us');
    expect(answer.body.data.clusterTrends).toEqual(clusterRest);
    const foreign = await postGraphQL(stack.url, other.readKey, {
      query: `{ clusterTrends(id: "${us.id}") { bucket } }`,
    });
    expect(foreign.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('aligns day buckets to UTC midnight and week buckets to Monday, whatever hour the range starts at', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    // A range opened at 11:xx, as a page opened then asks for it: the buckets still start at midnight UTC.
    const from = new Date(start.getTime() - 2 * DAY + 11 * HOUR + 17 * 60_000);
    const to = new Date(start.getTime() + 4 * HOUR);
    const daily = (await client.get(`/v1/fleet/trends?from=${from.toISOString()}&to=${to.toISOString()}&bucket=day`))
      .body;
    const midnight = (time: number) => new Date(Math.floor(time / DAY) * DAY).toISOString();
    expect(daily.from).toBe(midnight(from.getTime()));
    const hourly = await expectedPoints([eu.id, us.id]);
    const days = [...new Set(hourly.map((point) => midnight(Date.parse(point.start))))];
    expect(daily.points.map((p: { start: string }) => p.start)).toEqual(days);
    expect(daily.points.reduce((sum: number, p: { snapshots: number }) => sum + p.snapshots, 0)).toBe(
      hourly.reduce((sum, point) => sum + point.snapshots, 0),
    );
    const weekly = (await client.get(`/v1/fleet/trends?from=${from.toISOString()}&to=${to.toISOString()}&bucket=week`))
      .body;
    expect(new Date(weekly.from).getUTCDay()).toBe(1);
    expect(weekly.from).toMatch(/T00:00:00\.000Z$/);
    for (const point of weekly.points) expect(new Date(point.start).getUTCDay()).toBe(1);
  });

  it('fits the default range to the data: from the first snapshot, hourly for a fleet of a few hours', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const fitted = (await client.get('/v1/fleet/trends')).body;
    expect(fitted.fitted).toBe(true);
    expect(fitted.bucket).toBe('hour');
    expect(fitted.from).toBe(start.toISOString()); // the first snapshot's hour
    const asked = (await client.get(`/v1/fleet/trends?from=${start.toISOString()}&to=${fitted.to}`)).body;
    expect(asked.fitted).toBe(false);
    expect(fitted.points).toEqual(asked.points);
    // One cluster's range fits that cluster's data: us began 20 minutes in.
    const cluster = (await client.get(`/v1/clusters/${us.id}/trends`)).body;
    expect(cluster.from).toBe(start.toISOString());
    expect(cluster.points[0].start).toBe(start.toISOString());
  });

  it("dates a Service's hint state from the first snapshot of its run, not from its newest change", async () => {
    const client = apiClient(stack.url, other.readKey);
    const [kept, changed] = (await client.get(`/v1/clusters/${steady.id}/services?limit=2`)).body.services as {
      namespace: string;
      name: string;
    }[];
    const detail = async (service: { namespace: string; name: string }) =>
      (
        await client.get(
          `/v1/clusters/${steady.id}/services/${service.namespace}/${service.name}?from=${new Date(start.getTime() - DAY).toISOString()}`,
        )
      ).body;
    // Three intervals (the traffic changed twice), one hint state: the state dates from the first snapshot.
    const steadyService = await detail(kept);
    const states = steadyService.timeline.entries as { from: string; hints: { state: string } }[];
    expect(states.map((entry) => entry.from)).toEqual(steadyAt.slice(0, 3).map((time) => time.toISOString()));
    expect(new Set(states.map((entry) => entry.hints.state))).toEqual(new Set([steadyService.current.hints.state]));
    expect(steadyService.current.since).toBe(steadyAt[2].toISOString());
    expect(steadyService.current.hintStateSince).toBe(steadyAt[0].toISOString());
    // The annotation went in the newest snapshot: a new hint state, dated from that snapshot.
    const changedService = await detail(changed);
    expect(changedService.current.routing).toBe('None');
    expect(changedService.current.hintStateSince).toBe(steadyAt[3].toISOString());
  });

  it('names a bad range: from after to, too many buckets, an unknown bucket', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const reversed = await client.get(`/v1/fleet/trends?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
    expect(reversed.status).toBe(400);
    expect(reversed.body.detail).toContain('from');
    const many = await client.get(`/v1/fleet/trends?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z&bucket=hour`);
    expect(many.status).toBe(400);
    expect(many.body.detail).toContain('at most 2000');
    const unknown = await client.get('/v1/fleet/trends?bucket=minute');
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('bucket');
  });
});
