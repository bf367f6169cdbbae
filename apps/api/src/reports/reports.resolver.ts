import { Inject, UseGuards } from '@nestjs/common';
import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ApiKeyGuard, RequireRole } from '../auth/api-key.guard.js';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { parseInput } from '../http/validation.js';
import { idFromPath } from './report-views.js';
import { ReportSchedulesService } from './report-schedules.service.js';
import {
  ReportConnectionModel,
  ReportModel,
  ReportRunPeriodEnum,
  ReportScheduleChanges,
  ReportScheduleConnectionModel,
  ReportScheduleInput,
  ReportScheduleModel,
  ReportScheduleResultModel,
  type ReportScopeInput,
  ReportStatusEnum,
  type ReportFormatEnum,
} from './reports.graphql-models.js';
import {
  CreateScheduleBody,
  ListReportsQuery,
  ListSchedulesQuery,
  type ReportView,
  RunScheduleBody,
  type ScheduleView,
  UpdateScheduleBody,
} from './reports.schemas.js';
import { ReportsService } from './reports.service.js';

/** Only the fields given (GraphQL passes absent arguments as undefined and explicit ones as null). */
function present<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  ) as Partial<T>;
}

function scopeBody(scope: ReportScopeInput) {
  return scope.kind === 'fleet' ? { kind: 'fleet' } : { kind: 'clusters', clusterIds: scope.clusterIds ?? [] };
}

function scheduleModel(view: ScheduleView): ReportScheduleModel {
  return view as unknown as ReportScheduleModel;
}

function reportModel(view: ReportView): ReportModel {
  return {
    id: view.id,
    scheduleId: view.schedule.id,
    scheduleName: view.schedule.name,
    periodStart: view.period.start,
    periodEnd: view.period.end,
    periodLabel: view.period.label,
    timeZone: view.period.timeZone,
    partial: view.partial,
    trigger: view.trigger,
    status: view.status as ReportStatusEnum,
    error: view.error,
    attempts: view.attempts,
    formats: view.formats as ReportFormatEnum[],
    createdAt: view.createdAt,
    generatedAt: view.generatedAt,
    summary: view.summary ? { ...view.summary.totals, missedByReason: view.summary.missedByReason } : null,
    downloads: Object.entries(view.downloads).map(([format, path]) => ({ format: format as ReportFormatEnum, path })),
    delivery: view.delivery,
  };
}

/**
 * Report schedules and reports over GraphQL: the REST operations, validated by the same schemas and
 * scoped the same way (another tenant's id is NOT_FOUND); mutations need an `admin` key.
 */
@Resolver(() => ReportScheduleModel)
@UseGuards(ApiKeyGuard)
export class ReportsResolver {
  constructor(
    @Inject(ReportSchedulesService) private readonly schedules: ReportSchedulesService,
    @Inject(ReportsService) private readonly reportsService: ReportsService,
  ) {}

  @Query(() => ReportScheduleConnectionModel, { description: "the organization's report schedules, oldest first" })
  async reportSchedules(
    @CurrentCaller() caller: Caller,
    @Args('first', { type: () => Int, nullable: true }) first?: number,
    @Args('after', { nullable: true }) after?: string,
  ): Promise<ReportScheduleConnectionModel> {
    const query = parseInput(ListSchedulesQuery, present({ limit: first, cursor: after }), 'query');
    const page = await this.schedules.list(caller.organizationId, query);
    return { nodes: page.schedules.map(scheduleModel), nextCursor: page.nextCursor };
  }

  @Query(() => ReportScheduleModel, { description: 'one report schedule (NOT_FOUND when not the organization’s)' })
  async reportSchedule(
    @CurrentCaller() caller: Caller,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<ReportScheduleModel> {
    return scheduleModel(await this.schedules.get(caller.organizationId, idFromPath(id)));
  }

  @Query(() => ReportConnectionModel, { description: 'reports, newest period first' })
  async reports(
    @CurrentCaller() caller: Caller,
    @Args('scheduleId', { type: () => ID, nullable: true }) scheduleId?: string,
    @Args('status', { type: () => ReportStatusEnum, nullable: true }) status?: ReportStatusEnum,
    @Args('first', { type: () => Int, nullable: true }) first?: number,
    @Args('after', { nullable: true }) after?: string,
  ): Promise<ReportConnectionModel> {
    const query = parseInput(ListReportsQuery, present({ scheduleId, status, limit: first, cursor: after }), 'query');
    const page = await this.reportsService.list(caller.organizationId, query);
    return { nodes: page.reports.map(reportModel), nextCursor: page.nextCursor };
  }

  @Query(() => ReportModel, { description: 'one report (NOT_FOUND when not the organization’s)' })
  async report(@CurrentCaller() caller: Caller, @Args('id', { type: () => ID }) id: string): Promise<ReportModel> {
    return reportModel(await this.reportsService.get(caller.organizationId, idFromPath(id)));
  }

  @Mutation(() => ReportScheduleResultModel, {
    description: 'create a schedule (admin); the webhook secret is shown once',
  })
  @RequireRole('admin')
  async createReportSchedule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('input', { type: () => ReportScheduleInput }) input: ReportScheduleInput,
  ): Promise<ReportScheduleResultModel> {
    const body = parseInput(
      CreateScheduleBody,
      {
        ...present({ ...input, scope: undefined, webhook: undefined }),
        ...(input.scope ? { scope: scopeBody(input.scope) } : {}),
        ...(input.webhook ? { webhook: { url: input.webhook.url } } : {}),
      },
      'body',
    );
    const result = await this.schedules.create(caller.organizationId, body, actor);
    return { schedule: scheduleModel(result.schedule), webhookSecret: result.webhookSecret };
  }

  @Mutation(() => ReportScheduleResultModel, { description: 'change a schedule (admin)' })
  @RequireRole('admin')
  async updateReportSchedule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('id', { type: () => ID }) id: string,
    @Args('changes', { type: () => ReportScheduleChanges }) changes: ReportScheduleChanges,
  ): Promise<ReportScheduleResultModel> {
    const scheduleId = idFromPath(id);
    const body = parseInput(
      UpdateScheduleBody,
      {
        ...present({ ...changes, scope: undefined, webhook: undefined }),
        ...(changes.scope ? { scope: scopeBody(changes.scope) } : {}),
        ...(changes.webhook !== undefined ? { webhook: changes.webhook ? { url: changes.webhook.url } : null } : {}),
      },
      'body',
    );
    const result = await this.schedules.update(caller.organizationId, scheduleId, body, actor);
    return { schedule: scheduleModel(result.schedule), webhookSecret: result.webhookSecret };
  }

  @Mutation(() => Boolean, { description: 'delete a schedule with its reports (admin)' })
  @RequireRole('admin')
  async deleteReportSchedule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<boolean> {
    await this.schedules.delete(caller.organizationId, idFromPath(id), actor);
    return true;
  }

  @Mutation(() => ReportModel, { description: "make the current (or previous) period's report now (operator)" })
  @RequireRole('operator')
  async runReportSchedule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('id', { type: () => ID }) id: string,
    @Args('period', { type: () => ReportRunPeriodEnum, nullable: true }) period?: ReportRunPeriodEnum,
  ): Promise<ReportModel> {
    const scheduleId = idFromPath(id);
    const body = parseInput(RunScheduleBody, present({ period }), 'body');
    return reportModel((await this.schedules.run(caller.organizationId, scheduleId, body, actor)).report);
  }
}
