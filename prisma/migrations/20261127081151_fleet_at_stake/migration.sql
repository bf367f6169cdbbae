-- AlterTable
ALTER TABLE "snapshot_summaries" ADD COLUMN     "at_stake_gb" DOUBLE PRECISION,
ADD COLUMN     "at_stake_traffic_gb" DOUBLE PRECISION,
ADD COLUMN     "services_at_stake" INTEGER,
ADD COLUMN     "services_at_stake_estimated" INTEGER;

-- Backfill the newest summary of each cluster (the one GET /v1/fleet reads) from its Services' states at
-- that instant, with the formulas of libs/db/src/read-model/rollup.ts (REFUSED_HINTS_SQL,
-- EFFECTIVE_TRAFFIC_SQL, AT_STAKE_FRACTION_SQL, ESTIMATED_TRAFFIC_SQL). Older summaries stay null: nothing
-- reads these columns from them.
UPDATE "snapshot_summaries" m
   SET "services_at_stake" = r.services_at_stake,
       "at_stake_traffic_gb" = r.at_stake_traffic_gb,
       "at_stake_gb" = r.at_stake_gb,
       "services_at_stake_estimated" = r.services_at_stake_estimated
  FROM (SELECT DISTINCT ON (cluster_id) cluster_id, captured_at
          FROM "snapshot_summaries" ORDER BY cluster_id, captured_at DESC) newest
 CROSS JOIN LATERAL (
   SELECT count(*)::int AS services_at_stake,
          COALESCE(sum(t.gb::numeric), 0)::float8 AS at_stake_traffic_gb,
          COALESCE(sum((t.gb * COALESCE(i.cross_zone_with_hints, 0))::numeric), 0)::float8 AS at_stake_gb,
          (count(*) FILTER (WHERE t.source = 'default-per-endpoint'))::int AS services_at_stake_estimated
     FROM "service_intervals" i
     JOIN "cluster_services" s ON s.id = i.service_id
    CROSS JOIN LATERAL (
      SELECT COALESCE(s.monthly_traffic_gb, s.measured_traffic_gb, i.traffic_gb) AS gb,
             CASE WHEN s.monthly_traffic_gb IS NOT NULL THEN 'api'
                  WHEN s.measured_traffic_gb IS NOT NULL THEN 'measured'
                  ELSE i.traffic_source END AS source) t
    WHERE i.cluster_id = newest.cluster_id AND i.valid_from <= newest.captured_at
      AND (i.valid_to IS NULL OR i.valid_to > newest.captured_at)
      AND i.routing <> 'None' AND i.hint_state = 'removed' AND COALESCE(i.honours_hints, true)) r
 WHERE m.cluster_id = newest.cluster_id AND m.captured_at = newest.captured_at;
