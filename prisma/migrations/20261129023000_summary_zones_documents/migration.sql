-- A snapshot summary's nodeInfo zones stored once per distinct content, in analysis_documents like its
-- per-zone statistics (zone_stats_hash): the JSON was more than half of every summary row (about 380 of
-- 680 bytes for three zones), written again by every snapshot, unchanged or not, though a cluster's
-- zones change only when its nodes do.
--
-- Summaries recorded before keep their `zones` as they are (no row is rewritten: the table is
-- partitioned by week); a reader takes the document zones_hash names, else the row's own `zones`. New
-- summaries write the hash and leave `zones` null.

-- The summaries' parent first, as the history writer and retention lock it (then its partitions).
LOCK TABLE "snapshot_summaries" IN ACCESS EXCLUSIVE MODE;

-- AlterTable
ALTER TABLE "snapshot_summaries" ADD COLUMN "zones_hash" BYTEA,
ALTER COLUMN "zones" DROP NOT NULL;
