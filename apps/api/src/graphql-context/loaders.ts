import {
  listServiceStatesBatch,
  measuredComparisons,
  type MeasuredComparisonRow,
  type ReadDb,
  savingsRows,
  type ServiceFilters,
  serviceIntervalsBatch,
  type ServiceSort,
  type ServiceStateRow,
  summaryDocuments,
  type SummaryDocumentsRow,
} from '@zw/db';
import DataLoader from 'dataloader';

export interface ServicesPageKey {
  clusterId: string;
  at: Date;
  filters: ServiceFilters;
  sort: ServiceSort;
  descending: boolean;
  after: { key: number | null; namespace: string; name: string } | null;
  limit: number;
}

export interface TimelineKey {
  serviceId: string;
  from: Date;
  to: Date;
  limit: number;
}

export interface ClusterSavingsKey {
  clusterId: string;
  pricePerGb: number;
  from: Date;
  to: Date;
  now: Date;
}

/** Keys with equal `shared` parts are answered by one statement. */
function groupBy<K, S>(keys: readonly K[], shared: (key: K) => S): Map<string, { shared: S; indexes: number[] }> {
  const groups = new Map<string, { shared: S; indexes: number[] }>();
  keys.forEach((key, index) => {
    const value = shared(key);
    const id = JSON.stringify(value);
    const group = groups.get(id) ?? { shared: value, indexes: [] };
    group.indexes.push(index);
    groups.set(id, group);
  });
  return groups;
}

/**
 * The DataLoaders of one GraphQL request. Each field that would cost one query per row (a cluster's
 * Services, a Service's timeline, a cluster's zones, CIDRs or savings) asks its loader instead; the
 * loader answers every row of the page with one statement (one per distinct set of arguments), so a fleet
 * page costs a handful of queries whatever its number of clusters and Services.
 */
export class GraphQLLoaders {
  readonly servicesPage = new DataLoader<ServicesPageKey, ServiceStateRow[], string>(
    async (keys) => {
      const results: ServiceStateRow[][] = keys.map(() => []);
      const groups = groupBy(keys, ({ clusterId: _c, at: _a, ...shared }) => shared);
      await Promise.all(
        [...groups.values()].map(async ({ shared, indexes }) => {
          const rows = await listServiceStatesBatch(this.db, {
            ...shared,
            clusters: indexes.map((index) => ({ id: keys[index].clusterId, at: keys[index].at })),
          });
          const byCluster = new Map<string, ServiceStateRow[]>();
          for (const row of rows) byCluster.set(row.cluster_id, [...(byCluster.get(row.cluster_id) ?? []), row]);
          for (const index of indexes) results[index] = byCluster.get(keys[index].clusterId) ?? [];
        }),
      );
      return results;
    },
    { cacheKeyFn: (key) => JSON.stringify(key) },
  );

  readonly timeline = new DataLoader<TimelineKey, ServiceStateRow[], string>(
    async (keys) => {
      const results: ServiceStateRow[][] = keys.map(() => []);
      const groups = groupBy(keys, ({ from, to, limit }) => ({ from, to, limit }));
      await Promise.all(
        [...groups.values()].map(async ({ shared, indexes }) => {
          const ids = indexes.map((index) => keys[index].serviceId);
          const rows = await serviceIntervalsBatch(this.db, ids, shared.from, shared.to, shared.limit);
          const byService = new Map<string, ServiceStateRow[]>();
          for (const row of rows) byService.set(row.service_id, [...(byService.get(row.service_id) ?? []), row]);
          for (const index of indexes) results[index] = byService.get(keys[index].serviceId) ?? [];
        }),
      );
      return results;
    },
    { cacheKeyFn: (key) => JSON.stringify(key) },
  );

  /** Zone statistics and Service CIDRs of the newest snapshot: one document query for both fields. */
  readonly documents = new DataLoader<string, SummaryDocumentsRow | null>(async (clusterIds) => {
    const rows = await summaryDocuments(this.db, clusterIds, null);
    const byCluster = new Map(rows.map((row) => [row.cluster_id, row]));
    return clusterIds.map((id) => byCluster.get(id) ?? null);
  });

  readonly savings = new DataLoader<ClusterSavingsKey, Awaited<ReturnType<typeof savingsRows>>[number] | null, string>(
    async (keys) => {
      const results: (Awaited<ReturnType<typeof savingsRows>>[number] | null)[] = keys.map(() => null);
      const groups = groupBy(keys, ({ from, to, now }) => ({ from, to, now }));
      await Promise.all(
        [...groups.values()].map(async ({ shared, indexes }) => {
          const rows = await this.heavy.run(() =>
            savingsRows(this.heavy.db, {
              clusters: indexes.map((index) => ({ id: keys[index].clusterId, pricePerGb: keys[index].pricePerGb })),
              from: new Date(shared.from),
              to: new Date(shared.to),
              now: new Date(shared.now),
              groupBy: 'cluster',
              limit: indexes.length,
            }),
          );
          const byCluster = new Map(rows.filter((row) => !row.is_total).map((row) => [row.cluster_id, row]));
          for (const index of indexes) results[index] = byCluster.get(keys[index].clusterId) ?? null;
        }),
      );
      return results;
    },
    { cacheKeyFn: (key) => JSON.stringify(key) },
  );

  /** The model against the measurement of each cluster (its newest state). */
  readonly measured = new DataLoader<string, MeasuredComparisonRow>((clusterIds) =>
    measuredComparisons(this.db, clusterIds),
  );

  constructor(
    private readonly db: ReadDb,
    /** Where heavy reads (savings) run: their own pool, inside the caller's organization's budget. */
    private readonly heavy: HeavyReads = { db, run: (work) => work() },
  ) {}
}

export interface HeavyReads {
  db: ReadDb;
  run<T>(work: () => Promise<T>): Promise<T>;
}
