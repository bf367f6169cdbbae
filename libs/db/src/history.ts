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
