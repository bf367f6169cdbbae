import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';

/** GraphQL types of report schedules and reports (code-first): the REST shapes, for the dashboard. */

export enum ReportCadenceEnum {
  daily = 'daily',
  weekly = 'weekly',
  monthly = 'monthly',
  cron = 'cron',
}
export enum ReportFormatEnum {
  json = 'json',
  csv = 'csv',
  html = 'html',
}
export enum ReportStatusEnum {
  pending = 'pending',
  ready = 'ready',
  failed = 'failed',
}
export enum ReportScopeKindEnum {
  fleet = 'fleet',
  clusters = 'clusters',
}
export enum ReportRunPeriodEnum {
  current = 'current',
  previous = 'previous',
}
registerEnumType(ReportCadenceEnum, { name: 'ReportCadence' });
registerEnumType(ReportFormatEnum, { name: 'ReportFormat' });
registerEnumType(ReportStatusEnum, { name: 'ReportStatus' });
registerEnumType(ReportScopeKindEnum, { name: 'ReportScopeKind' });
registerEnumType(ReportRunPeriodEnum, {
  name: 'ReportRunPeriod',
  description: '`current`: the period in progress up to now (partial); `previous`: the newest ended period (made once)',
});

@ObjectType('ReportScope')
export class ReportScopeModel {
  @Field(() => ReportScopeKindEnum) kind: ReportScopeKindEnum;
  @Field(() => [ID]) clusterIds: string[];
}

@ObjectType('ReportScheduleWebhook')
export class ReportScheduleWebhookModel {
  @Field() url: string;
  @Field({ description: "the secret's first characters" }) secretPrefix: string;
}

@ObjectType('ReportRef')
export class ReportRefModel {
  @Field(() => ID) id: string;
  @Field() periodStart: string;
  @Field() periodEnd: string;
  @Field(() => ReportStatusEnum) status: ReportStatusEnum;
}

@ObjectType('ReportSchedule')
export class ReportScheduleModel {
  @Field(() => ID) id: string;
  @Field() name: string;
  @Field(() => ReportCadenceEnum) cadence: ReportCadenceEnum;
  @Field() cron: string;
  @Field() timeZone: string;
  @Field(() => ReportScopeModel) scope: ReportScopeModel;
  @Field(() => [ReportFormatEnum]) formats: ReportFormatEnum[];
  @Field(() => ReportScheduleWebhookModel, { nullable: true }) webhook: ReportScheduleWebhookModel | null;
  @Field(() => [ID], { description: 'alert channels each report is also sent to' }) channelIds: string[];
  @Field() enabled: boolean;
  @Field(() => String, { nullable: true }) nextRunAt: string | null;
  @Field(() => ReportRefModel, { nullable: true }) lastReport: ReportRefModel | null;
  @Field() createdAt: string;
  @Field() updatedAt: string;
}

@ObjectType('ReportScheduleResult')
export class ReportScheduleResultModel {
  @Field(() => ReportScheduleModel) schedule: ReportScheduleModel;
  @Field(() => String, { nullable: true, description: 'the webhook secret, only when this operation issued it' })
  webhookSecret: string | null;
}

@ObjectType('ReportScheduleConnection')
export class ReportScheduleConnectionModel {
  @Field(() => [ReportScheduleModel]) nodes: ReportScheduleModel[];
  @Field(() => String, { nullable: true }) nextCursor: string | null;
}

@ObjectType('ReportFigure')
export class ReportFigureModel {
  @Field(() => Float) crossZoneGb: number;
  @Field(() => Float, { description: 'USD' }) cost: number;
}

@ObjectType('ReportMissedReason')
export class ReportMissedReasonModel {
  @Field({ description: 'not-enabled, too-few-endpoints, overload-threshold, node-info or other' }) reason: string;
  @Field({ description: '`enable-preview` (exact) or `at-stake` (the most fixing the cause could save)' })
  basis: string;
  @Field(() => Int) services: number;
  @Field(() => Float) crossZoneGb: number;
  @Field(() => Float) cost: number;
}

@ObjectType('ReportSummary')
export class ReportSummaryModel {
  @Field(() => Int) services: number;
  @Field(() => Float) trafficGb: number;
  @Field(() => ReportFigureModel) withoutHints: ReportFigureModel;
  @Field(() => ReportFigureModel) withHints: ReportFigureModel;
  @Field(() => ReportFigureModel) realizedSavings: ReportFigureModel;
  @Field(() => ReportFigureModel) missedSavings: ReportFigureModel;
  @Field(() => ReportFigureModel) blockedAtStake: ReportFigureModel;
  @Field(() => Int) opportunities: number;
  @Field() estimate: boolean;
  @Field(() => [ReportMissedReasonModel]) missedByReason: ReportMissedReasonModel[];
}

