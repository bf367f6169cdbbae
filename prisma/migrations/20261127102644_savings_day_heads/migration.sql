-- AlterTable
ALTER TABLE "service_savings_days" ADD COLUMN     "head_cross_zone_with_hints" DOUBLE PRECISION,
ADD COLUMN     "head_cross_zone_without_hints" DOUBLE PRECISION,
ADD COLUMN     "head_managed_by" TEXT,
ADD COLUMN     "head_preview_cross_zone" DOUBLE PRECISION,
ADD COLUMN     "head_preview_state" "hint_state",
ADD COLUMN     "head_routing" "routing_mode",
ADD COLUMN     "head_traffic_gb" DOUBLE PRECISION,
ADD COLUMN     "head_traffic_source" TEXT,
ADD COLUMN     "head_valid_from" TIMESTAMPTZ(3),
ADD COLUMN     "head_valid_to" TIMESTAMPTZ(3);

-- Backfill: each day row's head, the closed interval holding at the day's first instant (UTC), exactly as
-- the worker writes it (libs/db/src/read-model/savings-days.ts, refreshSavingsDays). Week rows have none.
UPDATE "service_savings_days" r
   SET "head_valid_from" = i.valid_from, "head_valid_to" = i.valid_to, "head_routing" = i.routing,
       "head_traffic_gb" = i.traffic_gb, "head_traffic_source" = i.traffic_source,
       "head_cross_zone_without_hints" = i.cross_zone_without_hints,
       "head_cross_zone_with_hints" = i.cross_zone_with_hints, "head_preview_state" = i.preview_state,
       "head_preview_cross_zone" = i.preview_cross_zone, "head_managed_by" = i.managed_by
  FROM "service_intervals" i
 WHERE r.span_days = 1 AND i.service_id = r.service_id AND i.valid_to IS NOT NULL
   AND i.valid_from AT TIME ZONE 'UTC' <= r.day::timestamp AND i.valid_to AT TIME ZONE 'UTC' > r.day::timestamp;
