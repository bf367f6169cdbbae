import { createHash } from 'node:crypto';
import type { Db } from './db-client.js';

/**
 * Stores a JSON document derived from a snapshot once per distinct content per cluster and returns its
 * key (the first 16 bytes of SHA-256 over its JSON). Call it under the cluster's lock: retention deletes
 * unreferenced documents under the same lock, so a document found here cannot vanish before the summary
 * referencing it commits.
 */
export async function storeAnalysisDocument(
  db: Db,
  clusterId: string,
  body: unknown,
): Promise<Uint8Array<ArrayBuffer>> {
  const json = JSON.stringify(body);
  const hash = new Uint8Array(createHash('sha256').update(json).digest().subarray(0, 16));
  await db.$executeRaw`
    INSERT INTO analysis_documents (cluster_id, hash, body)
    VALUES (${clusterId}::uuid, ${hash}::bytea, ${json}::jsonb)
    ON CONFLICT (cluster_id, hash) DO NOTHING`;
  return hash;
}

/** Deletes the cluster's documents no snapshot summary references any more (under the cluster's lock). */
export async function pruneAnalysisDocuments(db: Db, clusterId: string): Promise<number> {
  return db.$executeRaw`
    DELETE FROM analysis_documents d
     WHERE d.cluster_id = ${clusterId}::uuid
       AND NOT EXISTS (SELECT 1 FROM snapshot_summaries m
                        WHERE m.cluster_id = d.cluster_id
                          AND (m.zone_stats_hash = d.hash OR m.service_cidrs_hash = d.hash))`;
}
