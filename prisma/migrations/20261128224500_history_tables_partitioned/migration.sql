-- The per-snapshot history tables partitioned by time like service_intervals (its migration:
-- 20261128191800_service_intervals_partitioned), so retention drops whole weeks instead of deleting rows.
-- Prisma declares no partitions: the weekly ones (<table>_wYYYYMMDD, Monday 00:00 UTC to the next) are
-- created ahead by the worker's retention job (libs/db history-partitions.ts), and each table's
-- <table>_default partition holds every other row. The existing table becomes that default partition
-- as it is (attached, not copied: a deployment's payloads are hundreds of GB, only their small heap rows
-- are rewritten to fill captured_at; the new keys' indexes are built); its rows stay there and are pruned
-- row by row as they expire, while new rows go to the weeks the retention job creates ahead (it leaves a
-- week the default partition holds many rows of, the current one, to it: see ensurePartitions).
--
-- Table by table (a partitioned table's primary key and unique constraints must hold its partition key,
-- and a foreign key must reference a unique key of the table it names):
-- - snapshot_summaries, by captured_at. Its key becomes (snapshot_id, captured_at), and its foreign key
--   names the snapshot by (id, captured_at) — a new unique constraint on snapshots, 1 row per snapshot,
--   never per Service — so the captured-at the partition is chosen by always equals the snapshot's, and
--   deleting a snapshot deletes its summary from one partition. (cluster_id, captured_at) stays unique
--   (the writer's neighbours and ORDER BY captured_at walk it). No ON CONFLICT names this table.
-- - snapshot_payloads, by captured_at: a new column (the snapshot's, carried over here), so payload
--   retention goes by captured time, like history; keyed and referencing snapshots the same way.
-- - service_savings_days, by day. Its key (cluster_id, span_days, day, service_id) already holds day,
--   which is also the savings writer's ON CONFLICT target; a week row (span 7) and its tails start
--   within their ISO week, so a week's rows and its days share a partition.
-- - snapshots stays one table: ingest de-duplicates on (cluster_id, content_hash), which must be unique
--   across all time (the same body pushed twice a month apart is one snapshot) and cannot hold
--   captured_at; its id is the queue's job id, claimed and updated by id alone; the sweeper walks
--   (status, status_changed_at) across all time. It holds one small row per snapshot (its payload and
--   summary are the large ones), and retention deletes those rows as before: the cascade to the
--   payload and summary names their partition key, so it probes one partition.

ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_id_captured_at_key" UNIQUE ("id", "captured_at");

-- snapshot_summaries
ALTER TABLE "snapshot_summaries" RENAME TO "snapshot_summaries_default";
ALTER TABLE "snapshot_summaries_default" DROP CONSTRAINT "snapshot_summaries_snapshot_id_fkey";
ALTER TABLE "snapshot_summaries_default" DROP CONSTRAINT "snapshot_summaries_pkey";
ALTER INDEX "snapshot_summaries_cluster_id_captured_at_key" RENAME TO "snapshot_summaries_default_cluster_id_captured_at_key";
CREATE TABLE "snapshot_summaries" (LIKE "snapshot_summaries_default" INCLUDING DEFAULTS) PARTITION BY RANGE ("captured_at");
ALTER TABLE "snapshot_summaries" ADD CONSTRAINT "snapshot_summaries_pkey" PRIMARY KEY ("snapshot_id", "captured_at");
CREATE UNIQUE INDEX "snapshot_summaries_cluster_id_captured_at_key" ON "snapshot_summaries"("cluster_id", "captured_at");
ALTER TABLE "snapshot_summaries" ATTACH PARTITION "snapshot_summaries_default" DEFAULT;
ALTER TABLE "snapshot_summaries" ADD CONSTRAINT "snapshot_summaries_snapshot_id_captured_at_fkey" FOREIGN KEY ("snapshot_id", "captured_at") REFERENCES "snapshots"("id", "captured_at") ON DELETE CASCADE ON UPDATE CASCADE;

-- snapshot_payloads
ALTER TABLE "snapshot_payloads" ADD COLUMN "captured_at" TIMESTAMPTZ(3);
UPDATE "snapshot_payloads" p SET "captured_at" = s."captured_at" FROM "snapshots" s WHERE s."id" = p."snapshot_id";
ALTER TABLE "snapshot_payloads" ALTER COLUMN "captured_at" SET NOT NULL;
ALTER TABLE "snapshot_payloads" RENAME TO "snapshot_payloads_default";
ALTER TABLE "snapshot_payloads_default" DROP CONSTRAINT "snapshot_payloads_snapshot_id_fkey";
ALTER TABLE "snapshot_payloads_default" DROP CONSTRAINT "snapshot_payloads_pkey";
CREATE TABLE "snapshot_payloads" (LIKE "snapshot_payloads_default" INCLUDING DEFAULTS) PARTITION BY RANGE ("captured_at");
ALTER TABLE "snapshot_payloads" ADD CONSTRAINT "snapshot_payloads_pkey" PRIMARY KEY ("snapshot_id", "captured_at");
ALTER TABLE "snapshot_payloads" ATTACH PARTITION "snapshot_payloads_default" DEFAULT;
ALTER TABLE "snapshot_payloads" ADD CONSTRAINT "snapshot_payloads_snapshot_id_captured_at_fkey" FOREIGN KEY ("snapshot_id", "captured_at") REFERENCES "snapshots"("id", "captured_at") ON DELETE CASCADE ON UPDATE CASCADE;

-- service_savings_days
ALTER TABLE "service_savings_days" RENAME TO "service_savings_days_default";
ALTER TABLE "service_savings_days_default" DROP CONSTRAINT "service_savings_days_service_id_fkey";
ALTER TABLE "service_savings_days_default" RENAME CONSTRAINT "service_savings_days_pkey" TO "service_savings_days_default_pkey";
ALTER INDEX "service_savings_days_service_id_day_idx" RENAME TO "service_savings_days_default_service_id_day_idx";
CREATE TABLE "service_savings_days" (LIKE "service_savings_days_default" INCLUDING DEFAULTS) PARTITION BY RANGE ("day");
ALTER TABLE "service_savings_days" ADD CONSTRAINT "service_savings_days_pkey" PRIMARY KEY ("cluster_id", "span_days", "day", "service_id");
CREATE INDEX "service_savings_days_service_id_day_idx" ON "service_savings_days"("service_id", "day");
ALTER TABLE "service_savings_days" ATTACH PARTITION "service_savings_days_default" DEFAULT;
ALTER TABLE "service_savings_days" ADD CONSTRAINT "service_savings_days_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "cluster_services"("id") ON DELETE CASCADE ON UPDATE CASCADE;
