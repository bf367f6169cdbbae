import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiPathParams, ApiResponseFrom } from '../http/openapi.js';
import { clusterIdOf } from '../http/validation.js';
import { type ClusterSimulation, ClusterSimulateService } from './cluster-simulate.service.js';
import { ClusterSimulateBody, ClusterSimulationSchema } from './simulate.schemas.js';

/**
 * The what-if of `POST /v1/simulate` on the cluster's newest processed snapshot, as the API stored it:
 * a dashboard asks "what if this Service had routing, or two more replicas in zone-b" without holding the
 * snapshot. Stores nothing.
 */
@ApiTags('simulate')
@ApiKeyAuth()
@Controller('v1/clusters/:id/simulate')
export class ClusterSimulateController {
  constructor(@Inject(ClusterSimulateService) private readonly simulation: ClusterSimulateService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Analyze the cluster's newest processed snapshot with what-ifs (routing, replicas per zone, a zone lost); stores nothing",
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiBodyFrom(ClusterSimulateBody, '`{"whatIf": …}` as for POST /v1/simulate, optionally the Services to answer about')
  @ApiResponseFrom(
    200,
    ClusterSimulationSchema,
    'the analysis of the newest processed snapshot with the what-ifs applied',
  )
  @ApiResponse({ status: 409, description: 'no processed snapshot of the cluster, or its payload is past retention' })
  simulate(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<ClusterSimulation> {
    return this.simulation.simulate(caller.organizationId, clusterIdOf(id), body);
  }
}
