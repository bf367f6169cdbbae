import { Controller, HttpCode, Inject, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ApiConfig } from '../config.js';
import { ProblemFilter } from '../problem.js';
import { AgentAuthGuard, type AgentRequest } from './agent-auth.guard.js';
import { type AcceptedSnapshot, IngestService } from './ingest.service.js';
import { readSnapshotBody } from './snapshot-body.js';

export const INGEST_PATH = '/v1/ingest/snapshots';

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
  @UseGuards(AgentAuthGuard)
  async push(@Req() request: AgentRequest): Promise<AcceptedSnapshot> {
    const body = await readSnapshotBody(request, this.config.get('INGEST_MAX_BODY_BYTES', { infer: true }));
    return this.ingest.accept(request.agent!, body);
  }
}
