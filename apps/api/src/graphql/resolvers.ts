import { Inject, UseGuards } from '@nestjs/common';
import { Args, Context, ID, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { type FleetRow, fleetRows, measuredComparisonFigures, ReadDb, type ServiceStateRow } from '@zw/db';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { analysisSettingsView } from '../clusters/analysis-settings.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { FleetService } from '../fleet/fleet.service.js';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import { notFound, validationProblem } from '../problem.js';
import { type ClusterPricing, clusterPricing } from '../cluster-pricing.js';
import { SavingsService } from '../savings/savings.service.js';
import { TrendsQuery } from '../trends/trends.schemas.js';
import { TrendsService } from '../trends/trends.service.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import {
  type MeasurementSource,
  measurementSourceOf,
  serviceSummaryView,
  zoneAllocations,
} from '../services/service-view.js';
import { DEFAULT_TIMELINE_DAYS, TIMELINE_LIMIT, timelineOf } from '../services/services.service.js';
import type { ZoneStatsSchema } from '../services/cluster-state.schemas.js';
import type { z } from 'zod';
import type { GraphQLLoaders } from './loaders.js';
import {
  Cluster,
  ClusterMeasuredTraffic,
  Fleet,
  HintState,
  RoutingMode,
  SavingsFigures,
  SavingsReport,
  Service,
  ServiceCidr,
  ServiceConnection,
  ServiceSort,
  Timeline,
  Zone,
  Trends,
} from '../graphql-models/models.js';
import { DAY_MS } from '@zw/core';

const MAX_PAGE = 500;

export interface GraphQLContext {
  loaders: GraphQLLoaders;
  now: Date;
}

type ClusterModel = Cluster & { pricing: ClusterPricing; measurementSource: MeasurementSource | null };
type ServiceModel = Service & { clusterId: string };

function date(field: string, text: string | undefined | null, fallback: Date): Date {
  if (text === undefined || text === null) return fallback;
  const value = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(value.getTime())) {
    throw validationProblem([{ location: 'query', field, message: 'expected an RFC 3339 timestamp' }]);
  }
  return value;
}

