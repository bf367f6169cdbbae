import type { Db } from './db-client.js';
import type { ServiceInterval } from './generated/prisma/client.js';

/** A Service as users name it: cluster, namespace, name. */
export interface ServiceRef {
  clusterId: string;
  namespace: string;
  name: string;
}

/** Intervals that cover instant `at`: started at or before it, not ended by it. */
function coveringInstant(at: Date) {
  return { validFrom: { lte: at }, OR: [{ validTo: null }, { validTo: { gt: at } }] };
}

/**
 * The analysed state of one Service at instant `at` (captured-at time), or null when the Service did not
 * exist then (or no snapshot covered that time). One query on service_intervals(service_id, valid_from).
 */
export async function serviceStateAt(db: Db, service: ServiceRef, at: Date): Promise<ServiceInterval | null> {
  return db.serviceInterval.findFirst({
    where: { service, ...coveringInstant(at) },
    orderBy: { validFrom: 'desc' },
  });
}

/**
 * Every state the Service went through that overlaps [from, to), oldest first. The first interval may
 * start before `from` and the last may still be open (validTo null). One query on the same index.
 */
export async function serviceTimeline(db: Db, service: ServiceRef, from: Date, to: Date): Promise<ServiceInterval[]> {
  return db.serviceInterval.findMany({
    where: { service, validFrom: { lt: to }, OR: [{ validTo: null }, { validTo: { gt: from } }] },
    orderBy: { validFrom: 'asc' },
  });
}

/** The state of every Service of a cluster at instant `at`. */
export async function clusterStateAt(db: Db, clusterId: string, at: Date) {
  return db.serviceInterval.findMany({
    where: { clusterId, ...coveringInstant(at) },
    include: { service: { select: { namespace: true, name: true } } },
    orderBy: { serviceId: 'asc' },
  });
}

/**
 * The ready endpoint counts each Service of the cluster was seen at over [from, to), for the Services
 * with the CPU heuristic whose hint state changed in that window and whose count moved: the input of the
 * core's stability fix. Keyed by `namespace/name`, counts ascending. One statement on the
 * (cluster_id, valid_to) index.
 */
export async function flappingEndpointCounts(
  db: Db,
  clusterId: string,
  from: Date,
  to: Date,
): Promise<Record<string, number[]>> {
  const rows = await db.$queryRaw<{ namespace: string; name: string; counts: number[] }[]>`
    SELECT s.namespace, s.name, array_agg(DISTINCT i.ready_endpoints ORDER BY i.ready_endpoints) AS counts
      FROM service_intervals i
      JOIN cluster_services s ON s.id = i.service_id
     WHERE i.cluster_id = ${clusterId}::uuid AND i.valid_from < ${to}::timestamptz
       AND (i.valid_to IS NULL OR i.valid_to > ${from}::timestamptz) AND i.routing = 'Auto'
     GROUP BY s.namespace, s.name
    HAVING count(DISTINCT i.hint_state) > 1 AND count(DISTINCT i.ready_endpoints) > 1`;
  return Object.fromEntries(rows.map((row) => [`${row.namespace}/${row.name}`, row.counts.map(Number)]));
}
