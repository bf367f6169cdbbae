import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiPathParams, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import {
  ClusterTrendsSchema,
  type ClusterTrendsView,
  TrendsQuery,
  TrendsSchema,
  type TrendsView,
} from './trends.schemas.js';
import { TrendsService } from './trends.service.js';

@ApiTags('fleet')
@ApiKeyAuth()
@Controller('v1')
export class TrendsController {
  constructor(@Inject(TrendsService) private readonly trends: TrendsService) {}

  @Get('fleet/trends')
  @ApiOperation({
    summary: "The fleet's figures over time (hint states, monthly cross-zone cost and savings), bucketed",
  })
  @ApiQueryFrom(TrendsQuery)
  @ApiResponseFrom(200, TrendsSchema, 'one point per bucket holding recorded snapshots')
  fleet(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<TrendsView> {
    return this.trends.fleet(caller.organizationId, parseInput(TrendsQuery, query, 'query'));
  }

  @Get('clusters/:id/trends')
  @ApiOperation({ summary: "One cluster's figures over time, bucketed" })
  @ApiPathParams({ id: 'cluster id' })
  @ApiQueryFrom(TrendsQuery)
  @ApiResponseFrom(200, ClusterTrendsSchema, 'one point per bucket holding recorded snapshots')
  cluster(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: unknown,
  ): Promise<ClusterTrendsView> {
    return this.trends.cluster(caller.organizationId, clusterIdOf(id), parseInput(TrendsQuery, query, 'query'));
  }
}
