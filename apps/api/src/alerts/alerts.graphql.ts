import { Inject, UseGuards } from '@nestjs/common';
import { Args, Field, Float, ID, Int, Mutation, ObjectType, Query, Resolver } from '@nestjs/graphql';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { ApiKeyGuard, RequireRole } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { parseInput } from '../http/validation.js';
import { AlertsQuery, DeliveriesQuery } from './alerts.schemas.js';
import { AlertsService } from './alerts.service.js';
import { z } from 'zod';

/** GraphQL types of alerts (code-first): the REST shapes (GET /v1/alert-*), read by every role. */
@ObjectType('AlertChannel')
export class AlertChannelModel {
  @Field(() => ID) id: string;
  @Field() name: string;
  @Field({ description: 'slack | teams | email | webhook' }) kind: string;
  @Field({ description: "the URL's host, or the addresses (never the URL)" }) targetHint: string;
  @Field(() => String, { nullable: true }) signature: string | null;
  @Field() enabled: boolean;
  @Field() createdAt: string;
  @Field() updatedAt: string;
}

@ObjectType('AlertQuietHours')
export class AlertQuietHoursModel {
  @Field() start: string;
  @Field() end: string;
  @Field() timeZone: string;
}

@ObjectType('AlertRule')
export class AlertRuleModel {
  @Field(() => ID) id: string;
  @Field() name: string;
  @Field() kind: string;
  @Field(() => Float, { nullable: true }) threshold: number | null;
  @Field(() => [ID]) clusterIds: string[];
  @Field(() => [ID]) channelIds: string[];
  @Field(() => AlertQuietHoursModel, { nullable: true }) quietHours: AlertQuietHoursModel | null;
  @Field() enabled: boolean;
  @Field(() => Int) openAlerts: number;
}

@ObjectType('Alert')
export class AlertModel {
  @Field(() => ID) id: string;
  @Field(() => ID, { nullable: true }) ruleId: string | null;
  @Field() kind: string;
  @Field() subject: string;
  @Field(() => ID, { nullable: true }) clusterId: string | null;
  @Field() summary: string;
  @Field({ description: 'the dashboard page of the subject' }) path: string;
  @Field() openedAt: string;
  @Field(() => String, { nullable: true }) resolvedAt: string | null;
}

@ObjectType('AlertDelivery')
export class AlertDeliveryModel {
  @Field(() => ID) id: string;
  @Field(() => ID) channelId: string;
  @Field() channelName: string;
  @Field(() => ID, { nullable: true }) alertId: string | null;
  @Field() event: string;
  @Field() status: string;
  @Field(() => Int) attempts: number;
  @Field(() => Int, { nullable: true }) lastStatusCode: number | null;
  @Field(() => String, { nullable: true }) lastError: string | null;
  @Field(() => String, { nullable: true }) sentAt: string | null;
  @Field() createdAt: string;
}

const idArg = z.object({ id: z.uuid({ message: 'must be a UUID' }) });

@Resolver()
@UseGuards(ApiKeyGuard)
export class AlertsResolver {
  constructor(@Inject(AlertsService) private readonly service: AlertsService) {}

  @Query(() => [AlertChannelModel], { description: "the organization's alert channels" })
  async alertChannels(@CurrentCaller() caller: Caller): Promise<AlertChannelModel[]> {
    return (await this.service.listChannels(caller.organizationId)).items;
  }

  @Query(() => [AlertRuleModel], { description: "the organization's alert rules" })
  async alertRules(@CurrentCaller() caller: Caller): Promise<AlertRuleModel[]> {
    return (await this.service.listRules(caller.organizationId)).items;
  }

  @Query(() => [AlertModel], { description: 'alerts, newest first (state: open | resolved | all)' })
  async alerts(
    @CurrentCaller() caller: Caller,
    @Args('state', { type: () => String, nullable: true }) state?: string,
    @Args('first', { type: () => Int, nullable: true }) first?: number,
  ): Promise<AlertModel[]> {
    const query = parseInput(AlertsQuery, { state: state ?? undefined, limit: first ?? undefined }, 'query');
    return (await this.service.listAlerts(caller.organizationId, query)).items;
  }

  @Query(() => [AlertDeliveryModel], { description: 'the delivery log, newest first' })
  async alertDeliveries(
    @CurrentCaller() caller: Caller,
    @Args('first', { type: () => Int, nullable: true }) first?: number,
    @Args('channelId', { type: () => ID, nullable: true }) channelId?: string,
  ): Promise<AlertDeliveryModel[]> {
    const query = parseInput(
      DeliveriesQuery,
      { limit: first ?? undefined, channelId: channelId ?? undefined },
      'query',
    );
    return (await this.service.listDeliveries(caller.organizationId, query)).items;
  }

  @Mutation(() => AlertDeliveryModel, { description: 'send a test message to a channel (operator)' })
  @RequireRole('operator')
  sendAlertChannelTest(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<AlertDeliveryModel> {
    return this.service.sendTest(caller.organizationId, parseInput(idArg, { id }, 'path').id, actor);
  }
}
