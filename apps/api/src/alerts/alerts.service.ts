import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import {
  alertsOf,
  type AuditActor,
  channelOf,
  channelsOf,
  countOwnedChannels,
  countOwnedClusters,
  createAlertChannel,
  createAlertRule,
  createTestDelivery,
  deleteAlertChannel,
  deleteAlertRule,
  deliveriesOf,
  deliveryOf,
  detachChannel,
  hasChannel,
  PrismaService,
  recordAudit,
  ruleOf,
  rulesOf,
  sealChannelSecrets,
  updateAlertChannel,
  updateAlertRule,
} from '@zw/db';
import { emailTargetProblem, newWebhookSecret } from '@zw/notify';
import { ALERTS_QUEUE, type AlertsConfig, enqueueAlertDelivery } from '@zw/queue';
import { webhookUrlProblem } from '@zw/reports';
import type { SecretKeyring } from '@zw/secrets';
import type { Queue } from 'bullmq';
import type { z } from 'zod';
import { SECRET_KEYRING } from '../auth/secret-keyring.js';
import { QueueAvailability } from '../http/queue-availability.js';
import { notFound, ProblemException, validationProblem } from '../problem.js';
import { ALERTS_API_CONFIG } from './alerts-config.js';
import type {
  AlertView,
  ChannelView,
  CreateChannelBody,
  CreatedChannelView,
  CreateRuleBody,
  DeliveryView,
  ListQuery,
  ListView,
  RuleView,
  UpdateChannelBody,
  UpdateRuleBody,
} from './alerts.schemas.js';

