-- AlterTable
ALTER TABLE "snapshot_summaries" ADD COLUMN     "recommendations_hash" BYTEA;
