-- AlterTable
ALTER TABLE "clusters" ADD COLUMN     "data_plane" TEXT;

-- AlterTable
ALTER TABLE "snapshot_summaries" ADD COLUMN     "data_plane" TEXT,
ADD COLUMN     "data_plane_source" TEXT,
ADD COLUMN     "kubernetes_version" TEXT,
ADD COLUMN     "kubernetes_version_source" TEXT;

-- The Kubernetes version of a cluster now overrides what its agent reports, as MAJOR.MINOR: versions
-- written before in another spelling ("v1.31.4", "1.31.4-eks") keep their MAJOR.MINOR; anything else
-- no longer says a version and is cleared.
UPDATE "clusters"
   SET "kubernetes_version" = CASE
         WHEN "kubernetes_version" ~ '^v?[0-9]+\.[0-9]+'
         THEN (regexp_match("kubernetes_version", '^v?([0-9]+)\.([0-9]+)'))[1]::int::text || '.' ||
              (regexp_match("kubernetes_version", '^v?([0-9]+)\.([0-9]+)'))[2]::int::text
       END
 WHERE "kubernetes_version" IS NOT NULL AND "kubernetes_version" !~ '^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$';
