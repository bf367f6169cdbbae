-- AlterTable
ALTER TABLE "alert_deliveries" ADD COLUMN     "alert_ids" UUID[] DEFAULT ARRAY[]::UUID[];
