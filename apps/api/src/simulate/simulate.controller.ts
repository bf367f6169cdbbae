import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { analyzeSnapshot, applyWhatIf, parseSnapshot, type Snapshot, SnapshotError, WhatIfError } from '@zw/core';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { ApiBodyFrom } from '../http/openapi.js';
import { ProblemException } from '../problem.js';
import { SimulateBodySchema } from './simulate.schemas.js';

function invalid(path: string, problem: string): ProblemException {
  return new ProblemException(400, `${path || 'body'}: ${problem}`, {
    path,
    errors: [{ location: 'body', field: path, message: problem }],
  });
}

/**
 * Analyzes an uploaded snapshot without storing anything. The body is a snapshot exactly as `zonewise
 * analyze` reads it, or `{ "snapshot": …, "whatIf": … }`; the answer is the `zonewise analyze` JSON.
 *
 * Decision: a body is the wrapped form when it has a `snapshot` field and none of a snapshot's own
 * top-level fields (`kind`/`items` of a List, `nodes`/`services`/`endpointSlices` of the object form).
 */
@ApiTags('simulate')
@ApiKeyAuth()
@Controller('v1/simulate')
export class SimulateController {
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Analyze a snapshot with optional what-ifs (routing mode per Service, replicas per zone, a zone losing its nodes); stores nothing',
  })
  @ApiBodyFrom(
    SimulateBodySchema,
    'a snapshot (`kubectl get nodes,services,endpointslices,servicecidrs -A -o json`), or `{ "snapshot": …, "whatIf": … }`',
  )
  @ApiResponse({ status: 200, description: 'the `zonewise analyze` JSON of the (changed) snapshot' })
  simulate(@Body() body: unknown) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw invalid(
        '',
        'expected a snapshot JSON object or {"snapshot": …, "whatIf": …} (Content-Type: application/json)',
      );
    }
    const document = body as Record<string, unknown>;
    const wrapped =
      'snapshot' in document &&
      !['kind', 'items', 'nodes', 'services', 'endpointSlices'].some((key) => key in document);
    if (wrapped) {
      const extra = Object.keys(document).filter((key) => key !== 'snapshot' && key !== 'whatIf');
      if (extra.length) throw invalid(extra[0], 'unknown field: expected only "snapshot" and "whatIf"');
    }
    let snapshot: Snapshot;
    try {
      snapshot = parseSnapshot(wrapped ? document.snapshot : document);
    } catch (error) {
      if (!(error instanceof SnapshotError)) throw error;
      const path = wrapped ? ['snapshot', error.path].filter(Boolean).join('.') : error.path;
      throw invalid(path, `invalid snapshot: ${error.problem}`);
    }
    try {
      return analyzeSnapshot(wrapped ? applyWhatIf(snapshot, document.whatIf) : snapshot);
    } catch (error) {
      if (error instanceof WhatIfError) throw invalid(error.path, error.problem);
      throw error;
    }
  }
}
