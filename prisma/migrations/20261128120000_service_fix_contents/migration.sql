-- A Service's fixes stored once per distinct content, named by the interval holding the Service's state,
-- instead of one row per Service per recommendations document (every snapshot that changed anything
-- rewrote every Service's fixes under a new document hash: about 1 MB per changed 1,000-Service snapshot).

-- CreateTable
CREATE TABLE "service_fix_contents" (
    "cluster_id" UUID NOT NULL,
    "hash" BYTEA NOT NULL,
    "fixes" JSONB NOT NULL,

    CONSTRAINT "service_fix_contents_pkey" PRIMARY KEY ("cluster_id","hash")
);

-- AddForeignKey
ALTER TABLE "service_fix_contents" ADD CONSTRAINT "service_fix_contents_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "service_intervals" ADD COLUMN "fix_fraction" DOUBLE PRECISION,
ADD COLUMN "fixes_hash" BYTEA;

-- Carry the stored fixes over: each interval names the fixes its Service had in the snapshot that opened
-- it (the summary captured at its valid_from), each distinct content stored once per cluster under the
-- first 16 bytes of SHA-256 over its JSON text. Intervals opened before fixes were stored name none.
CREATE TEMPORARY TABLE "carried_fixes" AS
SELECT i."id", f."cluster_id", substring(sha256(convert_to(f."fixes"::text, 'UTF8')) FROM 1 FOR 16) AS "hash",
       f."fixes", f."fraction"
  FROM "service_intervals" i
  JOIN "cluster_services" s ON s."id" = i."service_id"
  JOIN "snapshot_summaries" m ON m."cluster_id" = i."cluster_id" AND m."captured_at" = i."valid_from"
  JOIN "service_fixes" f ON f."cluster_id" = m."cluster_id" AND f."hash" = m."recommendations_hash"
                        AND f."namespace" = s."namespace" AND f."name" = s."name";

INSERT INTO "service_fix_contents" ("cluster_id", "hash", "fixes")
SELECT DISTINCT ON ("cluster_id", "hash") "cluster_id", "hash", "fixes" FROM "carried_fixes"
ON CONFLICT DO NOTHING;

UPDATE "service_intervals" i SET "fixes_hash" = c."hash", "fix_fraction" = c."fraction"
  FROM "carried_fixes" c WHERE c."id" = i."id";

DROP TABLE "carried_fixes";

-- DropTable (its documents keep their node blockers: analysis_documents)
DROP TABLE "service_fixes";

-- The fix ranking of a cluster's newest snapshot: its open intervals naming fixes, largest saving at the
-- snapshot's traffic first. A partial expression index, which Prisma cannot declare (schema.prisma says so).
CREATE INDEX "service_intervals_fix_ranking" ON "service_intervals"("cluster_id", ("traffic_gb" * "fix_fraction") DESC)
  WHERE "valid_to" IS NULL AND "fixes_hash" IS NOT NULL;