@ObjectType('WebhookDeliveryAttempt')
export class WebhookDeliveryAttemptModel {
  @Field(() => Int) attempt: number;
  @Field() at: string;
  @Field(() => Int, { nullable: true }) statusCode: number | null;
  @Field(() => String, { nullable: true }) error: string | null;
  @Field(() => Float) durationMs: number;
}

@ObjectType('WebhookDelivery')
export class WebhookDeliveryModel {
  @Field(() => ID) id: string;
  @Field() url: string;
  @Field({ description: 'pending, succeeded or failed' }) status: string;
  @Field(() => Int) attempts: number;
  @Field(() => String, { nullable: true }) lastAttemptAt: string | null;
  @Field(() => Int, { nullable: true }) lastStatusCode: number | null;
  @Field(() => String, { nullable: true }) lastError: string | null;
  @Field(() => String, { nullable: true }) nextAttemptAt: string | null;
  @Field(() => String, { nullable: true }) deliveredAt: string | null;
  @Field(() => [WebhookDeliveryAttemptModel]) log: WebhookDeliveryAttemptModel[];
}

@ObjectType('ReportDownload')
export class ReportDownloadModel {
  @Field(() => ReportFormatEnum) format: ReportFormatEnum;
  @Field({ description: 'GET this path with an API key' }) path: string;
}

@ObjectType('Report')
export class ReportModel {
  @Field(() => ID) id: string;
  @Field(() => ID) scheduleId: string;
  @Field() scheduleName: string;
  @Field() periodStart: string;
  @Field() periodEnd: string;
  @Field() periodLabel: string;
  @Field() timeZone: string;
  @Field() partial: boolean;
  @Field({ description: 'schedule or manual' }) trigger: string;
  @Field(() => ReportStatusEnum) status: ReportStatusEnum;
  @Field(() => String, { nullable: true }) error: string | null;
  @Field(() => Int) attempts: number;
  @Field(() => [ReportFormatEnum]) formats: ReportFormatEnum[];
  @Field() createdAt: string;
  @Field(() => String, { nullable: true }) generatedAt: string | null;
  @Field(() => ReportSummaryModel, { nullable: true }) summary: ReportSummaryModel | null;
  @Field(() => [ReportDownloadModel]) downloads: ReportDownloadModel[];
  @Field(() => WebhookDeliveryModel, { nullable: true }) delivery: WebhookDeliveryModel | null;
}

@ObjectType('ReportConnection')
export class ReportConnectionModel {
  @Field(() => [ReportModel]) nodes: ReportModel[];
  @Field(() => String, { nullable: true }) nextCursor: string | null;
}

@InputType('ReportScopeInput')
export class ReportScopeInput {
  @Field(() => ReportScopeKindEnum) kind: ReportScopeKindEnum;
  @Field(() => [ID], { nullable: true, description: 'with kind clusters' }) clusterIds?: string[] | null;
}

@InputType('ReportWebhookInput')
export class ReportWebhookInput {
  @Field() url: string;
}

@InputType('ReportScheduleInput')
export class ReportScheduleInput {
  @Field() name: string;
  @Field(() => ReportCadenceEnum) cadence: ReportCadenceEnum;
  @Field(() => String, { nullable: true }) cron?: string | null;
  @Field(() => String, { nullable: true, description: 'IANA time zone (default UTC)' }) timeZone?: string | null;
  @Field(() => ReportScopeInput, { nullable: true, description: 'default: the whole fleet' })
  scope?: ReportScopeInput | null;
  @Field(() => [ReportFormatEnum], { nullable: true, description: 'default: all three' }) formats?:
    ReportFormatEnum[] | null;
  @Field(() => ReportWebhookInput, { nullable: true }) webhook?: ReportWebhookInput | null;
  @Field(() => [ID], { nullable: true, description: 'alert channels each report is also sent to' })
  channelIds?: string[] | null;
  @Field(() => Boolean, { nullable: true }) enabled?: boolean | null;
}

@InputType('ReportScheduleChanges')
export class ReportScheduleChanges {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => ReportCadenceEnum, { nullable: true }) cadence?: ReportCadenceEnum | null;
  @Field(() => String, { nullable: true }) cron?: string | null;
  @Field(() => String, { nullable: true }) timeZone?: string | null;
  @Field(() => ReportScopeInput, { nullable: true }) scope?: ReportScopeInput | null;
  @Field(() => [ReportFormatEnum], { nullable: true }) formats?: ReportFormatEnum[] | null;
  @Field(() => ReportWebhookInput, { nullable: true, description: 'null removes the webhook' })
  webhook?: ReportWebhookInput | null;
  @Field(() => Boolean, { nullable: true }) rotateWebhookSecret?: boolean | null;
  @Field(() => [ID], { nullable: true, description: 'alert channels each report is also sent to' })
  channelIds?: string[] | null;
  @Field(() => Boolean, { nullable: true }) enabled?: boolean | null;
}
