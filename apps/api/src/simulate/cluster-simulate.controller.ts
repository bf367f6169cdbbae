import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { analyzeSnapshot, applyWhatIf, WhatIfError } from '@zw/core';
import { z } from 'zod';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiPathParams } from '../http/openapi.js';
import { clusterIdOf, parseInput } from '../http/validation.js';
import { ProblemException } from '../problem.js';
import { LiveViewService, overridesOf } from '../services/live-view.service.js';
import { ServicesService } from '../services/services.service.js';
import { WhatIfSchema } from './simulate.schemas.js';

const ServiceRef = z.object({ namespace: z.string().min(1).max(63), name: z.string().min(1).max(253) }).strict();

export const ClusterSimulateBody = z
  .object({
    whatIf: WhatIfSchema.optional(),
    services: z
      .array(ServiceRef)
      .min(1)
      .max(100)
      .optional()
      .describe("only these Services in the answer's `services` (default: every Service of the cluster)"),
  })
  .strict();

/**
 * The what-if of `POST /v1/simulate` on the cluster's newest processed snapshot, as the API stored it:
 * a dashboard asks "what if this Service had routing, or two more replicas in zone-b" without holding the
 * snapshot. Stores nothing.
 */
@ApiTags('simulate')
@ApiKeyAuth()
@Controller('v1/clusters/:id/simulate')
export class ClusterSimulateController {
  constructor(
    @Inject(ServicesService) private readonly services: ServicesService,
    @Inject(LiveViewService) private readonly live: LiveViewService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Analyze the cluster's newest processed snapshot with what-ifs (routing, replicas per zone, a zone lost); stores nothing",
  })
  @ApiPathParams({ id: 'cluster id' })
  @ApiBodyFrom(ClusterSimulateBody, '`{"whatIf": …}` as for POST /v1/simulate, optionally the Services to answer about')
  @ApiResponse({
    status: 200,
    description:
      '`{cluster, snapshotId, capturedAt, analysis}`: `analysis` is the `zonewise analyze` JSON of the changed snapshot',
  })
  @ApiResponse({ status: 409, description: 'no processed snapshot of the cluster, or its payload is past retention' })
  async simulate(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: unknown) {
    const clusterId = clusterIdOf(id);
    const input = parseInput(ClusterSimulateBody, body ?? {}, 'body');
    const head = await this.services.head(caller.organizationId, clusterId);
    if (!head.latest_snapshot_id || !head.latest_captured_at) {
      throw new ProblemException(409, `cluster ${clusterId} has no processed snapshot yet: nothing to simulate on`);
    }
    const snapshot = await this.live.snapshot(head.latest_snapshot_id, overridesOf(head));
    if (!snapshot) {
      throw new ProblemException(409, 'the raw payload of the newest snapshot is past its retention period');
    }
    let analysis;
    try {
      analysis = analyzeSnapshot(applyWhatIf(snapshot, input.whatIf ?? null));
    } catch (error) {
      if (!(error instanceof WhatIfError)) throw error;
      throw new ProblemException(400, `${error.path}: ${error.problem}`, {
        errors: [{ location: 'body', field: error.path, message: error.problem }],
      });
    }
    const wanted = input.services && new Set(input.services.map((service) => `${service.namespace}/${service.name}`));
    return {
      cluster: { id: head.id, name: head.name },
      snapshotId: head.latest_snapshot_id,
      capturedAt: head.latest_captured_at.toISOString(),
      analysis: wanted
        ? { ...analysis, services: analysis.services.filter((s) => wanted.has(`${s.namespace}/${s.name}`)) }
        : analysis,
    };
  }
}
