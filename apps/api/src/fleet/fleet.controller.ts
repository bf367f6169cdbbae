import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiResponseFrom } from '../http/openapi.js';
import { FleetSchema } from './fleet.schemas.js';
import { organizationTag, ReadModelCache } from '../cache/read-model-cache.js';
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
}
