import type { ReadDb } from '../read-db.js';
import { EFFECTIVE_TRAFFIC_SQL } from './rollup.js';

/**
 * A cluster's model against its measurement, over the Services of its newest state. Volumes in GB per
 * month; cross-zone GB only over the Services whose source gave zones (`services_with_zones`), so the
 * two sides always cover the same Services:
 *   estimated = the model's volume (API value, else annotation, else default) × its withHints fraction
 *   measured  = the measured volume × the measured cross-zone fraction
 */
export interface MeasuredComparisonRow {
  cluster_id: string;
  services: number;
  services_measured: number;
  services_with_zones: number;
  /** Effective traffic of every current Service, and the part of it that is measured. */
  traffic_gb: number;
  measured_share_gb: number;
  /** Over the measured Services: the model's volume and the measured one. */
  estimated_gb: number;
  measured_gb: number;
  /** Over the Services with measured zones: cross-zone GB by the model and as measured, and the measured volume. */
  estimated_cross_zone_gb: number;
  measured_cross_zone_gb: number;
  zoned_measured_gb: number;
  /** Over the same Services: the model's fraction weighted by the measured volume. */
  model_cross_zone_gb_on_measured: number;
  oldest_measured_at: Date | null;
}

const MODEL_GB = 'COALESCE(s.monthly_traffic_gb, i.traffic_gb)';
const ZONED = 's.measured_cross_zone IS NOT NULL';

/** The comparison of one cluster (zeros when it has no current Service). */
export async function measuredComparison(db: ReadDb, clusterId: string): Promise<MeasuredComparisonRow> {
  const [row] = await measuredComparisons(db, [clusterId]);
  return row;
}

/** The comparison of each cluster, in the order asked, in one statement. */
export async function measuredComparisons(db: ReadDb, clusterIds: readonly string[]): Promise<MeasuredComparisonRow[]> {
  // Planned blind, an empty list still joined every open interval (1.1-1.9 s for an organization's report).
  if (clusterIds.length === 0) return [];
  const rows = await db.query<MeasuredComparisonRow>(
    `SELECT c.id::text AS cluster_id, count(s.id)::int AS services,
            count(*) FILTER (WHERE s.measured_traffic_gb IS NOT NULL)::int AS services_measured,
            count(*) FILTER (WHERE ${ZONED})::int AS services_with_zones,
            COALESCE(sum((${EFFECTIVE_TRAFFIC_SQL})::numeric), 0)::float8 AS traffic_gb,
            COALESCE(sum(s.measured_traffic_gb::numeric)
                     FILTER (WHERE s.monthly_traffic_gb IS NULL), 0)::float8 AS measured_share_gb,
            COALESCE(sum((${MODEL_GB})::numeric) FILTER (WHERE s.measured_traffic_gb IS NOT NULL), 0)::float8
              AS estimated_gb,
            COALESCE(sum(s.measured_traffic_gb::numeric), 0)::float8 AS measured_gb,
            COALESCE(sum((${MODEL_GB} * COALESCE(i.cross_zone_with_hints, 0))::numeric) FILTER (WHERE ${ZONED}), 0)::float8
              AS estimated_cross_zone_gb,
            COALESCE(sum((s.measured_traffic_gb * s.measured_cross_zone)::numeric), 0)::float8 AS measured_cross_zone_gb,
            COALESCE(sum(s.measured_traffic_gb::numeric) FILTER (WHERE ${ZONED}), 0)::float8 AS zoned_measured_gb,
            COALESCE(sum((s.measured_traffic_gb * COALESCE(i.cross_zone_with_hints, 0))::numeric)
                     FILTER (WHERE ${ZONED}), 0)::float8 AS model_cross_zone_gb_on_measured,
            min(s.measured_at) AS oldest_measured_at
       FROM unnest($1::uuid[]) AS c(id)
       LEFT JOIN service_intervals i ON i.cluster_id = c.id AND i.valid_to IS NULL
       LEFT JOIN cluster_services s ON s.id = i.service_id
      GROUP BY c.id`,
    [clusterIds],
  );
  const byCluster = new Map(rows.map((row) => [row.cluster_id, row]));
  return clusterIds.map((id) => byCluster.get(id)!);
}

/** One side: volume (GB per month), cross-zone fraction, cross-zone GB and monthly cost (USD). */
export interface ComparisonFigures<T> {
  trafficGb: T;
  crossZone: T;
  crossZoneGb: T;
  cost: T;
}

export interface MeasuredComparison {
  services: number;
  servicesMeasured: number;
  servicesWithMeasuredZones: number;
  /** Share of the cluster's effective monthly traffic that is measured (null without traffic). */
  measuredShare: number | null;
  oldestMeasurementAt: string | null;
  /** Volumes over the measured Services; fractions, GB and cost over those with measured zones. */
  estimated: ComparisonFigures<number>;
  measured: ComparisonFigures<number | null>;
  /** estimated − measured, field by field. */
  error: ComparisonFigures<number | null>;
  pricePerGb: number;
}

/** The figures of {@link measuredComparison}'s row at the cluster's price, as the API and reports show them. */
export function measuredComparisonFigures(row: MeasuredComparisonRow, pricePerGb: number): MeasuredComparison {
  const zoned = row.services_with_zones > 0 && row.zoned_measured_gb > 0;
  const estimated = {
    trafficGb: row.estimated_gb,
    crossZone: row.zoned_measured_gb > 0 ? row.model_cross_zone_gb_on_measured / row.zoned_measured_gb : 0,
    crossZoneGb: row.estimated_cross_zone_gb,
    cost: row.estimated_cross_zone_gb * pricePerGb,
  };
  const measured = {
    trafficGb: row.services_measured > 0 ? row.measured_gb : null,
    crossZone: zoned ? row.measured_cross_zone_gb / row.zoned_measured_gb : null,
    crossZoneGb: zoned ? row.measured_cross_zone_gb : null,
    cost: zoned ? row.measured_cross_zone_gb * pricePerGb : null,
  };
  return {
    services: row.services,
    servicesMeasured: row.services_measured,
    servicesWithMeasuredZones: row.services_with_zones,
    measuredShare: row.traffic_gb > 0 ? row.measured_share_gb / row.traffic_gb : null,
    oldestMeasurementAt: row.oldest_measured_at?.toISOString() ?? null,
    estimated,
    measured,
    error: {
      trafficGb: minus(estimated.trafficGb, measured.trafficGb),
      crossZone: minus(estimated.crossZone, measured.crossZone),
      crossZoneGb: minus(estimated.crossZoneGb, measured.crossZoneGb),
      cost: minus(estimated.cost, measured.cost),
    },
    pricePerGb,
  };
}

function minus(estimated: number, measured: number | null): number | null {
  return measured === null ? null : estimated - measured;
}
