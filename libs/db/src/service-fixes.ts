import type { AnalysisDocument } from './analysis-documents.js';
import { Prisma } from './generated/prisma/client.js';

/**
 * Storing a recommendations document (`RecommendationsDocument`, keyed by the hash of its whole JSON):
 * its Services go to service_fixes, one row each with the figures the ranking orders by, and the document
 * itself keeps only its node blockers. Data-modifying CTEs for the statement that records a snapshot
 * (`name` must be unique in it): the rows are written only when the document is new, so a document and
 * its rows are stored, and deleted (the rows cascade), together; a document stored already costs nothing.
 */
export function storeRecommendationsCtes(clusterId: string, document: AnalysisDocument, name: string): Prisma.Sql {
  const input = Prisma.raw(`${name}_input`);
  const stored = Prisma.raw(name);
  const rows = Prisma.raw(`${name}_rows`);
  // The cast from a sub-select is not folded at plan time: a document stored already is not parsed at all.
  return Prisma.sql`, ${input} AS (
      SELECT (SELECT ${document.json}::text)::jsonb AS body
       WHERE NOT EXISTS (SELECT 1 FROM analysis_documents WHERE cluster_id = ${clusterId}::uuid AND hash = ${document.hash}::bytea)
    ),
    ${stored} AS (
      INSERT INTO analysis_documents (cluster_id, hash, body)
      SELECT ${clusterId}::uuid, ${document.hash}::bytea, jsonb_build_object('nodeBlockers', body->'nodeBlockers')
        FROM ${input}
      ON CONFLICT (cluster_id, hash) DO NOTHING
      RETURNING cluster_id, hash
    ), ${rows} AS (
      INSERT INTO service_fixes (cluster_id, hash, namespace, name, traffic_gb, traffic_source, fraction, saved_gb, fixes)
      SELECT d.cluster_id, d.hash, e.value->>'namespace', e.value->>'name', (e.value->>'trafficGb')::float8,
             e.value->>'trafficSource', f.fraction, (e.value->>'trafficGb')::float8 * f.fraction, e.value
        FROM ${stored} d, ${input} i
       CROSS JOIN LATERAL jsonb_array_elements(i.body->'services') e
       CROSS JOIN LATERAL (SELECT COALESCE((e.value->'recommendations'->0->'savings'->>'crossZoneFraction')::float8, 0)
                             AS fraction) f
    )`;
}
