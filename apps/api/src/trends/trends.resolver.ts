import { Inject, UseGuards } from '@nestjs/common';
import { Args, ID, Query, Resolver } from '@nestjs/graphql';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { Trends } from './trends.models.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import { TrendsQuery } from './trends.schemas.js';
import { TrendsService } from './trends.service.js';

@Resolver(() => Trends)
@UseGuards(ApiKeyGuard)
export class TrendsResolver {
  constructor(@Inject(TrendsService) private readonly trends: TrendsService) {}

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
}
