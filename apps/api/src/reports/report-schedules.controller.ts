import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ServerResponse } from 'node:http';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { AdminOnly, ApiKeyAuth, OperatorOnly } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiPathParams, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { parseInput } from '../http/validation.js';
import { idFromPath, reportPath } from './report-views.js';
import { ReportSchedulesService } from './report-schedules.service.js';
import {
  CreateScheduleBody,
  ListSchedulesQuery,
  RunAnswerSchema,
  type RunAnswerView,
  RunScheduleBody,
  ScheduleAnswerSchema,
  type ScheduleAnswerView,
  ScheduleListSchema,
  type ScheduleListView,
  ScheduleSchema,
  type ScheduleView,
  UpdateScheduleBody,
} from './reports.schemas.js';

@ApiTags('reports')
@ApiKeyAuth()
@Controller('v1/report-schedules')
export class ReportSchedulesController {
  constructor(@Inject(ReportSchedulesService) private readonly schedules: ReportSchedulesService) {}

  @Post()
  @AdminOnly()
  @ApiOperation({
    summary: 'Create a report schedule; with a webhook, the answer carries its signing secret, shown only once',
  })
  @ApiBodyFrom(CreateScheduleBody)
  @ApiResponseFrom(201, ScheduleAnswerSchema, 'created')
  create(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Body() body: unknown,
  ): Promise<ScheduleAnswerView> {
    return this.schedules.create(caller.organizationId, parseInput(CreateScheduleBody, body, 'body'), actor);
  }

  @Get()
  @ApiOperation({ summary: "The organization's report schedules, oldest first" })
  @ApiQueryFrom(ListSchedulesQuery)
  @ApiResponseFrom(200, ScheduleListSchema, 'one page of schedules')
  list(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<ScheduleListView> {
    return this.schedules.list(caller.organizationId, parseInput(ListSchedulesQuery, query, 'query'));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One report schedule, with when it fires next and its latest report' })
  @ApiPathParams({ id: 'report schedule id' })
  @ApiResponseFrom(200, ScheduleSchema, 'the schedule')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ScheduleView> {
    return this.schedules.get(caller.organizationId, idFromPath(id));
  }

  @Patch(':id')
  @AdminOnly()
  @ApiOperation({
    summary:
      'Change a schedule: name, cadence, cron, time zone, scope, formats, webhook (null removes it), enabled; rotateWebhookSecret issues a new secret',
  })
  @ApiPathParams({ id: 'report schedule id' })
  @ApiBodyFrom(UpdateScheduleBody)
  @ApiResponseFrom(200, ScheduleAnswerSchema, 'the schedule as changed, and a webhook secret when one was issued')
  update(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<ScheduleAnswerView> {
    const scheduleId = idFromPath(id);
    const changes = parseInput(UpdateScheduleBody, body, 'body');
    return this.schedules.update(caller.organizationId, scheduleId, changes, actor);
  }

  @Delete(':id')
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a schedule with its reports and their deliveries' })
  @ApiPathParams({ id: 'report schedule id' })
  async delete(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<void> {
    await this.schedules.delete(caller.organizationId, idFromPath(id), actor);
  }

  @Post(':id/run')
  @OperatorOnly()
  @ApiOperation({
    summary:
      "Make the current period's report now (or, with period=previous, the newest ended period's, once); the worker makes it: poll the report until its status is ready",
  })
  @ApiPathParams({ id: 'report schedule id' })
  @ApiBodyFrom(RunScheduleBody)
  @ApiResponseFrom(202, RunAnswerSchema, 'the report, being made (Location: the report)')
  @ApiResponseFrom(200, RunAnswerSchema, 'period=previous: the report of that period, already made')
  async run(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: ServerResponse,
  ): Promise<RunAnswerView> {
    const scheduleId = idFromPath(id);
    const { accepted, report } = await this.schedules.run(
      caller.organizationId,
      scheduleId,
      parseInput(RunScheduleBody, body, 'body'),
      actor,
    );
    response.statusCode = accepted ? 202 : 200;
    response.setHeader('Location', reportPath(report.id));
    return { report };
  }
}
