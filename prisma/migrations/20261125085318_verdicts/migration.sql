-- AlterTable
ALTER TABLE "service_intervals" ADD COLUMN     "data_path_reason" TEXT,
ADD COLUMN     "honours_hints" BOOLEAN,
ADD COLUMN     "managed_by" TEXT;

-- AlterTable
ALTER TABLE "snapshot_summaries" ADD COLUMN     "services_with_ignored_hints" INTEGER;