@Resolver(() => Fleet)
@UseGuards(ApiKeyGuard)
export class RootResolver {
  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(FleetService) private readonly fleetService: FleetService,
    @Inject(SavingsService) private readonly savingsService: SavingsService,
    @Inject(TrendsService) private readonly trends: TrendsService,
  ) {}

  @Query(() => Trends, { description: "the fleet's figures over time, bucketed (as GET /v1/fleet/trends)" })
  fleetTrends(
    @CurrentCaller() caller: Caller,
    @Args('from', { nullable: true }) from?: string,
    @Args('to', { nullable: true }) to?: string,
    @Args('bucket', { nullable: true }) bucket?: string,
  ): Promise<Trends> {
    return this.trends.fleet(caller.organizationId, parseInput(TrendsQuery, { from, to, bucket }, 'query'));
  }

  @Query(() => Trends, { description: "one cluster's figures over time, bucketed (as GET /v1/clusters/{id}/trends)" })
  clusterTrends(
    @CurrentCaller() caller: Caller,
    @Args('id', { type: () => ID }) id: string,
    @Args('from', { nullable: true }) from?: string,
    @Args('to', { nullable: true }) to?: string,
    @Args('bucket', { nullable: true }) bucket?: string,
  ): Promise<Trends> {
    return this.trends.cluster(
      caller.organizationId,
      clusterIdOf(id),
      parseInput(TrendsQuery, { from, to, bucket }, 'query'),
    );
  }

  @Query(() => Fleet, { description: "every cluster of the caller's organization" })
  async fleet(@CurrentCaller() caller: Caller): Promise<Fleet> {
    const now = new Date();
    const rows = await fleetRows(this.db, caller.organizationId);
    return { generatedAt: now.toISOString(), clusters: rows.map((row) => this.clusterModel(row, now)) };
  }

  @Query(() => Cluster, { description: 'one cluster (NOT_FOUND when the organization has no such cluster)' })
  async cluster(@CurrentCaller() caller: Caller, @Args('id', { type: () => ID }) id: string): Promise<Cluster> {
    const valid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
    const [row] = valid ? await fleetRows(this.db, caller.organizationId, [id]) : [];
    if (!row) throw notFound(`no cluster ${id} in your organization`);
    return this.clusterModel(row, new Date());
  }

  @Query(() => SavingsReport, { description: 'savings over a time range, grouped, with the ranked opportunities' })
  async savings(
    @CurrentCaller() caller: Caller,
    @Args('from', { nullable: true }) from?: string,
    @Args('to', { nullable: true }) to?: string,
    @Args('groupBy', { nullable: true, defaultValue: 'cluster' }) groupBy?: string,
    @Args('clusterId', { type: () => ID, nullable: true }) clusterId?: string,
    @Args('limit', { type: () => Int, nullable: true, defaultValue: 100 }) limit?: number,
  ): Promise<SavingsReport> {
    if (groupBy !== 'cluster' && groupBy !== 'namespace' && groupBy !== 'service') {
      throw validationProblem([
        { location: 'query', field: 'groupBy', message: 'expected cluster, namespace or service' },
      ]);
    }
    const now = new Date();
    const end = date('to', to, now);
    const report = await this.savingsService.savings(caller.organizationId, {
      from: date('from', from, new Date(end.getTime() - 30 * DAY_MS)).toISOString(),
      to: end.toISOString(),
      groupBy,
      clusterId,
      limit: Math.min(Math.max(limit ?? 100, 1), 1000),
    });
    const figures = (f: (typeof report)['totals']) => ({
      trafficGb: f.trafficGb,
      withoutHints: f.withoutHints,
      withHints: f.withHints,
      realizedSavings: f.realizedSavings,
      missedSavings: f.missedSavings,
      services: f.services,
      opportunities: f.opportunities,
      estimate: f.inputs.estimate,
    });
    return {
      from: report.from,
      to: report.to,
      totals: figures(report.totals),
      groups: report.groups.map((group) => ({
        ...figures(group),
        clusterId: group.cluster.id,
        clusterName: group.cluster.name,
        namespace: group.namespace,
        name: group.name,
      })),
      opportunities: report.opportunities.map((o) => ({
        clusterId: o.cluster.id,
        clusterName: o.cluster.name,
        namespace: o.namespace,
        name: o.name,
        trafficGb: o.trafficGb,
        missedSavings: o.missedSavings,
        estimate: o.estimate,
      })),
    };
  }

  private clusterModel(row: FleetRow, now: Date): ClusterModel {
    const view = this.fleetService.clusterView(row, now);
    const pricing = clusterPricing({
      cloud: row.cloud as 'aws' | 'gcp' | 'azure' | 'other',
      region: row.region,
      crossZonePricePerGb: row.price_override,
      organizationPricePerGb: row.org_price_override,
    });
    return {
      id: view.id,
      name: view.name,
      cloud: view.cloud,
      region: view.region,
      kubernetesVersion: row.kubernetes_version_override,
      dataPlane: row.data_plane_override,
      analysisSettings: analysisSettingsView({
        capturedAt: row.summary_captured_at,
        kubernetesVersion: row.analysis_kubernetes_version,
        kubernetesVersionSource: row.analysis_kubernetes_version_source,
        dataPlane: row.analysis_data_plane,
        dataPlaneSource: row.analysis_data_plane_source,
      }),
      hintStates: view.services,
      servicesWithDrift: view.servicesWithDrift,
      servicesWithIgnoredHints: view.servicesWithIgnoredHints,
      nodeInfoSufficient: view.nodeInfo.sufficient,
      nodeInfoReason: view.nodeInfo.reason,
      crossZone: view.crossZone,
      lastSnapshot: view.lastSnapshot,
      monthly: view.monthly,
      trafficSource: view.trafficSource,
      asOf: row.summary_captured_at?.toISOString() ?? null,
      pricePerGb: pricing.pricePerGb,
      pricing,
      measurementSource: measurementSourceOf(row),
    };
  }
}

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
    const end = date('to', to, context.now);
    const start = date('from', from, new Date(end.getTime() - 30 * DAY_MS));
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

@Resolver(() => Service)
export class ServiceResolver {
  @ResolveField(() => Timeline, { description: 'state changes over a window (default: the last 7 days)' })
  async timeline(
    @Parent() service: ServiceModel,
    @Context() context: GraphQLContext,
    @Args('from', { nullable: true }) from?: string,
    @Args('to', { nullable: true }) to?: string,
  ): Promise<Timeline> {
    const end = date('to', to, context.now);
    const start = date('from', from, new Date(end.getTime() - DEFAULT_TIMELINE_DAYS * DAY_MS));
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

function serviceModel(row: ServiceStateRow, cluster: ClusterModel): ServiceModel {
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
