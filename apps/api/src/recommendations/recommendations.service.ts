import { Inject, Injectable } from '@nestjs/common';
import { clusterFixesHead, type FixRankingRow, fixRankingRows, ReadDb } from '@zw/db';
import type { z } from 'zod';
import { clusterNotFound } from '../problem.js';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import { type ClusterPricing, type PricedCluster, pricedClusters } from '../cluster-pricing.js';
import type {
  ClusterRecommendationsView,
  FleetRecommendationsView,
  ListRecommendationsQuery,
  NodeBlockersView,
  RecommendationView,
  ServiceFixesView,
} from './recommendations.schemas.js';

type Query = z.output<typeof ListRecommendationsQuery>;

/**
 * The recommended fixes the worker stored with each cluster's newest processed snapshot, with money at
 * read time: each Service's effective traffic (API value, else measured, else the snapshot's) times the
 * drop of the cross-zone fraction, times the cluster's price.
 */
@Injectable()
export class RecommendationsService {
  constructor(@Inject(ReadDb) private readonly db: ReadDb) {}

  async cluster(organizationId: string, clusterId: string, query: Query): Promise<ClusterRecommendationsView> {
    // The newest snapshot's head is read beside the cluster (one round trip less); it is only used once
    // the cluster is known to be the organization's.
    const [[cluster], head] = await Promise.all([
      pricedClusters(this.db, organizationId, clusterId),
      clusterFixesHead(this.db, clusterId),
    ]);
    if (!cluster) throw clusterNotFound(clusterId);
    const page = await this.page([cluster], query, ['cluster-recommendations', clusterId]);
    return {
      cluster: { id: cluster.id, name: cluster.name },
      asOf: head.captured_at?.toISOString() ?? null,
      nodeBlockers: head.node_blockers === null ? null : pricedBlockers(head.node_blockers, cluster.pricing),
      services: page.rows.map((row) => serviceFixesView(row, cluster.pricing)),
      nextCursor: page.nextCursor,
    };
  }

  async fleet(organizationId: string, query: Query): Promise<FleetRecommendationsView> {
    const clusters = await pricedClusters(this.db, organizationId);
    const byId = new Map(clusters.map((cluster) => [cluster.id, cluster]));
    const page = await this.page(clusters, query, ['fleet-recommendations', organizationId]);
    return {
      services: page.rows.map((row) => ({
        ...serviceFixesView(row, byId.get(row.cluster_id)!.pricing),
        asOf: row.captured_at.toISOString(),
      })),
      nextCursor: page.nextCursor,
    };
  }

  /** One Service's fixes in the cluster's newest snapshot ([] when it has none). */
  async service(
    clusterId: string,
    pricing: ClusterPricing,
    namespace: string,
    name: string,
  ): Promise<RecommendationView[]> {
    const rows = await fixRankingRows(this.db, {
      clusters: [{ id: clusterId, pricePerGb: pricing.pricePerGb }],
      service: { namespace, name },
      limit: 1,
    });
    return rows.length === 0 ? [] : serviceFixesView(rows[0], pricing).recommendations;
  }

  private async page(clusters: PricedCluster[], query: Query, scope: unknown[]) {
    const print = fingerprint(scope);
    const cursor = decodeCursor(query.cursor, print);
    if (clusters.length === 0) return { rows: [] as FixRankingRow[], nextCursor: null };
    const [cost, gb, clusterId, namespace, name] = (cursor?.k ?? []) as [number, number, string, string, string];
    const rows = await fixRankingRows(this.db, {
      clusters: clusters.map((cluster) => ({ id: cluster.id, pricePerGb: cluster.pricing.pricePerGb })),
      after: cursor ? { cost, gb, clusterId, namespace, name } : null,
      limit: query.limit + 1,
    });
    const kept = rows.slice(0, query.limit);
    const last = kept[kept.length - 1];
    return {
      rows: kept,
      nextCursor:
        rows.length > query.limit
          ? encodeCursor({ f: print, k: [last.saved_cost, last.saved_gb, last.cluster_id, last.namespace, last.name] })
          : null,
    };
  }
}

/** The stored fixes are what the worker's analysis wrote (the schema's values and shapes), priced here. */
function serviceFixesView(row: FixRankingRow, pricing: ClusterPricing): ServiceFixesView {
  const { fixes } = row;
  return {
    cluster: { id: row.cluster_id, name: row.cluster_name },
    namespace: row.namespace,
    name: row.name,
    routing: fixes.routing as ServiceFixesView['routing'],
    hints: { state: fixes.hintState as ServiceFixesView['hints']['state'], reason: fixes.hintReason },
    traffic: {
      gb: row.traffic_gb,
      source: row.traffic_source,
      estimate: row.traffic_source === 'default-per-endpoint' || pricing.source === 'unknown-cloud-default',
    },
    bestSavings: { crossZoneGb: row.saved_gb, cost: row.saved_cost },
    recommendations: fixes.recommendations.map((fix) => {
      const fraction = Number((fix.savings as { crossZoneFraction?: number } | undefined)?.crossZoneFraction ?? 0);
      const crossZoneGb = row.traffic_gb * fraction;
      return {
        ...fix,
        savings: { crossZoneFraction: fraction, crossZoneGb, cost: crossZoneGb * pricing.pricePerGb },
      } as RecommendationView;
    }),
  };
}

/**
 * Decision: the blockers' savings were summed by the worker at the snapshot's traffic and a default price;
 * the GB are kept and the cost follows the cluster's price (API traffic values are per Service and are
 * applied to each Service's own fixes, not to this total).
 */
function pricedBlockers(blockers: Record<string, unknown>, pricing: ClusterPricing): NodeBlockersView {
  const savings = blockers.savings as { crossZoneGb?: number } | undefined;
  const crossZoneGb = Number(savings?.crossZoneGb ?? 0);
  return { ...blockers, savings: { crossZoneGb, cost: crossZoneGb * pricing.pricePerGb } } as NodeBlockersView;
}
