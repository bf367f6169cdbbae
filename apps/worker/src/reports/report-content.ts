import { crossZonePrice } from '@zw/core';
import {
  bestFixPatches,
  bestFixRows,
  clustersWithTrafficSource,
  measuredComparisonFigures,
  measuredComparisons,
  type ReadDb,
  type ReportSchedule,
  reportClusterDocuments,
  reportClusters,
  reportCoverage,
  reportServiceCount,
  reportServiceRows,
  reportStateCounts,
  reportTransitionRows,
  reportTrendRows,
} from '@zw/db';
import {
  type FixRow,
  type MeasuredClusterRow,
  type ReportInput,
  type ReportMeta,
  TOP_FIXES,
  type TrafficSource,
  trendBuckets,
} from '@zw/reports';
import { tooManyServicesProblem } from '@zw/queue';
import { UnrecoverableError } from 'bullmq';

/** The scope holds more Services than one report may cover: no attempt can make it, so none is retried. */
export class ReportTooLargeError extends UnrecoverableError {
  override name = 'ReportTooLargeError';
  constructor(services: number, maxServices: number) {
    super(tooManyServicesProblem(services, maxServices));
  }
}

/**
 * Reads everything a report shows from the stored history over its period: the clusters in scope (as the
 * organization has them when the report is made) with their prices, each Service's integrals, hint-state
 * changes, the trend buckets, and the newest zone and Service CIDR analyses of each cluster. A scope of
 * more than `maxServices` Services is refused (ReportTooLargeError) before any of its history is read.
 */
export async function readReportInput(
  db: ReadDb,
  schedule: Pick<ReportSchedule, 'organizationId' | 'clusterIds'>,
  meta: ReportMeta,
  now: Date,
  maxServices: number,
): Promise<ReportInput> {
  const chosen = schedule.clusterIds.length > 0 ? schedule.clusterIds : null;
  const rows = await reportClusters(db, schedule.organizationId, chosen);
  const clusters = rows.map((row) => ({
    id: row.id,
    name: row.name,
    cloud: row.cloud,
    region: row.region,
    // As the query API prices a cluster: `other` is no provider the price table knows.
    pricing: crossZonePrice({
      cloud: row.cloud === 'other' ? null : row.cloud,
      region: row.region,
      overridePerGb: row.price_override,
      organizationOverridePerGb: row.org_price_override,
    }),
  }));
  const ids = clusters.map((cluster) => cluster.id);
  const inScope = ids.length === 0 ? 0 : await reportServiceCount(db, ids);
  if (inScope > maxServices) throw new ReportTooLargeError(inScope, maxServices);
  const { start: from, end: to } = meta.period;
  const query = { clusters: { ids, prices: clusters.map((cluster) => cluster.pricing.pricePerGb) }, from, to, now };
  const buckets = trendBuckets(meta.period);
  const [services, transitions, trendRows, states, coverage, documents, measured, fixes] = await Promise.all([
    reportServiceRows(db, query),
    reportTransitionRows(db, ids, from, to),
    reportTrendRows(db, query, buckets),
    reportStateCounts(
      db,
      ids,
      buckets.map((bucket) => (bucket.end < now ? bucket.end : now)),
    ),
    reportCoverage(db, ids, from, to),
    reportClusterDocuments(db, ids, to < now ? to : now),
    measuredClusters(db, clusters),
    fixesBefore(db, clusters, to < now ? to : now, inScope),
  ]);
  const known = new Set(ids);
  return {
    meta,
    scope: {
      kind: chosen ? 'clusters' : 'fleet',
      clusters: clusters.map((cluster) => ({
        ...cluster,
        pricing: { pricePerGb: cluster.pricing.pricePerGb, source: cluster.pricing.source, note: cluster.pricing.note },
      })),
      missingClusterIds: (chosen ?? []).filter((id) => !known.has(id)),
    },
    coverage,
    services,
    transitions,
    trend: { buckets, rows: trendRows, states },
    documents,
    measured,
    fixes,
  };
}

/**
 * Every Service's best recommended fix as of the period's end (each cluster's newest analysis before it),
 * ranked as `GET /v1/fleet/recommendations` ranks them, not only the top ones, so the CSV can carry each
 * Service's fix: at most one per Service of the scope (`services`). Only the top fixes carry their patch.
 */
async function fixesBefore(
  db: ReadDb,
  clusters: { id: string; pricing: { pricePerGb: number } }[],
  before: Date,
  services: number,
): Promise<FixRow[]> {
  if (clusters.length === 0 || services === 0) return [];
  const query = {
    clusters: clusters.map((cluster) => ({ id: cluster.id, pricePerGb: cluster.pricing.pricePerGb })),
    before,
    limit: services,
  };
  const rows = (await bestFixRows(db, query)).filter((row) => row.has_fix);
  const top = rows.slice(0, TOP_FIXES);
  const patches = await bestFixPatches(
    db,
    top.map((row) => ({ clusterId: row.cluster_id, hash: row.fixes_hash })),
  );
  return rows.map((row, index) => ({
    clusterId: row.cluster_id,
    namespace: row.namespace,
    name: row.name,
    kind: row.kind,
    summary: row.summary,
    resultingState: row.resulting_state,
    crossZoneAfter: row.cross_zone_after,
    overloadAboveThreshold: row.overload_above_threshold,
    patch: patches[index] ?? null,
    trafficGb: row.traffic_gb,
    trafficSource: row.traffic_source as TrafficSource,
    savedGb: row.saved_gb,
    savedCost: row.saved_cost,
    alternatives: row.alternatives,
  }));
}

/** The model against the measurement of every cluster in scope with measured traffic (newest state). */
async function measuredClusters(
  db: ReadDb,
  clusters: readonly { id: string; pricing: { pricePerGb: number } }[],
): Promise<MeasuredClusterRow[]> {
  const withSource = await clustersWithTrafficSource(
    db,
    clusters.map((cluster) => cluster.id),
  );
  const measured = clusters.filter((cluster) => withSource.has(cluster.id));
  const rows = await measuredComparisons(
    db,
    measured.map((cluster) => cluster.id),
  );
  return measured
    .map((cluster, index) => ({ cluster, figures: measuredComparisonFigures(rows[index], cluster.pricing.pricePerGb) }))
    .filter(({ figures }) => figures.servicesMeasured > 0)
    .map(({ cluster, figures }) => ({
      clusterId: cluster.id,
      servicesMeasured: figures.servicesMeasured,
      servicesWithMeasuredZones: figures.servicesWithMeasuredZones,
      measuredShare: figures.measuredShare,
      estimated: figures.estimated,
      measured: figures.measured,
      error: figures.error,
    }));
}
