-- AlterTable
ALTER TABLE "snapshot_summaries" ADD COLUMN     "analyzer" TEXT;

-- AlterTable
ALTER TABLE "snapshots" ADD COLUMN     "input_hash" BYTEA;
