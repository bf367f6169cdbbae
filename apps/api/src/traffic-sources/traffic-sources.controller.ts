import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ServerResponse } from 'node:http';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { ApiKeyAuth, OperatorOnly } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiPathParams, ApiResponseFrom } from '../http/openapi.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import {
  PutTrafficSourceBody,
  TrafficComparisonSchema,
  type TrafficComparisonView,
  TrafficSourceSchema,
  type TrafficSourceView,
} from './traffic-sources.schemas.js';
import { TrafficSourcesService } from './traffic-sources.service.js';

@ApiTags('traffic sources')
@ApiKeyAuth()
@Controller('v1/clusters/:id')
export class TrafficSourcesController {
  constructor(@Inject(TrafficSourcesService) private readonly sources: TrafficSourcesService) {}

  @Get('traffic-source')
  @ApiOperation({ summary: "The cluster's Prometheus traffic source and how its last measurement went" })
  @ApiPathParams({ id: 'cluster id' })
  @ApiResponseFrom(200, TrafficSourceSchema, 'the traffic source (the auth header is never returned)')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<TrafficSourceView> {
    return this.sources.get(caller.organizationId, clusterIdOf(id));
  }

  @Put('traffic-source')
  @OperatorOnly()
  @ApiOperation({
    summary: "Set the cluster's traffic source: the worker queries it every interval, and once right away",
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiBodyFrom(PutTrafficSourceBody)
  @ApiResponseFrom(200, TrafficSourceSchema, 'replaced')
  @ApiResponseFrom(201, TrafficSourceSchema, 'created')
  async put(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: ServerResponse,
  ): Promise<TrafficSourceView> {
    const clusterId = clusterIdOf(id);
    const { created, source } = await this.sources.put(
      caller.organizationId,
      clusterId,
      parseInput(PutTrafficSourceBody, body, 'body'),
      actor,
    );
    response.statusCode = created ? 201 : 200;
    return source;
  }

  @Delete('traffic-source')
  @OperatorOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove the traffic source: its measurements go, Services fall back to their estimates' })
  @ApiPathParams({ id: 'cluster id' })
  async delete(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<void> {
    await this.sources.delete(caller.organizationId, clusterIdOf(id), actor);
  }

  @Get('measured-traffic')
  @ApiOperation({
    summary: "The cluster's model against its measurement: volumes, cross-zone fractions and cost, with the error",
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiResponseFrom(200, TrafficComparisonSchema, 'estimated vs measured over the newest state')
  comparison(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<TrafficComparisonView> {
    return this.sources.comparison(caller.organizationId, clusterIdOf(id));
  }
}
