import type { Db } from '../db-client.js';

/**
 * Effective monthly traffic of a Service interval `i` of Service `s`: the value set through the API,
 * else what the snapshot gave (annotation, else the per-endpoint default), as core's monthlyTrafficGb
 * orders them.
 */
export const EFFECTIVE_TRAFFIC_SQL = 'COALESCE(s.monthly_traffic_gb, i.traffic_gb)';

/**
 * A Service is an opportunity when it has no topology routing and enabling `topology-mode: Auto` would
 * populate its hints (core's rankOpportunities); what it would save is its traffic times the drop of its
 * cross-zone fraction from today's (`withHints`) to the preview's.
 */
export const OPPORTUNITY_SQL = "i.routing = 'None' AND i.preview_state = 'populated'";
export const MISSED_FRACTION_SQL = '(COALESCE(i.cross_zone_with_hints, 0) - i.preview_cross_zone)';

/**
 * Decision: the sums run in numeric, exact whatever order Postgres scans the rows in, so a snapshot's
 * figures are the same bit for bit whether the snapshots of a cluster were recorded in order or not.
 *
 * Recomputes the monthly roll-up of the summary of the snapshot captured at `capturedAt`: sums over the
 * Services' intervals covering that instant, with today's API traffic values.
 */
export async function refreshSummaryRollup(db: Db, clusterId: string, capturedAt: Date): Promise<void> {
  await db.$executeRawUnsafe(
    `UPDATE snapshot_summaries m
        SET traffic_gb = r.traffic_gb, cross_zone_gb_without_hints = r.without_gb,
            cross_zone_gb_with_hints = r.with_gb, missed_gb = r.missed_gb, opportunities = r.opportunities,
            services_estimated_traffic = r.estimated
       FROM (SELECT COALESCE(sum(t.gb::numeric), 0)::float8 AS traffic_gb,
                    COALESCE(sum((t.gb * COALESCE(i.cross_zone_without_hints, 0))::numeric), 0)::float8 AS without_gb,
                    COALESCE(sum((t.gb * COALESCE(i.cross_zone_with_hints, 0))::numeric), 0)::float8 AS with_gb,
                    COALESCE(sum((t.gb * ${MISSED_FRACTION_SQL})::numeric) FILTER (WHERE ${OPPORTUNITY_SQL}), 0)::float8
                      AS missed_gb,
                    count(*) FILTER (WHERE ${OPPORTUNITY_SQL})::int AS opportunities,
                    count(*) FILTER (WHERE s.monthly_traffic_gb IS NULL
                                       AND i.traffic_source = 'default-per-endpoint')::int AS estimated
               FROM service_intervals i
               JOIN cluster_services s ON s.id = i.service_id
              CROSS JOIN LATERAL (SELECT ${EFFECTIVE_TRAFFIC_SQL} AS gb) t
              WHERE i.cluster_id = $1::uuid AND i.valid_from <= $2::timestamptz
                AND (i.valid_to IS NULL OR i.valid_to > $2::timestamptz)) r
      WHERE m.cluster_id = $1::uuid AND m.captured_at = $2::timestamptz`,
    clusterId,
    capturedAt,
  );
}

/** Recomputes the roll-up of the cluster's newest summary (after an API traffic value changed). */
export async function refreshLatestRollup(db: Db, clusterId: string): Promise<void> {
  const [latest] = await db.$queryRaw<{ captured_at: Date }[]>`
    SELECT captured_at FROM snapshot_summaries WHERE cluster_id = ${clusterId}::uuid
     ORDER BY captured_at DESC LIMIT 1`;
  if (latest) await refreshSummaryRollup(db, clusterId, latest.captured_at);
}
