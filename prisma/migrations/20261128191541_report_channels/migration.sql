-- AlterTable
ALTER TABLE "alert_deliveries" ADD COLUMN     "report_id" UUID;

-- AlterTable
ALTER TABLE "report_schedules" ADD COLUMN     "channel_ids" UUID[] DEFAULT ARRAY[]::UUID[];

-- CreateIndex
CREATE UNIQUE INDEX "alert_deliveries_report_id_channel_id_key" ON "alert_deliveries"("report_id", "channel_id");

-- AddForeignKey
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_report_id_fkey" FOREIGN KEY ("report_id") REFERENCES "reports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