interface ChannelRow {
  id: string;
  name: string;
  kind: string;
  targetHint: string;
  signature: string | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

function channelView(row: ChannelRow): ChannelView {
  return {
    ...row,
    kind: row.kind as ChannelView['kind'],
    signature: row.signature as ChannelView['signature'],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Postgres' unique violation (a name taken) as a 409 naming it. */
function duplicateName(error: unknown, what: string, name: string | undefined): never {
  if ((error as { code?: string }).code === 'P2002') {
    throw new ProblemException(409, `a ${what} named "${name}" already exists in this organization`);
  }
  throw error;
}

/**
 * Alert channels, rules, the alerts they raised and the delivery log. Writes are audited in the same
 * transaction; channel targets and secrets are sealed with the deployment's keyring (and never answered,
 * except a webhook's signing secret, once, when it is made).
 */
@Injectable()
export class AlertsService {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(SECRET_KEYRING) private readonly keyring: SecretKeyring | null,
    @Inject(ALERTS_API_CONFIG) private readonly config: AlertsConfig,
    @InjectQueue(ALERTS_QUEUE) private readonly queue: Queue,
    @Inject(QueueAvailability) private readonly queues: QueueAvailability,
  ) {}

  private requireKeyring(): SecretKeyring {
    if (this.keyring) return this.keyring;
    throw new ProblemException(
      409,
      'this deployment stores no channel secrets: its operator must set SECRET_ENCRYPTION_KEYS',
    );
  }

  /** The target checked for its kind, and what the API shows of it. */
  private checkTarget(kind: string, target: string): string {
    if (kind === 'email') {
      const problem = emailTargetProblem(target);
      if (problem) throw validationProblem([{ location: 'body', field: 'target', message: problem }]);
      return target
        .split(',')
        .map((part) => part.trim())
        .join(', ');
    }
    const problem = webhookUrlProblem(target, this.config.ALERT_ALLOW_PRIVATE);
    if (problem) throw validationProblem([{ location: 'body', field: 'target', message: problem }]);
    return new URL(target).host;
  }

  async listChannels(organizationId: string): Promise<ListView<ChannelView>> {
    return { items: (await channelsOf(this.prisma, organizationId)).map(channelView) };
  }

  async createChannel(
    organizationId: string,
    body: z.output<typeof CreateChannelBody>,
    actor: AuditActor,
  ): Promise<CreatedChannelView> {
    if (body.signature && body.kind !== 'webhook') {
      throw validationProblem([{ location: 'body', field: 'signature', message: 'only webhook channels are signed' }]);
    }
    const keyring = this.requireKeyring();
    const targetHint = this.checkTarget(body.kind, body.target);
    const secret = body.kind === 'webhook' ? newWebhookSecret() : null;
    const row = await this.prisma
      .$transaction(async (tx) => {
        const created = await createAlertChannel(tx, {
          organizationId,
          name: body.name,
          kind: body.kind,
          targetHint,
          signature: body.kind === 'webhook' ? (body.signature ?? 'standard') : null,
          enabled: body.enabled,
          ...sealChannelSecrets(keyring, organizationId, body.target, secret),
        });
        await recordAudit(tx, actor, {
          organizationId,
          action: 'alert_channel.create',
          targetType: 'alert_channel',
          targetId: created.id,
          details: { name: body.name, kind: body.kind, target: targetHint },
        });
        return created;
      })
      .catch((error: unknown) => duplicateName(error, 'channel', body.name));
    return { ...channelView(row), secret };
  }

  async updateChannel(
    organizationId: string,
    id: string,
    body: z.output<typeof UpdateChannelBody>,
    actor: AuditActor,
  ): Promise<ChannelView> {
    const current = await channelOf(this.prisma, organizationId, id);
    if (!current) throw notFound(`no alert channel ${id} in this organization`);
    if (body.signature && current.kind !== 'webhook') {
      throw validationProblem([{ location: 'body', field: 'signature', message: 'only webhook channels are signed' }]);
    }
    const data: Record<string, unknown> = {};
    if (body.name !== undefined) data.name = body.name;
    if (body.enabled !== undefined) data.enabled = body.enabled;
    if (body.signature !== undefined) data.signature = body.signature;
    if (body.target !== undefined) {
      const keyring = this.requireKeyring();
      data.targetHint = this.checkTarget(current.kind, body.target);
      data.targetSealed = sealChannelSecrets(keyring, organizationId, body.target, null).targetSealed;
    }
    const row = await this.prisma
      .$transaction(async (tx) => {
        const updated = await updateAlertChannel(tx, id, data);
        await recordAudit(tx, actor, {
          organizationId,
          action: 'alert_channel.update',
          targetType: 'alert_channel',
          targetId: id,
          details: { ...body, target: body.target === undefined ? undefined : data.targetHint },
        });
        return updated;
      })
      .catch((error: unknown) => duplicateName(error, 'channel', body.name));
    return channelView(row);
  }

  async deleteChannel(organizationId: string, id: string, actor: AuditActor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const deleted = await deleteAlertChannel(tx, organizationId, id);
      if (!deleted) throw notFound(`no alert channel ${id} in this organization`);
      await detachChannel(tx, organizationId, id);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'alert_channel.delete',
        targetType: 'alert_channel',
        targetId: id,
      });
    });
  }

  /** Queues a test message to the channel; its delivery shows in the log like any other. */
  async sendTest(organizationId: string, id: string, actor: AuditActor): Promise<DeliveryView> {
    const known = await hasChannel(this.prisma, organizationId, id);
    if (!known) throw notFound(`no alert channel ${id} in this organization`);
    await this.queues.assertAvailable();
    const delivery = await this.prisma.$transaction(async (tx) => {
      const created = await createTestDelivery(tx, organizationId, id);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'alert_channel.test',
        targetType: 'alert_channel',
        targetId: id,
        details: { deliveryId: created.id },
      });
      return created;
    });
    await enqueueAlertDelivery(this.queue, delivery, this.config);
    return this.delivery(organizationId, delivery.id);
  }

  private async checkRefs(organizationId: string, clusterIds: string[] | undefined, channelIds: string[] | undefined) {
    if (clusterIds?.length) {
      const found = await countOwnedClusters(this.prisma, organizationId, clusterIds);
      if (found !== new Set(clusterIds).size) {
        throw validationProblem([
          { location: 'body', field: 'clusterIds', message: 'names a cluster this organization does not have' },
        ]);
      }
    }
    if (channelIds?.length) {
      const found = await countOwnedChannels(this.prisma, organizationId, channelIds);
      if (found !== new Set(channelIds).size) {
        throw validationProblem([
          { location: 'body', field: 'channelIds', message: 'names a channel this organization does not have' },
        ]);
      }
    }
  }

  async listRules(organizationId: string): Promise<ListView<RuleView>> {
    const rows = await rulesOf(this.prisma, organizationId);
    return { items: rows.map((row) => ruleView(row, row._count.alerts)) };
  }

  async createRule(
    organizationId: string,
    body: z.output<typeof CreateRuleBody>,
    actor: AuditActor,
  ): Promise<RuleView> {
    await this.checkRefs(organizationId, body.clusterIds, body.channelIds);
    const row = await this.prisma
      .$transaction(async (tx) => {
        const created = await createAlertRule(tx, {
          organizationId,
          name: body.name,
          kind: body.kind,
          threshold: body.kind === 'savings-missed' ? body.threshold : null,
          clusterIds: body.clusterIds,
          channelIds: [...new Set(body.channelIds)],
          quietStart: body.quietHours?.start ?? null,
          quietEnd: body.quietHours?.end ?? null,
          timeZone: body.quietHours?.timeZone ?? 'UTC',
          enabled: body.enabled,
        });
        await recordAudit(tx, actor, {
          organizationId,
          action: 'alert_rule.create',
          targetType: 'alert_rule',
          targetId: created.id,
          details: { name: body.name, kind: body.kind, threshold: body.threshold, channels: body.channelIds.length },
        });
        return created;
      })
      .catch((error: unknown) => duplicateName(error, 'rule', body.name));
    return ruleView(row, 0);
  }

  async updateRule(
    organizationId: string,
    id: string,
    body: z.output<typeof UpdateRuleBody>,
    actor: AuditActor,
  ): Promise<RuleView> {
    const current = await ruleOf(this.prisma, organizationId, id);
    if (!current) throw notFound(`no alert rule ${id} in this organization`);
    if (current.kind === 'savings-missed' && body.threshold === null) {
      throw validationProblem([{ location: 'body', field: 'threshold', message: 'savings-missed needs a threshold' }]);
    }
    await this.checkRefs(organizationId, body.clusterIds, body.channelIds);
    const data: Record<string, unknown> = {};
    if (body.name !== undefined) data.name = body.name;
    if (body.threshold !== undefined && current.kind === 'savings-missed') data.threshold = body.threshold;
    if (body.clusterIds !== undefined) data.clusterIds = body.clusterIds;
    if (body.channelIds !== undefined) data.channelIds = [...new Set(body.channelIds)];
    if (body.enabled !== undefined) data.enabled = body.enabled;
    if (body.quietHours !== undefined) {
      data.quietStart = body.quietHours?.start ?? null;
      data.quietEnd = body.quietHours?.end ?? null;
      data.timeZone = body.quietHours?.timeZone ?? 'UTC';
    }
    const row = await this.prisma
      .$transaction(async (tx) => {
        const updated = await updateAlertRule(tx, id, data);
        await recordAudit(tx, actor, {
          organizationId,
          action: 'alert_rule.update',
          targetType: 'alert_rule',
          targetId: id,
          details: body,
        });
        return updated;
      })
      .catch((error: unknown) => duplicateName(error, 'rule', body.name));
    return ruleView(row, row._count.alerts);
  }

  async deleteRule(organizationId: string, id: string, actor: AuditActor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const deleted = await deleteAlertRule(tx, organizationId, id);
      if (!deleted) throw notFound(`no alert rule ${id} in this organization`);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'alert_rule.delete',
        targetType: 'alert_rule',
        targetId: id,
      });
    });
  }

  async listAlerts(organizationId: string, query: ListQuery): Promise<ListView<AlertView>> {
    const rows = await alertsOf(this.prisma, organizationId, query.state ?? 'all', query.limit);
    const items: AlertView[] = rows.map((row) => ({
      id: row.id,
      ruleId: row.ruleId,
      kind: row.kind,
      subject: row.subject,
      clusterId: row.clusterId,
      summary: row.summary,
      path: row.path,
      details: row.details as Record<string, unknown>,
      openedAt: row.openedAt.toISOString(),
      resolvedAt: row.resolvedAt?.toISOString() ?? null,
    }));
    return { items };
  }

  async listDeliveries(organizationId: string, query: ListQuery): Promise<ListView<DeliveryView>> {
    const rows = await deliveriesOf(this.prisma, organizationId, query.channelId, query.limit);
    return { items: rows.map(deliveryView) };
  }

  async delivery(organizationId: string, id: string): Promise<DeliveryView> {
    const row = await deliveryOf(this.prisma, organizationId, id);
    if (!row) throw notFound(`no alert delivery ${id} in this organization`);
    return deliveryView(row);
  }
}

