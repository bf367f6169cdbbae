import { Inject, UseGuards } from '@nestjs/common';
import { Args, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { Cluster } from '../graphql-models/models.js';
import { validationProblem } from '../problem.js';
import {
  type FixWorkload,
  type Recommendation,
  type ServiceFixes,
  ServiceFixesConnection,
} from './recommendations.models.js';
import type { ServiceFixesView } from './recommendations.schemas.js';
import { RecommendationsService } from './recommendations.service.js';

const MAX_PAGE = 500;

/** The fixes over GraphQL: per cluster, and ranked over the fleet; the same pages and cursors as REST. */
@Resolver(() => Cluster)
@UseGuards(ApiKeyGuard)
export class RecommendationsResolver {
  constructor(@Inject(RecommendationsService) private readonly fixes: RecommendationsService) {}

  @Query(() => ServiceFixesConnection, {
    description: "the fixes of every cluster's Services, largest saving first",
  })
  async fleetRecommendations(
    @CurrentCaller() caller: Caller,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 20 }) first: number,
    @Args('after', { nullable: true }) after?: string,
  ): Promise<ServiceFixesConnection> {
    const page = await this.fixes.fleet(caller.organizationId, { limit: pageSize(first), cursor: after });
    return { nodes: page.services.map(serviceFixesModel), nextCursor: page.nextCursor };
  }

  @ResolveField(() => ServiceFixesConnection, {
    description: "the fixes of the cluster's Services in its newest processed snapshot, largest saving first",
  })
  async recommendations(
    @Parent() cluster: Cluster,
    @CurrentCaller() caller: Caller,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 20 }) first: number,
    @Args('after', { nullable: true }) after?: string,
  ): Promise<ServiceFixesConnection> {
    const page = await this.fixes.cluster(caller.organizationId, cluster.id, {
      limit: pageSize(first),
      cursor: after,
    });
    return { nodes: page.services.map(serviceFixesModel), nextCursor: page.nextCursor };
  }
}

function pageSize(first: number): number {
  if (!(first >= 1 && first <= MAX_PAGE)) {
    throw validationProblem([{ location: 'query', field: 'first', message: `must be between 1 and ${MAX_PAGE}` }]);
  }
  return first;
}

function serviceFixesModel(view: Omit<ServiceFixesView, 'asOf'>): ServiceFixes {
  return {
    clusterId: view.cluster.id,
    clusterName: view.cluster.name,
    namespace: view.namespace,
    name: view.name,
    routing: view.routing,
    hintState: view.hints.state,
    hintReason: view.hints.reason,
    trafficGb: view.traffic.gb,
    trafficSource: view.traffic.source,
    bestSavings: view.bestSavings,
    recommendations: view.recommendations.map(recommendationModel),
  };
}

function recommendationModel(fix: Record<string, unknown>): Recommendation {
  const figures = (value: unknown) =>
    Object.entries((value ?? {}) as Record<string, number>).map(([zone, figure]) => ({ zone, value: figure }));
  const savings = fix.savings as Recommendation['savings'];
  const stability = fix.stability as { minReplicas: number } | undefined;
  return {
    kind: String(fix.kind),
    summary: String(fix.summary),
    resultingState: String(fix.resultingState),
    reason: (fix.reason as string | null) ?? null,
    crossZoneWithHints: (fix.crossZone as { withHints: number }).withHints,
    expectedOverload: figures(fix.expectedOverload),
    overloadAboveThreshold: fix.overloadAboveThreshold === true,
    savings,
    endpointsToAdd: figures(fix.endpointsToAdd),
    trafficDistribution: (fix.trafficDistribution as string | undefined) ?? null,
    nodes: (fix.nodes as string[] | undefined) ?? [],
    minReplicas: stability?.minReplicas ?? null,
    whatIf: fix.whatIf === null || fix.whatIf === undefined ? null : JSON.stringify(fix.whatIf),
    patch: String(fix.patch),
    workload: fix.workload ? { ...(fix.workload as FixWorkload), endpointsToAdd: figures(fix.endpointsToAdd) } : null,
    workloads: ((fix.workloads as (FixWorkload & { endpointsToAdd: Record<string, number> })[] | undefined) ?? []).map(
      (entry) => ({ ...entry, endpointsToAdd: figures(entry.endpointsToAdd) }),
    ),
  };
}
