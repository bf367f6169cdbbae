import { Body, Controller, Get, HttpCode, Inject, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { AdminOnly, ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { parseInput } from '../http/validation.js';
import {
  FailedSnapshotListSchema,
  type FailedSnapshotListView,
  FailedSnapshotsQuery,
  RedriveBody,
  RedriveResultSchema,
  type RedriveResultView,
} from './failed-snapshots.schemas.js';
import { FailedSnapshotsService } from './failed-snapshots.service.js';

/** Snapshots the worker could not process, and putting them back in line; admins only. */
@ApiTags('snapshots')
@ApiKeyAuth()
@Controller('v1/snapshots')
export class FailedSnapshotsController {
  constructor(@Inject(FailedSnapshotsService) private readonly failed: FailedSnapshotsService) {}

  @Get('failed')
  @AdminOnly()
  @ApiOperation({
    summary: 'Failed snapshots (the dead letters), newest failure first, with why each failed (cursor-paginated)',
  })
  @ApiQueryFrom(FailedSnapshotsQuery)
  @ApiResponseFrom(200, FailedSnapshotListSchema, 'one page of failed snapshots')
  list(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<FailedSnapshotListView> {
    return this.failed.list(caller.organizationId, parseInput(FailedSnapshotsQuery, query, 'query'));
  }

  @Post('redrive')
  @AdminOnly()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Re-drive failed snapshots: put them back in line for the worker (by id, by cluster, failed since an instant, or all). ' +
      'Idempotent: only snapshots still failed are taken, and each is processed once',
  })
  @ApiBodyFrom(RedriveBody)
  @ApiResponseFrom(200, RedriveResultSchema, 'the snapshots put back in line')
  redrive(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Body() body: unknown,
  ): Promise<RedriveResultView> {
    return this.failed.redrive(caller.organizationId, parseInput(RedriveBody, body, 'body'), actor);
  }
}
