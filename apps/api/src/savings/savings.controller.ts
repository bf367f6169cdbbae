import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { CachedAnswer } from '../cache/read-model-cache.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { parseInput } from '../http/validation.js';
import { SavingsQuerySchema, SavingsSchema } from './savings.schemas.js';
import { SavingsService } from './savings.service.js';

@ApiTags('savings')
@ApiKeyAuth()
@Controller('v1/savings')
export class SavingsController {
  constructor(@Inject(SavingsService) private readonly savings: SavingsService) {}

  @Get()
  @ApiOperation({
    summary:
      'Cross-zone GB and cost over a time range without hints, with hints as they are, and the opportunity, by cluster, namespace or Service',
  })
  @ApiQueryFrom(SavingsQuerySchema)
  @ApiResponseFrom(200, SavingsSchema, 'the savings over the range')
  async get(
    @CurrentCaller() caller: Caller,
    @Query() query: unknown,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const answer = await this.savings.savings(caller.organizationId, parseInput(SavingsQuerySchema, query, 'query'));
    // Its money is already in cents: written as it is, without the app's JSON replacer (see `figures`).
    await new CachedAnswer(JSON.stringify(answer)).send(request, response);
  }
}
