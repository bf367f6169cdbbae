-- AlterTable
ALTER TABLE "service_intervals" ADD COLUMN     "preview_cross_zone" DOUBLE PRECISION,
ADD COLUMN     "preview_reason" TEXT,
ADD COLUMN     "preview_state" "hint_state",
ADD COLUMN     "ready_endpoints" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "traffic_annotation" TEXT,
ADD COLUMN     "traffic_gb" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "traffic_source" TEXT;

-- AlterTable
ALTER TABLE "snapshot_summaries" ADD COLUMN     "cross_zone_gb_with_hints" DOUBLE PRECISION,
ADD COLUMN     "cross_zone_gb_without_hints" DOUBLE PRECISION,
ADD COLUMN     "missed_gb" DOUBLE PRECISION,
ADD COLUMN     "opportunities" INTEGER,
ADD COLUMN     "services_estimated_traffic" INTEGER,
ADD COLUMN     "traffic_gb" DOUBLE PRECISION;
