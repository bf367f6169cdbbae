import { Inject, Injectable } from '@nestjs/common';
import { bucketStart, clusterHead, firstSummaryAt, type ReadDb, type TrendRow, trendRows } from '@zw/db';
import type { z } from 'zod';
import { clusterNotFound } from '../problem.js';
import { validationProblem } from '../problem.js';
import { clusterPricing } from '../cluster-pricing.js';
import { REPLICA_READ_DB } from '../read-db.provider.js';
import { BUCKETS, type ClusterTrendsView, MAX_BUCKETS, type TrendsQuery, type TrendsView } from './trends.schemas.js';
import { DAY_MS } from '@zw/core';

/** Without `from`, the range starts at the first snapshot of the last this many days (else 7 days back). */
export const FIT_DAYS = 90;
const UNFITTED_DAYS = 7;

type Point = TrendsView['points'][number];

/**
 * Fleet and cluster figures over time, from the stored snapshot summaries: one SQL statement per answer
 * (bucketed in Postgres), priced here with each cluster's price as it is today, as every other answer is.
 */
@Injectable()
export class TrendsService {
  /** Trends read history over a range: from the replica when DATABASE_READ_URL names one (REPLICA_READ_DB). */
  constructor(@Inject(REPLICA_READ_DB) private readonly db: ReadDb) {}

  async fleet(organizationId: string, query: z.output<typeof TrendsQuery>, now = new Date()): Promise<TrendsView> {
    const range = await this.rangeOf(organizationId, undefined, query, now);
    const rows = await trendRows(this.db, { organizationId, ...range.sql });
    return { ...range.view, points: pointsOf(rows) };
  }

  async cluster(
    organizationId: string,
    clusterId: string,
    query: z.output<typeof TrendsQuery>,
    now = new Date(),
  ): Promise<ClusterTrendsView> {
    const head = await clusterHead(this.db, organizationId, clusterId);
    if (!head) throw clusterNotFound(clusterId);
    const range = await this.rangeOf(organizationId, clusterId, query, now);
    const rows = await trendRows(this.db, { organizationId, clusterId, ...range.sql });
    return { cluster: { id: head.id, name: head.name }, ...range.view, points: pointsOf(rows) };
  }

  /**
   * The range asked for, or, without `from`, one that fits the data: from the first snapshot of the last
   * FIT_DAYS days (a new fleet's few hours fill the chart instead of a sliver at its right edge). Its
   * start is floored to its UTC-aligned bucket, so the first bucket is a whole one.
   */
  private async rangeOf(
    organizationId: string,
    clusterId: string | undefined,
    query: z.output<typeof TrendsQuery>,
    now: Date,
  ) {
    const to = query.to ? new Date(query.to) : now;
    let asked = query.from ? new Date(query.from) : null;
    if (asked && asked >= to) {
      throw validationProblem([{ location: 'query', field: 'from', message: 'must be before `to`' }]);
    }
    if (!asked) {
      const since = new Date(to.getTime() - FIT_DAYS * DAY_MS);
      asked =
        (await firstSummaryAt(this.db, { organizationId, clusterId, since, to })) ??
        new Date(to.getTime() - UNFITTED_DAYS * DAY_MS);
    }
    return bucketedRange(asked, to, query.bucket, query.from === undefined);
  }
}

function bucketedRange(asked: Date, to: Date, wanted: keyof typeof BUCKETS | undefined, fitted: boolean) {
  const bucket = wanted ?? (to.getTime() - asked.getTime() <= 2 * DAY_MS ? 'hour' : 'day');
  const bucketSeconds = BUCKETS[bucket];
  const from = bucketStart(asked, bucketSeconds);
  const buckets = Math.ceil((to.getTime() - from.getTime()) / 1000 / bucketSeconds);
  if (buckets > MAX_BUCKETS) {
    throw validationProblem([
      {
        location: 'query',
        field: 'bucket',
        message: `${buckets} buckets of a ${bucket} over this range; at most ${MAX_BUCKETS}: choose a wider bucket or a shorter range`,
      },
    ]);
  }
  return {
    sql: { from, to, bucketSeconds },
    view: { from: from.toISOString(), to: to.toISOString(), bucket, fitted },
  };
}

function pointsOf(rows: TrendRow[]): Point[] {
  const points = new Map<number, Point>();
  for (const row of rows) {
    const key = row.bucket.getTime();
    let point = points.get(key);
    if (!point) {
      const zero = () => ({ crossZoneGb: 0, cost: 0 });
      point = {
        start: row.bucket.toISOString(),
        clusters: 0,
        snapshots: 0,
        services: { populated: 0, removed: 0, none: 0 },
        servicesWithDrift: 0,
        monthly: {
          trafficGb: 0,
          withoutHints: zero(),
          withHints: zero(),
          ifEnabled: zero(),
          realizedSavings: zero(),
          missedSavings: zero(),
        },
      };
      points.set(key, point);
    }
    add(point, row);
  }
  return [...points.values()];
}

function add(point: Point, row: TrendRow): void {
  const price = clusterPricing({
    cloud: row.cloud as 'aws' | 'gcp' | 'azure' | 'other',
    region: row.region,
    crossZonePricePerGb: row.price_override,
    organizationPricePerGb: row.org_price_override,
  }).pricePerGb;
  const without = row.cross_zone_gb_without_hints ?? 0;
  const withHints = row.cross_zone_gb_with_hints ?? 0;
  const missed = row.missed_gb ?? 0;
  const figures = {
    withoutHints: without,
    withHints,
    ifEnabled: withHints - missed,
    realizedSavings: without - withHints,
    missedSavings: missed,
  };
  point.clusters += 1;
  point.snapshots += row.snapshots;
  point.services.populated += row.services_populated;
  point.services.removed += row.services_removed;
  point.services.none += row.services_none;
  point.servicesWithDrift += row.services_with_drift;
  point.monthly.trafficGb += row.traffic_gb ?? 0;
  for (const [name, gb] of Object.entries(figures) as [keyof typeof figures, number][]) {
    point.monthly[name].crossZoneGb += gb;
    point.monthly[name].cost += gb * price;
  }
}
