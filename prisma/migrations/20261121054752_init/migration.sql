-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "cloud" AS ENUM ('aws', 'gcp', 'azure', 'other');

-- CreateEnum
CREATE TYPE "snapshot_status" AS ENUM ('queued', 'processing', 'processed', 'failed');

-- CreateEnum
CREATE TYPE "routing_mode" AS ENUM ('Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'None');

-- CreateEnum
CREATE TYPE "hint_state" AS ENUM ('populated', 'removed', 'none');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "payload_retention_days" INTEGER,
    "history_retention_days" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "clusters" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "cloud" "cloud" NOT NULL DEFAULT 'other',
    "region" TEXT,
    "kubernetes_version" TEXT,
    "cross_zone_price_per_gb" DECIMAL(12,6),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "clusters_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_tokens" (
    "id" UUID NOT NULL,
    "cluster_id" UUID NOT NULL,
    "token_hash" BYTEA NOT NULL,
    "token_prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotated_at" TIMESTAMPTZ(3),

    CONSTRAINT "agent_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "snapshots" (
    "id" UUID NOT NULL,
    "cluster_id" UUID NOT NULL,
    "captured_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "content_hash" BYTEA NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "status" "snapshot_status" NOT NULL DEFAULT 'queued',
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "status_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "snapshots_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "snapshot_payloads" (
    "snapshot_id" UUID NOT NULL,
    "gzip" BYTEA NOT NULL,

    CONSTRAINT "snapshot_payloads_pkey" PRIMARY KEY ("snapshot_id")
);

-- CreateTable
CREATE TABLE "snapshot_summaries" (
    "snapshot_id" UUID NOT NULL,
    "cluster_id" UUID NOT NULL,
    "captured_at" TIMESTAMPTZ(3) NOT NULL,
    "services" INTEGER NOT NULL,
    "services_populated" INTEGER NOT NULL,
    "services_removed" INTEGER NOT NULL,
    "services_none" INTEGER NOT NULL,
    "node_info_sufficient" BOOLEAN NOT NULL,
    "node_info_reason" TEXT,
    "zones" JSONB NOT NULL,
    "services_with_drift" INTEGER NOT NULL,
    "cross_zone_without_hints" DOUBLE PRECISION NOT NULL,
    "cross_zone_with_hints" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "snapshot_summaries_pkey" PRIMARY KEY ("snapshot_id")
);

-- CreateTable
CREATE TABLE "cluster_services" (
    "id" BIGSERIAL NOT NULL,
    "cluster_id" UUID NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "cluster_services_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "service_intervals" (
    "id" BIGSERIAL NOT NULL,
    "cluster_id" UUID NOT NULL,
    "service_id" BIGINT NOT NULL,
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "valid_to" TIMESTAMPTZ(3),
    "state_hash" BIGINT NOT NULL,
    "routing" "routing_mode" NOT NULL,
    "hint_state" "hint_state" NOT NULL,
    "hint_reason" TEXT,
    "zones" JSONB NOT NULL,
    "cross_zone_without_hints" DOUBLE PRECISION,
    "cross_zone_with_hints" DOUBLE PRECISION,

    CONSTRAINT "service_intervals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "clusters_organization_id_name_key" ON "clusters"("organization_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "agent_tokens_cluster_id_key" ON "agent_tokens"("cluster_id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_tokens_token_hash_key" ON "agent_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "snapshots_status_status_changed_at_idx" ON "snapshots"("status", "status_changed_at");

-- CreateIndex
CREATE INDEX "snapshots_received_at_idx" ON "snapshots"("received_at");

-- CreateIndex
CREATE UNIQUE INDEX "snapshots_cluster_id_content_hash_key" ON "snapshots"("cluster_id", "content_hash");

-- CreateIndex
CREATE UNIQUE INDEX "snapshots_cluster_id_captured_at_key" ON "snapshots"("cluster_id", "captured_at");

-- CreateIndex
CREATE UNIQUE INDEX "snapshot_summaries_cluster_id_captured_at_key" ON "snapshot_summaries"("cluster_id", "captured_at");

-- CreateIndex
CREATE UNIQUE INDEX "cluster_services_cluster_id_namespace_name_key" ON "cluster_services"("cluster_id", "namespace", "name");

-- CreateIndex
CREATE INDEX "service_intervals_cluster_id_valid_to_idx" ON "service_intervals"("cluster_id", "valid_to");

-- CreateIndex
CREATE UNIQUE INDEX "service_intervals_service_id_valid_from_key" ON "service_intervals"("service_id", "valid_from");

-- AddForeignKey
ALTER TABLE "clusters" ADD CONSTRAINT "clusters_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_tokens" ADD CONSTRAINT "agent_tokens_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snapshot_payloads" ADD CONSTRAINT "snapshot_payloads_snapshot_id_fkey" FOREIGN KEY ("snapshot_id") REFERENCES "snapshots"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snapshot_summaries" ADD CONSTRAINT "snapshot_summaries_snapshot_id_fkey" FOREIGN KEY ("snapshot_id") REFERENCES "snapshots"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cluster_services" ADD CONSTRAINT "cluster_services_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "service_intervals" ADD CONSTRAINT "service_intervals_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "cluster_services"("id") ON DELETE CASCADE ON UPDATE CASCADE;
