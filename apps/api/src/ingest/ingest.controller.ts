import { Controller, HttpCode, Inject, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { ApiConfig } from '../config.js';
import { ApiBodyFrom, ApiResponseFrom } from '../http/openapi.js';
import { ProblemFilter } from '../problem.js';
import { SnapshotSchema } from '../simulate/simulate.schemas.js';
import { AgentAuthGuard, type AgentRequest } from './agent-auth.guard.js';
import { type AcceptedSnapshot, IngestService } from './ingest.service.js';
import { readSnapshotBody } from './snapshot-body.js';

export const INGEST_PATH = '/v1/ingest/snapshots';

const AcceptedSchema = z.object({
  snapshotId: z.uuid(),
  duplicate: z.boolean().describe('the same snapshot was already stored: nothing new was queued'),
});

@ApiTags('ingest')
@ApiBearerAuth('agentToken')
@Controller()
@UseFilters(ProblemFilter)
export class IngestController {
  constructor(
    @Inject(IngestService) private readonly ingest: IngestService,
    @Inject(ConfigService) private readonly config: ConfigService<ApiConfig, true>,
  ) {}

  /**
   * An agent pushes one snapshot. 202: stored and queued for analysis (or already known: `duplicate`).
   * The body is read here, after authentication, so unauthenticated clients cannot make us read 64 MiB.
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
  @UseGuards(AgentAuthGuard)
  async push(@Req() request: AgentRequest): Promise<AcceptedSnapshot> {
    const body = await readSnapshotBody(request, this.config.get('INGEST_MAX_BODY_BYTES', { infer: true }));
    return this.ingest.accept(request.agent!, body);
  }
}
