import { Args, Context, Int, Parent, ResolveField, Resolver } from '@nestjs/graphql';
import { DAY_MS } from '@zw/core';
import { measuredComparisonFigures } from '@zw/db';
import type { z } from 'zod';
import type { ClusterPricing } from '../cluster-pricing.js';
import { type GraphQLContext, timestampArg } from '../graphql-context/context.js';
import { Cluster, HintState, RoutingMode } from '../graphql-models/models.js';
import { SavingsFigures } from '../savings/savings.models.js';
import { ClusterMeasuredTraffic, ServiceCidr, ServiceConnection, ServiceSort, Zone } from './cluster-fields.models.js';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import { validationProblem } from '../problem.js';
import type { ZoneStatsSchema } from '../services/cluster-state.schemas.js';
import type { MeasurementSource } from '../services/service-view.js';
import { serviceModel } from '../services/service.resolver.js';

const MAX_PAGE = 500;

/** A cluster as its fields resolve it: the GraphQL type plus what its Services' figures depend on. */
export type ClusterModel = Cluster & { pricing: ClusterPricing; measurementSource: MeasurementSource | null };

@Resolver(() => Cluster)
export class ClusterResolver {
  @ResolveField(() => ServiceConnection, { description: "the cluster's Services as of its newest processed snapshot" })
  async services(
    @Parent() cluster: ClusterModel,
    @Context() context: GraphQLContext,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 20 }) first: number,
    @Args('after', { nullable: true }) after?: string,
    @Args('sort', { type: () => ServiceSort, nullable: true, defaultValue: ServiceSort.name }) sort?: ServiceSort,
    @Args('namespace', { nullable: true }) namespace?: string,
    @Args('routing', { type: () => RoutingMode, nullable: true }) routing?: RoutingMode,
    @Args('hintState', { type: () => HintState, nullable: true }) hintState?: HintState,
    @Args('reason', { nullable: true }) reason?: string,
    @Args('opportunity', { type: () => Boolean, nullable: true }) opportunity?: boolean,
  ): Promise<ServiceConnection> {
    if (!(first >= 1 && first <= MAX_PAGE)) {
      throw validationProblem([{ location: 'query', field: 'first', message: `must be between 1 and ${MAX_PAGE}` }]);
    }
    const order = sort ?? ServiceSort.name;
    const descending = order !== ServiceSort.name;
    const filters = {
      namespace: namespace ?? undefined,
      routing,
      hintState,
      reason: reason ?? undefined,
      opportunity: opportunity ?? undefined,
    };
    // The REST listing's cursors: the same fingerprint, so a cursor works in either API.
    const print = fingerprint(['services', cluster.id, order, descending, filters]);
    const cursor = decodeCursor(after ?? undefined, print);
    const at = cursor?.t ? new Date(cursor.t) : cluster.asOf ? new Date(cluster.asOf) : null;
    if (!at) return { asOf: null, nodes: [], nextCursor: null };
    const rows = await context.loaders.servicesPage.load({
      clusterId: cluster.id,
      at,
      filters,
      sort: order,
      descending,
      after: cursor
        ? { key: cursor.k[0] as number | null, namespace: String(cursor.k[1]), name: String(cursor.k[2]) }
        : null,
      limit: first + 1,
    });
    const page = rows.slice(0, first);
    const last = page[page.length - 1];
    return {
      asOf: at.toISOString(),
      nodes: page.map((row) => serviceModel(row, cluster)),
      nextCursor:
        rows.length > first
          ? encodeCursor({ f: print, k: [last.sort_key, last.namespace, last.name], t: at.toISOString() })
          : null,
    };
  }

  @ResolveField(() => ClusterMeasuredTraffic, {
    description: 'the model against the measurement of its traffic source, over the newest state',
  })
  async measuredTraffic(
    @Parent() cluster: ClusterModel,
    @Context() context: GraphQLContext,
  ): Promise<ClusterMeasuredTraffic> {
    return measuredComparisonFigures(await context.loaders.measured.load(cluster.id), cluster.pricePerGb);
  }

  @ResolveField(() => [Zone], { description: 'zones of the newest processed snapshot' })
  async zones(@Parent() cluster: Cluster, @Context() context: GraphQLContext): Promise<Zone[]> {
    const documents = await context.loaders.documents.load(cluster.id);
    return (documents?.zone_stats as z.output<typeof ZoneStatsSchema>[] | null) ?? [];
  }

  @ResolveField(() => [ServiceCidr], { description: 'Service CIDRs of the newest processed snapshot' })
  async serviceCidrs(@Parent() cluster: Cluster, @Context() context: GraphQLContext): Promise<ServiceCidr[]> {
    const documents = await context.loaders.documents.load(cluster.id);
    const cidrs = (documents?.service_cidrs as StoredCidr[] | null) ?? [];
    return cidrs.map((cidr) => ({
      cidr: cidr.cidr,
      family: cidr.family,
      source: cidr.source,
      ready: cidr.ready,
      size: String(cidr.size),
      staticBand: cidr.staticBand,
      dynamicBand: cidr.dynamicBand,
      allocated: cidr.allocated,
      freeStatic: String(cidr.free.static),
      freeDynamic: String(cidr.free.dynamic),
      utilization: cidr.utilization,
      risks: cidr.risks,
      wellKnown: cidr.wellKnown,
      conflicts: cidr.conflicts.length,
    }));
  }

  @ResolveField(() => SavingsFigures, {
    nullable: true,
    description: 'savings over a range (default: the last 30 days)',
  })
  async savings(
    @Parent() cluster: ClusterModel,
    @Context() context: GraphQLContext,
    @Args('from', { nullable: true }) from?: string,
    @Args('to', { nullable: true }) to?: string,
  ): Promise<SavingsFigures | null> {
    const end = timestampArg('to', to, context.now);
    const start = timestampArg('from', from, new Date(end.getTime() - 30 * DAY_MS));
    const row = await context.loaders.savings.load({
      clusterId: cluster.id,
      pricePerGb: cluster.pricePerGb,
      from: start,
      to: end,
      now: context.now,
    });
    if (!row) return null;
    return {
      trafficGb: row.traffic_gb,
      withoutHints: { crossZoneGb: row.without_gb, cost: row.without_cost },
      withHints: { crossZoneGb: row.with_gb, cost: row.with_cost },
      realizedSavings: { crossZoneGb: row.without_gb - row.with_gb, cost: row.without_cost - row.with_cost },
      missedSavings: { crossZoneGb: row.missed_gb, cost: row.missed_cost },
      services: row.services,
      opportunities: row.opportunities,
      estimate: row.services_default > 0 || cluster.pricing.source === 'unknown-cloud-default',
    };
  }
}

interface StoredCidr {
  cidr: string;
  family: string;
  source: string;
  ready: boolean;
  size: number | string;
  staticBand: { first: string; last: string } | null;
  dynamicBand: { first: string; last: string } | null;
  allocated: { static: number; dynamic: number; total: number };
  free: { static: number | string; dynamic: number | string };
  utilization: number;
  risks: ServiceCidr['risks'];
  wellKnown: ServiceCidr['wellKnown'];
  conflicts: unknown[];
}
