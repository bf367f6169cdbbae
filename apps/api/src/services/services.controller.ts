import { Body, Controller, Get, Inject, Param, Patch, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { ApiKeyAuth, OperatorOnly } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ReadModelCache } from '../cache/read-model-cache.js';
import { ApiBodyFrom, ApiPathParams, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import {
  ListServicesQuery,
  ServiceCountsQuery,
  ServiceCountsSchema,
  ServiceDetailQuery,
  ServiceDetailSchema,
  type ServiceDetailView,
  ServiceListSchema,
  ServiceParams,
  SetTrafficBody,
} from './services.schemas.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServicesService } from './services.service.js';

const SERVICE_PARAMS = { id: 'cluster id', namespace: 'the Service namespace', name: 'the Service name' };

@ApiTags('services')
@ApiKeyAuth()
@Controller('v1/clusters/:id/services')
export class ServicesController {
  constructor(
    @Inject(ServicesService) private readonly services: ServicesService,
    @Inject(ReadModelCache) private readonly cache: ReadModelCache,
  ) {}

  @Get()
  @ApiOperation({
    summary: "The cluster's Services with hint state, cost and savings: filters, sorts, cursor pagination",
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiQueryFrom(ListServicesQuery)
  @ApiResponseFrom(200, ServiceListSchema, 'one page of Services, as of the newest processed snapshot')
  async list(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: unknown,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const clusterId = clusterIdOf(id);
    const parsed = parseInput(ListServicesQuery, query, 'query');
    const answer = await this.cache.clusterAnswer('services', caller.organizationId, clusterId, parsed, () =>
      this.services.list(caller.organizationId, clusterId, parsed),
    );
    await answer.send(request, response);
  }

  @Get('counts')
  @ApiOperation({
    summary: "How many of the cluster's Services match the list's filters, in all and by hint state",
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiQueryFrom(ServiceCountsQuery)
  @ApiResponseFrom(200, ServiceCountsSchema, 'the counts, as of the newest processed snapshot')
  async counts(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: unknown,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const clusterId = clusterIdOf(id);
    const parsed = parseInput(ServiceCountsQuery, query, 'query');
    const answer = await this.cache.clusterAnswer('service-counts', caller.organizationId, clusterId, parsed, () =>
      this.services.counts(caller.organizationId, clusterId, parsed),
    );
    await answer.send(request, response);
  }

  @Get(':namespace/:name')
  @ApiOperation({
    summary:
      'One Service: current state with per-zone allocation and expected overload, kube-proxy per zone, drift, timeline',
  })
  @ApiPathParams(SERVICE_PARAMS)
  @ApiQueryFrom(ServiceDetailQuery)
  @ApiResponseFrom(200, ServiceDetailSchema, 'the Service')
  detail(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Query() query: unknown,
  ): Promise<ServiceDetailView> {
    const clusterId = clusterIdOf(id);
    const service = parseInput(ServiceParams, { namespace, name }, 'path');
    const window = parseInput(ServiceDetailQuery, query, 'query');
    return this.services.detail(caller.organizationId, clusterId, service.namespace, service.name, window);
  }

  @Patch(':namespace/:name')
  @OperatorOnly()
  @ApiOperation({ summary: "Set the Service's monthly traffic (GB), which overrides its annotation and the default" })
  @ApiPathParams(SERVICE_PARAMS)
  @ApiBodyFrom(SetTrafficBody)
  @ApiResponseFrom(200, ServiceDetailSchema, 'the Service with its new figures')
  setTraffic(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Body() body: unknown,
  ): Promise<ServiceDetailView> {
    const clusterId = clusterIdOf(id);
    const service = parseInput(ServiceParams, { namespace, name }, 'path');
    const { monthlyTrafficGb } = parseInput(SetTrafficBody, body, 'body');
    return this.services.setTraffic(
      caller.organizationId,
      clusterId,
      service.namespace,
      service.name,
      monthlyTrafficGb,
      actor,
    );
  }
}
