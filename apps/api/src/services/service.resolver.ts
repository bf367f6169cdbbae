import { Args, Context, Parent, ResolveField, Resolver } from '@nestjs/graphql';
import { DAY_MS } from '@zw/core';
import type { ServiceStateRow } from '@zw/db';
import type { ClusterPricing } from '../cluster-pricing.js';
import { type GraphQLContext, timestampArg } from '../graphql-context/context.js';
import { type HintState, type RoutingMode, Service } from '../graphql-models/models.js';
import { Timeline } from './timeline.models.js';
import { type MeasurementSource, serviceSummaryView, zoneAllocations } from './service-view.js';
import { DEFAULT_TIMELINE_DAYS, TIMELINE_LIMIT, timelineOf } from './services.service.js';

/** What a Service's figures depend on from its cluster. */
export interface ServiceCluster {
  id: string;
  pricing: ClusterPricing;
  measurementSource: MeasurementSource | null;
}

type ServiceModel = Service & { clusterId: string };

@Resolver(() => Service)
export class ServiceResolver {
  @ResolveField(() => Timeline, { description: 'state changes over a window (default: the last 7 days)' })
  async timeline(
    @Parent() service: ServiceModel,
    @Context() context: GraphQLContext,
    @Args('from', { nullable: true }) from?: string,
    @Args('to', { nullable: true }) to?: string,
  ): Promise<Timeline> {
    const end = timestampArg('to', to, context.now);
    const start = timestampArg('from', from, new Date(end.getTime() - DEFAULT_TIMELINE_DAYS * DAY_MS));
    const rows = await context.loaders.timeline.load({
      serviceId: service.serviceId,
      from: start,
      to: end,
      limit: TIMELINE_LIMIT + 1,
    });
    const timeline = timelineOf(rows, start, end);
    return {
      ...timeline,
      entries: timeline.entries.map((entry) => ({
        from: entry.from,
        to: entry.to,
        routing: entry.routing as RoutingMode,
        hintState: entry.hints.state as HintState,
        hintReason: entry.hints.reason,
        crossZone: entry.crossZone,
        readyEndpoints: entry.readyEndpoints,
      })),
    };
  }
}

/** One Service of a cluster's page, as the GraphQL Service type. */
export function serviceModel(row: ServiceStateRow, cluster: ServiceCluster): ServiceModel {
  const view = serviceSummaryView(row, cluster.pricing, cluster.measurementSource);
  return {
    serviceId: row.service_id,
    clusterId: cluster.id,
    namespace: view.namespace,
    name: view.name,
    routing: view.routing as RoutingMode,
    hintState: view.hints.state as HintState,
    hintReason: view.hints.reason,
    readyEndpoints: view.readyEndpoints,
    since: view.since,
    crossZone: view.crossZone,
    managedBy: view.managedBy,
    dataPath: view.dataPath,
    monthly: view.monthly,
    opportunity: view.opportunity,
    zones: zoneAllocations(row),
    measured: view.measured,
    modelVsMeasured: view.modelVsMeasured,
    contradiction: view.contradiction,
  };
}
