import { Inject, UseGuards } from '@nestjs/common';
import { Args, Field, Float, ID, Int, Mutation, ObjectType, Query, Resolver } from '@nestjs/graphql';
import type { AuditActor } from '@zw/db';
import { CurrentActor } from '../audit/audit-actor.js';
import { ApiKeyGuard, RequireRole } from '../auth/api-key.guard.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { parseInput } from '../http/validation.js';
import {
  AlertChannelChanges,
  AlertChannelInput,
  AlertRuleChanges,
  AlertRuleInput,
  given,
} from './alerts.graphql-inputs.js';
import {
  AlertsQuery,
  CreateChannelBody,
  CreateRuleBody,
  DeliveriesQuery,
  UpdateChannelBody,
  UpdateRuleBody,
} from './alerts.schemas.js';
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

@ObjectType('CreatedAlertChannel')
export class CreatedAlertChannelModel extends AlertChannelModel {
  @Field(() => String, {
    nullable: true,
    description: 'webhook only: the signing secret (whsec_…), shown this once',
  })
  secret: string | null;
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
  @Field(() => ID, { nullable: true, description: 'the scheduled report sent (event report)' }) reportId: string | null;
  @Field(() => [ID], { description: 'a grouped message: the alerts told together' }) alertIds: string[];
  @Field() event: string;
  @Field() status: string;
  @Field(() => Int) attempts: number;
  @Field(() => Int, { nullable: true }) lastStatusCode: number | null;
  @Field(() => String, { nullable: true }) lastError: string | null;
  @Field(() => String, { nullable: true }) sentAt: string | null;
  @Field() createdAt: string;
}

const idArg = z.object({ id: z.uuid({ message: 'must be a UUID' }) });
const idOf = (id: string) => parseInput(idArg, { id }, 'path').id;

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
    return this.service.sendTest(caller.organizationId, idOf(id), actor);
  }

  @Mutation(() => CreatedAlertChannelModel, {
    description: 'add a channel (operator); a webhook answer carries its secret, once',
  })
  @RequireRole('operator')
  createAlertChannel(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('input', { type: () => AlertChannelInput }) input: AlertChannelInput,
  ): Promise<CreatedAlertChannelModel> {
    const body = parseInput(CreateChannelBody, given(input), 'body');
    return this.service.createChannel(caller.organizationId, body, actor);
  }

  @Mutation(() => AlertChannelModel, { description: 'change a channel (operator)' })
  @RequireRole('operator')
  updateAlertChannel(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('id', { type: () => ID }) id: string,
    @Args('changes', { type: () => AlertChannelChanges }) changes: AlertChannelChanges,
  ): Promise<AlertChannelModel> {
    const body = parseInput(UpdateChannelBody, given(changes), 'body');
    return this.service.updateChannel(caller.organizationId, idOf(id), body, actor);
  }

  @Mutation(() => Boolean, { description: 'remove a channel (operator); rules and schedules stop naming it' })
  @RequireRole('operator')
  async deleteAlertChannel(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<boolean> {
    await this.service.deleteChannel(caller.organizationId, idOf(id), actor);
    return true;
  }

  @Mutation(() => AlertRuleModel, { description: 'add a rule (operator)' })
  @RequireRole('operator')
  createAlertRule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('input', { type: () => AlertRuleInput }) input: AlertRuleInput,
  ): Promise<AlertRuleModel> {
    const body = parseInput(CreateRuleBody, given({ ...input, quietHours: quietHours(input.quietHours) }), 'body');
    return this.service.createRule(caller.organizationId, body, actor);
  }

  @Mutation(() => AlertRuleModel, { description: 'change a rule (operator); quietHours: null removes them' })
  @RequireRole('operator')
  updateAlertRule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('id', { type: () => ID }) id: string,
    @Args('changes', { type: () => AlertRuleChanges }) changes: AlertRuleChanges,
  ): Promise<AlertRuleModel> {
    const fields = given({ ...changes, quietHours: quietHours(changes.quietHours) }, ['threshold', 'quietHours']);
    return this.service.updateRule(caller.organizationId, idOf(id), parseInput(UpdateRuleBody, fields, 'body'), actor);
  }

  @Mutation(() => Boolean, { description: 'remove a rule with its alerts (operator)' })
  @RequireRole('operator')
  async deleteAlertRule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Args('id', { type: () => ID }) id: string,
  ): Promise<boolean> {
    await this.service.deleteRule(caller.organizationId, idOf(id), actor);
    return true;
  }
}

/** The input's quiet hours as the REST body has them (a time zone left out is UTC). */
function quietHours(input: { start: string; end: string; timeZone?: string | null } | null | undefined) {
  if (!input) return input;
  return given(input);
}
