import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  type AnalysisReport,
  analyzeSnapshot,
  applyWhatIf,
  type CheckedSnapshot,
  checkSnapshotRetention,
  parseSnapshotDocument,
  SnapshotError,
  WhatIfError,
} from '@zw/core';
import { historyRetentionDaysOf, PrismaService } from '@zw/db';
import { ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import type { ApiConfig } from '../config.js';
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
 *
 * A snapshot is checked as ingest checks it (the core's parseSnapshot, and a captured-at before the
 * organization's history retention is refused), so what simulate accepts ingest accepts too.
 */
@ApiTags('simulate')
@ApiKeyAuth()
@Controller('v1/simulate')
export class SimulateController {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ConfigService) private readonly config: ConfigService<ApiConfig, true>,
  ) {}

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
  async simulate(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<AnalysisReport> {
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
    const inSnapshot = (path: string) => (wrapped ? ['snapshot', path].filter(Boolean).join('.') : path);
    const raw = wrapped ? document.snapshot : document;
    const snapshotProblem = (error: unknown) => {
      if (!(error instanceof SnapshotError)) return error;
      return invalid(inSnapshot(error.path), `invalid snapshot: ${error.problem}`);
    };
    let checked: CheckedSnapshot;
    try {
      checked = parseSnapshotDocument(raw);
    } catch (error) {
      throw snapshotProblem(error);
    }
    // Only a valid document that states its captured-at needs the organization's retention: a bad body
    // is a 400 however the database is doing.
    if (checked.capturedAt) {
      const retentionDays = await this.historyRetentionDays(caller);
      try {
        checkSnapshotRetention(raw, checked.capturedAt, new Date(), retentionDays);
      } catch (error) {
        throw snapshotProblem(error);
      }
    }
    const { snapshot } = checked;
    try {
      return analyzeSnapshot(wrapped ? applyWhatIf(snapshot, document.whatIf) : snapshot);
    } catch (error) {
      if (error instanceof WhatIfError) throw invalid(error.path, error.problem);
      throw error;
    }
  }

  /** Ingest's rule: a snapshot captured before the organization's history retention is refused. */
  private async historyRetentionDays(caller: Caller): Promise<number> {
    return (
      (await historyRetentionDaysOf(this.prisma, caller.organizationId)) ??
      this.config.get('HISTORY_RETENTION_DAYS', { infer: true })
    );
  }
}
