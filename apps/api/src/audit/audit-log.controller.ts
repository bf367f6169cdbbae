import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { AdminOnly, ApiKeyAuth } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { parseInput } from '../http/validation.js';
import { AuditLogQuery, AuditLogSchema } from './audit-log.schemas.js';
import { AuditLogService } from './audit-log.service.js';

/** Who changed what in the organization, newest first; admins only. */
@ApiTags('audit-log')
@ApiKeyAuth()
@Controller('v1/audit-log')
export class AuditLogController {
  constructor(@Inject(AuditLogService) private readonly auditLog: AuditLogService) {}

  @Get()
  @AdminOnly()
  @ApiOperation({
    summary: 'The audit log: every change made by an admin key or the admin CLI, newest first (cursor-paginated)',
  })
  @ApiQueryFrom(AuditLogQuery)
  @ApiResponseFrom(200, AuditLogSchema, 'one page of entries')
  async list(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<z.output<typeof AuditLogSchema>> {
    return this.auditLog.list(caller.organizationId, parseInput(AuditLogQuery, query, 'query'));
  }
}