function ruleView(
  row: {
    id: string;
    name: string;
    kind: string;
    threshold: number | null;
    clusterIds: string[];
    channelIds: string[];
    quietStart: string | null;
    quietEnd: string | null;
    timeZone: string;
    enabled: boolean;
    createdAt: Date;
    updatedAt: Date;
  },
  openAlerts: number,
): RuleView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as RuleView['kind'],
    threshold: row.threshold,
    clusterIds: row.clusterIds,
    channelIds: row.channelIds,
    quietHours:
      row.quietStart && row.quietEnd ? { start: row.quietStart, end: row.quietEnd, timeZone: row.timeZone } : null,
    enabled: row.enabled,
    openAlerts,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function deliveryView(row: {
  id: string;
  channelId: string;
  channel: { name: string };
  alertId: string | null;
  reportId: string | null;
  alertIds: string[];
  event: string;
  status: string;
  attempts: number;
  notBefore: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  sentAt: Date | null;
  createdAt: Date;
}): DeliveryView {
  return {
    id: row.id,
    channelId: row.channelId,
    channelName: row.channel.name,
    alertId: row.alertId,
    reportId: row.reportId,
    alertIds: row.alertIds,
    event: row.event as 'opened',
    status: row.status as 'pending',
    attempts: row.attempts,
    notBefore: row.notBefore?.toISOString() ?? null,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    sentAt: row.sentAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
