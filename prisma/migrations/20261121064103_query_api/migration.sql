-- CreateEnum
CREATE TYPE "api_key_scope" AS ENUM ('read', 'admin');

-- AlterTable
ALTER TABLE "cluster_services" ADD COLUMN     "monthly_traffic_gb" DOUBLE PRECISION;

-- AlterTable
ALTER TABLE "snapshot_summaries" ADD COLUMN     "service_cidrs_hash" BYTEA,
ADD COLUMN     "zone_stats_hash" BYTEA;

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "scopes" "api_key_scope"[],
    "key_hash" BYTEA NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "analysis_documents" (
    "cluster_id" UUID NOT NULL,
    "hash" BYTEA NOT NULL,
    "body" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "analysis_documents_pkey" PRIMARY KEY ("cluster_id","hash")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_organization_id_idx" ON "api_keys"("organization_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "analysis_documents" ADD CONSTRAINT "analysis_documents_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;
