import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiPathParams, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import {
  ClusterRecommendationsSchema,
  type ClusterRecommendationsView,
  FleetRecommendationsSchema,
  type FleetRecommendationsView,
  ListRecommendationsQuery,
} from './recommendations.schemas.js';
import { RecommendationsService } from './recommendations.service.js';

@ApiTags('recommendations')
@ApiKeyAuth()
@Controller('v1')
export class RecommendationsController {
  constructor(@Inject(RecommendationsService) private readonly recommendations: RecommendationsService) {}

  @Get('clusters/:id/recommendations')
  @ApiOperation({
    summary: "The fixes that make the cluster's Services route in-zone, largest saving first, cursor-paginated",
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiQueryFrom(ListRecommendationsQuery)
  @ApiResponseFrom(200, ClusterRecommendationsSchema, 'one page of Services with fixes, as of the newest snapshot')
  cluster(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: unknown,
  ): Promise<ClusterRecommendationsView> {
    const clusterId = clusterIdOf(id);
    return this.recommendations.cluster(
      caller.organizationId,
      clusterId,
      parseInput(ListRecommendationsQuery, query, 'query'),
    );
  }

  @Get('fleet/recommendations')
  @ApiOperation({
    summary: "The fixes of every cluster's Services, ranked fleet-wide by what they save, cursor-paginated",
  })
  @ApiQueryFrom(ListRecommendationsQuery)
  @ApiResponseFrom(200, FleetRecommendationsSchema, 'one page of Services with fixes, largest saving first')
  fleet(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<FleetRecommendationsView> {
    return this.recommendations.fleet(caller.organizationId, parseInput(ListRecommendationsQuery, query, 'query'));
  }
}
