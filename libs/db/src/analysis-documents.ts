import { createHash } from 'node:crypto';
import type { Db } from './db-client.js';
import { Prisma } from './generated/prisma/client.js';

/**
 * JSON documents derived from a snapshot, stored once per distinct content per cluster under the first 16
 * bytes of SHA-256 over their JSON. Store them under the cluster's lock: retention deletes unreferenced
 * documents under the same lock, so a document found stored cannot vanish before the summary referencing
 * it commits.
 */
export interface AnalysisDocument {
  hash: Uint8Array<ArrayBuffer>;
  json: string;
}

/** A document as stored: its JSON and its key. */
export function analysisDocument(body: unknown): AnalysisDocument {
  return analysisDocumentOfJson(JSON.stringify(body));
}

/** The same from the document's JSON text (made where the document was, e.g. in an analysis thread). */
export function analysisDocumentOfJson(json: string): AnalysisDocument {
  return { json, hash: new Uint8Array(createHash('sha256').update(json).digest().subarray(0, 16)) };
}

/** The INSERT storing a document unless the cluster has it already (usable as a data-modifying CTE). */
export function insertAnalysisDocumentSql(clusterId: string, document: AnalysisDocument): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO analysis_documents (cluster_id, hash, body)
    VALUES (${clusterId}::uuid, ${document.hash}::bytea, ${document.json}::jsonb)
    ON CONFLICT (cluster_id, hash) DO NOTHING`;
}

/** Deletes the cluster's documents no snapshot summary references any more (under the cluster's lock). */
export async function pruneAnalysisDocuments(db: Db, clusterId: string): Promise<number> {
  return db.$executeRaw`
    DELETE FROM analysis_documents d
     WHERE d.cluster_id = ${clusterId}::uuid
       AND NOT EXISTS (SELECT 1 FROM snapshot_summaries m
                        WHERE m.cluster_id = d.cluster_id
                          AND (m.zones_hash = d.hash OR m.zone_stats_hash = d.hash
                               OR m.service_cidrs_hash = d.hash OR m.recommendations_hash = d.hash))`;
}
