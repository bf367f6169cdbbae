import type { Db } from './db-client.js';

/**
 * Deletes the cluster's fix contents (service_fix_contents) and zones contents (service_zone_contents)
 * that no interval names any more, after retention deleted intervals: call it under the cluster's lock,
 * as the worker stores contents under it, so a content found stored cannot vanish before the interval
 * naming it commits. Answers the fix contents deleted.
 */
export async function pruneServiceContents(db: Db, clusterId: string): Promise<number> {
  await db.$executeRaw`
    DELETE FROM service_zone_contents c
     WHERE c.cluster_id = ${clusterId}::uuid
       AND NOT EXISTS (SELECT 1 FROM service_intervals i
                        WHERE i.cluster_id = c.cluster_id AND i.zones_hash = c.hash)`;
  return db.$executeRaw`
    DELETE FROM service_fix_contents c
     WHERE c.cluster_id = ${clusterId}::uuid
       AND NOT EXISTS (SELECT 1 FROM service_intervals i
                        WHERE i.cluster_id = c.cluster_id AND i.fixes_hash = c.hash)`;
}
