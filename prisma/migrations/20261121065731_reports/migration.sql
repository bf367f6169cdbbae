-- CreateEnum
CREATE TYPE "report_cadence" AS ENUM ('daily', 'weekly', 'monthly', 'cron');

-- CreateEnum
CREATE TYPE "report_format" AS ENUM ('json', 'csv', 'html');

-- CreateEnum
CREATE TYPE "report_status" AS ENUM ('pending', 'ready', 'failed');

-- CreateEnum
CREATE TYPE "report_trigger" AS ENUM ('schedule', 'manual');

-- CreateEnum
CREATE TYPE "webhook_delivery_status" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "report_schedules" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "cadence" "report_cadence" NOT NULL,
    "cron_expression" TEXT NOT NULL,
    "time_zone" TEXT NOT NULL,
    "cluster_ids" UUID[],
    "formats" "report_format"[],
    "webhook_url" TEXT,
    "webhook_secret" TEXT,
    "webhook_secret_prefix" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "anchor_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "report_schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reports" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "schedule_id" UUID NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "trigger" "report_trigger" NOT NULL,
    "partial" BOOLEAN NOT NULL DEFAULT false,
    "status" "report_status" NOT NULL DEFAULT 'pending',
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "formats" "report_format"[],
    "summary" JSONB,
    "document" JSONB,
    "html" TEXT,
    "csv" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "generated_at" TIMESTAMPTZ(3),

    CONSTRAINT "reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "report_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "status" "webhook_delivery_status" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "log" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "report_schedules_organization_id_created_at_idx" ON "report_schedules"("organization_id", "created_at");

-- CreateIndex
CREATE INDEX "reports_organization_id_period_end_idx" ON "reports"("organization_id", "period_end");

-- CreateIndex
CREATE INDEX "reports_status_created_at_idx" ON "reports"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "reports_schedule_id_period_start_period_end_key" ON "reports"("schedule_id", "period_start", "period_end");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_report_id_key" ON "webhook_deliveries"("report_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_created_at_idx" ON "webhook_deliveries"("status", "created_at");

-- AddForeignKey
ALTER TABLE "report_schedules" ADD CONSTRAINT "report_schedules_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "report_schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_report_id_fkey" FOREIGN KEY ("report_id") REFERENCES "reports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
