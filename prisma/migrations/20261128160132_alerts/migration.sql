-- CreateTable
CREATE TABLE "alert_channels" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "target_sealed" BYTEA NOT NULL,
    "target_hint" TEXT NOT NULL,
    "secret_sealed" BYTEA,
    "signature" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "threshold" DOUBLE PRECISION,
    "cluster_ids" UUID[],
    "channel_ids" UUID[],
    "quiet_start" TEXT,
    "quiet_end" TEXT,
    "time_zone" TEXT NOT NULL DEFAULT 'UTC',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alerts" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "rule_id" UUID,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "cluster_id" UUID,
    "summary" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "opened_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_deliveries" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "channel_id" UUID NOT NULL,
    "alert_id" UUID,
    "event" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "not_before" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "alert_channels_organization_id_name_key" ON "alert_channels"("organization_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "alert_rules_organization_id_name_key" ON "alert_rules"("organization_id", "name");

-- CreateIndex
CREATE INDEX "alerts_organization_id_opened_at_idx" ON "alerts"("organization_id", "opened_at" DESC);

-- CreateIndex
CREATE INDEX "alert_deliveries_organization_id_created_at_idx" ON "alert_deliveries"("organization_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "alert_deliveries_status_created_at_idx" ON "alert_deliveries"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "alert_deliveries_alert_id_channel_id_event_key" ON "alert_deliveries"("alert_id", "channel_id", "event");

-- AddForeignKey
ALTER TABLE "alert_channels" ADD CONSTRAINT "alert_channels_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "alert_channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- De-duplication: at most one open alert per rule (or, for zonewise's own alerts, per kind) and subject.
-- A partial index, which Prisma cannot declare (and leaves alone when it compares the schema).
CREATE UNIQUE INDEX "alerts_open_subject" ON "alerts"("organization_id", (COALESCE("rule_id"::text, "kind")), "subject") WHERE "resolved_at" IS NULL;
