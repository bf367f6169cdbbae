-- service_intervals partitioned by range of valid_from (native partitioning), so retention drops whole
-- weeks instead of deleting rows. Prisma declares no partitions: the weekly ones
-- (service_intervals_wYYYYMMDD, from its Monday 00:00 UTC to the next) are created ahead by the worker's
-- retention job (libs/db history-partitions.ts); service_intervals_default holds every other row, so a
-- recorded interval never misses a partition. The existing rows move into it unchanged, ids included.
-- The primary key holds valid_from, as a partitioned table's must; (service_id, valid_from) stays unique.

ALTER TABLE "service_intervals" RENAME TO "service_intervals_unpartitioned";
ALTER TABLE "service_intervals_unpartitioned" RENAME CONSTRAINT "service_intervals_pkey" TO "service_intervals_unpartitioned_pkey";
ALTER TABLE "service_intervals_unpartitioned" RENAME CONSTRAINT "service_intervals_service_id_fkey" TO "service_intervals_unpartitioned_service_id_fkey";
ALTER INDEX "service_intervals_cluster_id_valid_to_idx" RENAME TO "service_intervals_unpartitioned_cluster_id_valid_to_idx";
ALTER INDEX "service_intervals_fix_ranking" RENAME TO "service_intervals_unpartitioned_fix_ranking";
ALTER INDEX "service_intervals_service_id_valid_from_key" RENAME TO "service_intervals_unpartitioned_service_id_valid_from_key";

CREATE TABLE "service_intervals" (LIKE "service_intervals_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("valid_from");
ALTER SEQUENCE "service_intervals_id_seq" OWNED BY "service_intervals"."id";
CREATE TABLE "service_intervals_default" PARTITION OF "service_intervals" DEFAULT;

INSERT INTO "service_intervals" SELECT * FROM "service_intervals_unpartitioned";
DROP TABLE "service_intervals_unpartitioned";

ALTER TABLE "service_intervals" ADD CONSTRAINT "service_intervals_pkey" PRIMARY KEY ("id", "valid_from");
CREATE UNIQUE INDEX "service_intervals_service_id_valid_from_key" ON "service_intervals"("service_id", "valid_from");
CREATE INDEX "service_intervals_cluster_id_valid_to_idx" ON "service_intervals"("cluster_id", "valid_to");
-- The fix ranking's partial index (its migration: 20261127230000_fix_ranking_own_traffic).
CREATE INDEX "service_intervals_fix_ranking" ON "service_intervals" ("cluster_id", ("traffic_gb" * "fix_fraction") DESC)
  WHERE "valid_to" IS NULL AND "fixes_hash" IS NOT NULL;
ALTER TABLE "service_intervals" ADD CONSTRAINT "service_intervals_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "cluster_services"("id") ON DELETE CASCADE ON UPDATE CASCADE;
