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
 * These intervals with their zones: the content each one's zones_hash names (service_zone_contents), else,
 * in an interval recorded before those were stored apart, its own. One query, none when none names one.
 */
export async function withIntervalZones<T extends ServiceInterval>(db: Db, intervals: T[]): Promise<T[]> {
  const named = intervals.filter((i) => i.zonesHash !== null);
  if (named.length === 0) return intervals;
  const contents = await db.serviceZoneContent.findMany({
    where: { OR: named.map((i) => ({ clusterId: i.clusterId, hash: i.zonesHash! })) },
  });
  const key = (clusterId: string, hash: Uint8Array) => `${clusterId}/${Buffer.from(hash).toString('hex')}`;
  const zones = new Map(contents.map((c) => [key(c.clusterId, c.hash), c.zones]));
  return intervals.map((i) =>
    i.zonesHash === null ? i : { ...i, zones: zones.get(key(i.clusterId, i.zonesHash)) ?? i.zones },
  );
}

/**
 * The analysed state of one Service at instant `at` (captured-at time), or null when the Service did not
 * exist then (or no snapshot covered that time). One query on service_intervals(service_id, valid_from).
 */
export async function serviceStateAt(db: Db, service: ServiceRef, at: Date): Promise<ServiceInterval | null> {
  const row = await db.serviceInterval.findFirst({
    where: { service, ...coveringInstant(at) },
    orderBy: { validFrom: 'desc' },
  });
  return row && (await withIntervalZones(db, [row]))[0];
}

/**
 * Every state the Service went through that overlaps [from, to), oldest first. The first interval may
 * start before `from` and the last may still be open (validTo null). One query on the same index.
 */
export async function serviceTimeline(db: Db, service: ServiceRef, from: Date, to: Date): Promise<ServiceInterval[]> {
  return withIntervalZones(
    db,
    await db.serviceInterval.findMany({
      where: { service, validFrom: { lt: to }, OR: [{ validTo: null }, { validTo: { gt: from } }] },
      orderBy: { validFrom: 'asc' },
    }),
  );
}

/** The state of every Service of a cluster at instant `at`. */
export async function clusterStateAt(db: Db, clusterId: string, at: Date) {
  return withIntervalZones(
    db,
    await db.serviceInterval.findMany({
      where: { clusterId, ...coveringInstant(at) },
      include: { service: { select: { namespace: true, name: true } } },
      orderBy: { serviceId: 'asc' },
    }),
  );
}

/**
 * A snapshot summary's nodeInfo zones: the document its zones_hash names (analysis_documents), else, in a
 * summary recorded before they were stored as a document, its own.
 */
export async function summaryZones(
  db: Db,
  summary: { clusterId: string; zones: unknown; zonesHash: Uint8Array<ArrayBuffer> | null },
): Promise<unknown> {
  if (summary.zonesHash === null) return summary.zones;
  const document = await db.analysisDocument.findUnique({
    where: { clusterId_hash: { clusterId: summary.clusterId, hash: summary.zonesHash } },
  });
  return document?.body ?? summary.zones;
}
