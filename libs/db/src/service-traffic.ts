import type { Db } from './db-client.js';

/** A Service's monthly traffic as set through the API (null: none set), with the row's id. */
export interface ServiceTraffic {
  id: bigint;
  monthlyTrafficGb: number | null;
}

/** The cluster's Service `namespace/name` and the monthly traffic set on it, or null when it has no such Service. */
export async function serviceTrafficOf(
  db: Db,
  clusterId: string,
  namespace: string,
  name: string,
): Promise<ServiceTraffic | null> {
  return db.clusterService.findFirst({
    where: { clusterId, namespace, name },
    select: { id: true, monthlyTrafficGb: true },
  });
}

/** Sets (or, with null, removes) a Service's monthly traffic; the caller refreshes the cluster's roll-up. */
export async function setServiceTraffic(db: Db, serviceId: bigint, gb: number | null): Promise<void> {
  await db.clusterService.update({ where: { id: serviceId }, data: { monthlyTrafficGb: gb } });
}
