import { Controller, HttpCode, Inject, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiBodyFrom, ApiResponseFrom } from '../http/openapi.js';
import { ProblemFilter } from '../problem.js';
import { SnapshotSchema } from '../simulate/simulate.schemas.js';
import { AgentAuthGuard, type AgentRequest } from './agent-auth.guard.js';
import { type AcceptedSnapshot, IngestService } from './ingest.service.js';
import { IngestRateLimitGuard } from './ingest-rate-limit.guard.js';

export const INGEST_PATH = '/v1/ingest/snapshots';

const AcceptedSchema = z.object({
  snapshotId: z.uuid(),
  duplicate: z.boolean().describe('the same snapshot was already stored: nothing new was queued'),
  capturedAt: z.iso.datetime().describe('the captured-at time history records for the snapshot'),
  capturedAtClamped: z
    .boolean()
    .describe(
      'the stated captured-at lay further in the future than the clock-skew allowance (INGEST_CLOCK_SKEW_SECONDS): the receive time was recorded instead',
    ),
});

@ApiTags('ingest')
@ApiBearerAuth('agentToken')
@Controller()
@UseFilters(ProblemFilter)
export class IngestController {
  constructor(@Inject(IngestService) private readonly ingest: IngestService) {}

  /**
   * An agent pushes one snapshot. 202: stored and queued for analysis (or already known: `duplicate`).
   * The body is read only after authentication and the token's rate limit, so neither an unknown client
   * nor a token over its limit can make us read 64 MiB.
   */
  @Post(INGEST_PATH)
  @HttpCode(202)
  @ApiOperation({
    summary: "Push a cluster's snapshot (the agent's route): stored, then analyzed by the worker",
    description: 'The body may be gzip-compressed (`Content-Encoding: gzip`); its size limit is measured uncompressed.',
  })
  @ApiBodyFrom(SnapshotSchema)
  @ApiResponseFrom(202, AcceptedSchema, 'stored and queued (or already known)')
  @ApiResponse({ status: 401, description: 'no agent token, or an unknown one' })
  @ApiResponse({ status: 403, description: 'the token belongs to another cluster than the snapshot claims' })
  @ApiResponse({ status: 409, description: 'another snapshot of this cluster has the same captured-at time' })
  @ApiResponse({ status: 413, description: 'the snapshot is larger than INGEST_MAX_BODY_BYTES (uncompressed)' })
  @ApiResponse({ status: 429, description: 'this agent token pushed too often; see Retry-After' })
  @ApiResponse({ status: 503, description: 'ingest is busy reading other snapshots; see Retry-After' })
  @UseGuards(AgentAuthGuard, IngestRateLimitGuard)
  async push(@Req() request: AgentRequest): Promise<AcceptedSnapshot> {
    return this.ingest.accept(request.agent!, request);
  }
}
