-- CreateTable
CREATE TABLE "service_fixes" (
    "cluster_id" UUID NOT NULL,
    "hash" BYTEA NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "traffic_gb" DOUBLE PRECISION NOT NULL,
    "traffic_source" TEXT NOT NULL,
    "fraction" DOUBLE PRECISION NOT NULL,
    "saved_gb" DOUBLE PRECISION NOT NULL,
    "fixes" JSONB NOT NULL,

    CONSTRAINT "service_fixes_pkey" PRIMARY KEY ("cluster_id","hash","namespace","name")
);

-- CreateIndex
CREATE INDEX "service_fixes_ranking" ON "service_fixes"("cluster_id", "hash", "saved_gb" DESC);

-- AddForeignKey
ALTER TABLE "service_fixes" ADD CONSTRAINT "service_fixes_cluster_id_hash_fkey" FOREIGN KEY ("cluster_id", "hash") REFERENCES "analysis_documents"("cluster_id", "hash") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: every stored recommendations document's Services become rows (the same figures the ranking
-- computed from the document), then the document keeps only its node blockers. A recommendations document
-- is the one object with both "services" (an array) and "nodeBlockers".
INSERT INTO "service_fixes" ("cluster_id", "hash", "namespace", "name", "traffic_gb", "traffic_source", "fraction",
                             "saved_gb", "fixes")
SELECT d."cluster_id", d."hash", e.value->>'namespace', e.value->>'name', (e.value->>'trafficGb')::float8,
       e.value->>'trafficSource', f.fraction, (e.value->>'trafficGb')::float8 * f.fraction, e.value
  FROM "analysis_documents" d
 CROSS JOIN LATERAL jsonb_array_elements(d."body"->'services') e
 CROSS JOIN LATERAL (SELECT COALESCE((e.value->'recommendations'->0->'savings'->>'crossZoneFraction')::float8, 0)
                       AS fraction) f
 WHERE jsonb_typeof(d."body"->'services') = 'array' AND d."body" ? 'nodeBlockers';

UPDATE "analysis_documents" d SET "body" = jsonb_build_object('nodeBlockers', d."body"->'nodeBlockers')
 WHERE jsonb_typeof(d."body"->'services') = 'array' AND d."body" ? 'nodeBlockers';
