import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiPathParams, ApiResponseFrom } from '../http/openapi.js';
import { clusterIdOf } from '../http/validation.js';
import { clusterNotFound } from '../problem.js';
import { FleetClusterAnswerSchema, FleetSchema } from './fleet.schemas.js';
import { clusterTag, organizationTag, ReadModelCache } from '../cache/read-model-cache.js';
import type { ApiConfig } from '../config.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FleetService } from './fleet.service.js';

@ApiTags('fleet')
@ApiKeyAuth()
@Controller('v1/fleet')
export class FleetController {
  constructor(
    @Inject(FleetService) private readonly fleet: FleetService,
    @Inject(ReadModelCache) private readonly cache: ReadModelCache,
    @Inject(ConfigService) private readonly config: ConfigService<ApiConfig, true>,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Every cluster of the organization at a glance, for the dashboard' })
  @ApiResponseFrom(200, FleetSchema, 'the fleet summary (as of `generatedAt`, at most FLEET_CACHE_TTL_MS old)')
  async get(
    @CurrentCaller() caller: Caller,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const organizationId = caller.organizationId;
    const answer = await this.cache.answer(
      `fleet:${organizationId}`,
      [organizationTag(organizationId)],
      this.config.get('FLEET_CACHE_TTL_MS', { infer: true }),
      () => this.fleet.fleet(organizationId),
    );
    await answer.send(request, response);
  }

  @Get('clusters/:id')
  @ApiOperation({
    summary:
      'One cluster as the fleet summary shows it: hint states, drift, node info, agent freshness, monthly figures',
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiResponseFrom(200, FleetClusterAnswerSchema, "the cluster's entry of the fleet summary, computed now")
  async cluster(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const clusterId = clusterIdOf(id);
    const organizationId = caller.organizationId;
    const answer = await this.cache.answer(
      `fleet-cluster:${organizationId}:${clusterId}`,
      [clusterTag(clusterId), organizationTag(organizationId)],
      this.config.get('QUERY_CACHE_TTL_MS', { infer: true }),
      async () => {
        const view = await this.fleet.cluster(organizationId, clusterId);
        if (!view) throw clusterNotFound(clusterId);
        return view;
      },
    );
    await answer.send(request, response);
  }
}
