-- AlterTable
ALTER TABLE "cluster_services" ADD COLUMN     "measured_at" TIMESTAMPTZ(3),
ADD COLUMN     "measured_cross_zone" DOUBLE PRECISION,
ADD COLUMN     "measured_traffic_gb" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "traffic_sources" (
    "cluster_id" UUID NOT NULL,
    "preset" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "auth_header" BYTEA,
    "window_seconds" INTEGER NOT NULL,
    "interval_seconds" INTEGER NOT NULL,
    "query_template" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "last_error" TEXT,
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_success_at" TIMESTAMPTZ(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "last_query" TEXT,
    "series_count" INTEGER,
    "services_measured" INTEGER,
    "unmatched_series" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "traffic_sources_pkey" PRIMARY KEY ("cluster_id")
);

-- AddForeignKey
ALTER TABLE "traffic_sources" ADD CONSTRAINT "traffic_sources_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;
