-- AlterTable
ALTER TABLE "clusters" ADD COLUMN     "labels" JSONB NOT NULL DEFAULT '{}';
