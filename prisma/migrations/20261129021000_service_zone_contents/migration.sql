-- A Service's per-zone allocations stored once per distinct content, named by the interval holding the
-- Service's state (service_intervals.zones_hash), like its fixes (20261128120000_service_fix_contents):
-- the JSON was two thirds of every interval row (about 460 of 650 bytes for three zones), and a cluster
-- has few distinct contents (a Service flipping between two states flips between two of them).
--
-- Intervals recorded before keep their `zones` as they are (no row is rewritten: the table is
-- partitioned by week and may hold a year of history); a reader takes the content the hash names, else
-- the row's own `zones`. New intervals write the hash and leave `zones` null.

-- The intervals' parent first, as the history writer and retention lock it (then its partitions).
LOCK TABLE "service_intervals" IN ACCESS EXCLUSIVE MODE;

-- CreateTable
CREATE TABLE "service_zone_contents" (
    "cluster_id" UUID NOT NULL,
    "hash" BYTEA NOT NULL,
    "zones" JSONB NOT NULL,

    CONSTRAINT "service_zone_contents_pkey" PRIMARY KEY ("cluster_id","hash")
);

-- AddForeignKey
ALTER TABLE "service_zone_contents" ADD CONSTRAINT "service_zone_contents_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "service_intervals" ADD COLUMN "zones_hash" BYTEA,
ALTER COLUMN "zones" DROP NOT NULL;
