import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@zw/db';
import { z } from 'zod';
import { CurrentActor } from '../audit/audit-actor.js';
import { ApiKeyAuth, OperatorOnly } from '../auth/auth.decorators.js';
import { type Caller, CurrentCaller } from '../auth/caller.js';
import { ApiBodyFrom, ApiPathParams, ApiQueryFrom, ApiResponseFrom } from '../http/openapi.js';
import { parseInput } from '../http/validation.js';
import {
  AlertSchema,
  AlertsQuery,
  type AlertView,
  ChannelSchema,
  type ChannelView,
  CreateChannelBody,
  CreatedChannelSchema,
  type CreatedChannelView,
  CreateRuleBody,
  DeliveriesQuery,
  DeliverySchema,
  type DeliveryView,
  ListOf,
  type ListView,
  RuleSchema,
  type RuleView,
  UpdateChannelBody,
  UpdateRuleBody,
} from './alerts.schemas.js';
import { AlertsService } from './alerts.service.js';

const idParam = z.object({ id: z.uuid({ message: 'must be a UUID' }) });
const idOf = (id: string) => parseInput(idParam, { id }, 'path').id;

@ApiTags('alerts')
@ApiKeyAuth()
@Controller('v1')
export class AlertsController {
  constructor(@Inject(AlertsService) private readonly alerts: AlertsService) {}

  @Get('alert-channels')
  @ApiOperation({ summary: "The organization's alert channels (targets are shown by host or address only)" })
  @ApiResponseFrom(200, ListOf(ChannelSchema), 'every channel, oldest first')
  listChannels(@CurrentCaller() caller: Caller): Promise<ListView<ChannelView>> {
    return this.alerts.listChannels(caller.organizationId);
  }

  @Post('alert-channels')
  @OperatorOnly()
  @ApiOperation({
    summary: 'Add a Slack, Teams, email or signed-webhook channel; a webhook answer carries its secret, once',
  })
  @ApiBodyFrom(CreateChannelBody)
  @ApiResponseFrom(201, CreatedChannelSchema, 'created')
  createChannel(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Body() body: unknown,
  ): Promise<CreatedChannelView> {
    return this.alerts.createChannel(caller.organizationId, parseInput(CreateChannelBody, body, 'body'), actor);
  }

  @Patch('alert-channels/:id')
  @OperatorOnly()
  @ApiOperation({ summary: 'Change a channel: name, target, signature scheme, enabled' })
  @ApiPathParams({ id: 'alert channel id' })
  @ApiBodyFrom(UpdateChannelBody)
  @ApiResponseFrom(200, ChannelSchema, 'changed')
  updateChannel(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<ChannelView> {
    return this.alerts.updateChannel(
      caller.organizationId,
      idOf(id),
      parseInput(UpdateChannelBody, body, 'body'),
      actor,
    );
  }

  @Delete('alert-channels/:id')
  @OperatorOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a channel (rules stop notifying it; its deliveries go with it)' })
  @ApiPathParams({ id: 'alert channel id' })
  async deleteChannel(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<void> {
    await this.alerts.deleteChannel(caller.organizationId, idOf(id), actor);
  }

  @Post('alert-channels/:id/test')
  @OperatorOnly()
  @ApiOperation({ summary: 'Send a test message to the channel; follow its delivery in the delivery log' })
  @ApiPathParams({ id: 'alert channel id' })
  @ApiResponseFrom(201, DeliverySchema, 'the test delivery, queued')
  sendTest(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<DeliveryView> {
    return this.alerts.sendTest(caller.organizationId, idOf(id), actor);
  }

  @Get('alert-rules')
  @ApiOperation({ summary: "The organization's alert rules, with how many alerts each has open" })
  @ApiResponseFrom(200, ListOf(RuleSchema), 'every rule, oldest first')
  listRules(@CurrentCaller() caller: Caller): Promise<ListView<RuleView>> {
    return this.alerts.listRules(caller.organizationId);
  }

  @Post('alert-rules')
  @OperatorOnly()
  @ApiOperation({ summary: 'Add a rule: the worker evaluates it after each snapshot and every sweep' })
  @ApiBodyFrom(CreateRuleBody)
  @ApiResponseFrom(201, RuleSchema, 'created')
  createRule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Body() body: unknown,
  ): Promise<RuleView> {
    return this.alerts.createRule(caller.organizationId, parseInput(CreateRuleBody, body, 'body'), actor);
  }

  @Patch('alert-rules/:id')
  @OperatorOnly()
  @ApiOperation({ summary: 'Change a rule: name, threshold, clusters, channels, quiet hours, enabled' })
  @ApiPathParams({ id: 'alert rule id' })
  @ApiBodyFrom(UpdateRuleBody)
  @ApiResponseFrom(200, RuleSchema, 'changed')
  updateRule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<RuleView> {
    return this.alerts.updateRule(caller.organizationId, idOf(id), parseInput(UpdateRuleBody, body, 'body'), actor);
  }

  @Delete('alert-rules/:id')
  @OperatorOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a rule with its alerts' })
  @ApiPathParams({ id: 'alert rule id' })
  async deleteRule(
    @CurrentCaller() caller: Caller,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
  ): Promise<void> {
    await this.alerts.deleteRule(caller.organizationId, idOf(id), actor);
  }

  @Get('alerts')
  @ApiOperation({ summary: "The organization's alerts, newest first: open ones, resolved ones, or both" })
  @ApiQueryFrom(AlertsQuery)
  @ApiResponseFrom(200, ListOf(AlertSchema), 'alerts')
  listAlerts(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<ListView<AlertView>> {
    return this.alerts.listAlerts(caller.organizationId, parseInput(AlertsQuery, query, 'query'));
  }

  @Get('alert-deliveries')
  @ApiOperation({ summary: 'The delivery log: every message to every channel, its attempts and outcome' })
  @ApiQueryFrom(DeliveriesQuery)
  @ApiResponseFrom(200, ListOf(DeliverySchema), 'deliveries, newest first')
  listDeliveries(@CurrentCaller() caller: Caller, @Query() query: unknown): Promise<ListView<DeliveryView>> {
    return this.alerts.listDeliveries(caller.organizationId, parseInput(DeliveriesQuery, query, 'query'));
  }

  @Get('alert-deliveries/:id')
  @ApiOperation({ summary: 'One delivery' })
  @ApiPathParams({ id: 'alert delivery id' })
  @ApiResponseFrom(200, DeliverySchema, 'the delivery')
  delivery(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<DeliveryView> {
    return this.alerts.delivery(caller.organizationId, idOf(id));
  }
}
