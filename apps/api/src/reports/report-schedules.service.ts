import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type AuditActor,
  createReportSchedule,
  deleteReportSchedule,
  NO_WEBHOOK_SECRET,
  organizationChannelIds,
  ownedClusterIds,
  type Prisma,
  PrismaService,
  recordAudit,
  reportScheduleNameOf,
  reportScheduleOf,
  scheduleViewOf,
  type ScheduleViewRow,
  scheduleViewsOf,
  scopeServiceCount,
  sealedWebhookSecretColumns,
  updateReportSchedule,
} from '@zw/db';
import {
  enqueueScheduleSync,
  REPORTS_QUEUE,
  type ReportsConfig,
  secretKeyringOf,
  tooManyServicesProblem,
} from '@zw/queue';
import {
  cronOfCadence,
  currentPeriod,
  nextOccurrence,
  previousPeriod,
  type ReportCadence,
  timingProblems,
  webhookUrlProblem,
} from '@zw/reports';
import type { SecretKeyring } from '@zw/secrets';
import type { Queue } from 'bullmq';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import { QueueAvailability } from '../http/queue-availability.js';
import { type FieldError, notFound, ProblemException, validationProblem } from '../problem.js';
import { REPORTS_CONFIG } from './reports-config.js';
import { ReportsService } from './reports.service.js';
import type {
  CreateScheduleBody,
  ListSchedulesQuery,
  RunScheduleBody,
  RunView,
  ScheduleAnswerView,
  ScheduleListView,
  ScheduleView,
  UpdateScheduleBody,
} from './reports.schemas.js';

type Scope = z.output<typeof CreateScheduleBody>['scope'];

/** Webhook secrets look like `zws_<43 base64url chars>`: 256 random bits. */
const WEBHOOK_SECRET_PREFIX = 'zws_';
const DISPLAY_PREFIX_LENGTH = WEBHOOK_SECRET_PREFIX.length + 6;

export function scheduleNotFound(id: string): ProblemException {
  return notFound(`no report schedule ${id} in your organization`);
}

function newWebhookSecret(): { secret: string; prefix: string } {
  const secret = WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export function scheduleView(row: ScheduleViewRow, now: Date): ScheduleView {
  const [last] = row.reports;
  return {
    id: row.id,
    name: row.name,
    cadence: row.cadence,
    cron: row.cronExpression,
    timeZone: row.timeZone,
    scope: { kind: row.clusterIds.length === 0 ? 'fleet' : 'clusters', clusterIds: row.clusterIds },
    formats: row.formats,
    webhook: row.webhookUrl ? { url: row.webhookUrl, secretPrefix: row.webhookSecretPrefix ?? '' } : null,
    channelIds: row.channelIds,
    enabled: row.enabled,
    nextRunAt: row.enabled
      ? (nextOccurrence({ cron: row.cronExpression, timeZone: row.timeZone }, now)?.toISOString() ?? null)
      : null,
    lastReport: last
      ? {
          id: last.id,
          periodStart: last.periodStart.toISOString(),
          periodEnd: last.periodEnd.toISOString(),
          status: last.status,
        }
      : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Report schedules of one organization. Every method takes the caller's organization: another
 * tenant's schedule id answers 404, and a scope may only name the caller's own clusters.
 */
@Injectable()
export class ReportSchedulesService {
  private readonly logger = new Logger('ReportSchedules');
  private parsedKeyring: SecretKeyring | undefined;

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(REPORTS_QUEUE) private readonly queue: Queue,
    @Inject(QueueAvailability) private readonly queueAvailability: QueueAvailability,
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    @Inject(ReportsService) private readonly reports: ReportsService,
  ) {}

  async create(
    organizationId: string,
    body: z.output<typeof CreateScheduleBody>,
    actor: AuditActor,
    now = new Date(),
  ): Promise<ScheduleAnswerView> {
    const cron = this.checkTiming(body.cadence, body.cron, body.timeZone, now);
    const clusterIds = await this.checkScope(organizationId, body.scope);
    const channelIds = await this.checkChannels(organizationId, body.channelIds);
    const webhookUrl = body.webhook ? this.checkWebhook(body.webhook.url) : null;
    const secret = webhookUrl ? newWebhookSecret() : null;
    const sealed = secret ? sealedWebhookSecretColumns(this.keyring('webhook'), secret.secret) : NO_WEBHOOK_SECRET;
    const id = await this.prisma.$transaction(async (tx) => {
      const created = await createReportSchedule(tx, {
        organizationId,
        name: body.name,
        cadence: body.cadence,
        cronExpression: cron,
        timeZone: body.timeZone,
        clusterIds,
        formats: body.formats,
        webhookUrl,
        ...sealed,
        webhookSecretPrefix: secret?.prefix ?? null,
        channelIds,
        enabled: body.enabled,
        anchorAt: now,
      });
      await recordAudit(tx, actor, {
        organizationId,
        action: 'report_schedule.create',
        targetType: 'report_schedule',
        targetId: created,
        details: { name: body.name, cadence: body.cadence, webhook: webhookUrl !== null, channels: channelIds.length },
      });
      return created;
    });
    await this.sync(id);
    return { schedule: await this.get(organizationId, id, now), webhookSecret: secret?.secret ?? null };
  }

  async list(
    organizationId: string,
    query: z.output<typeof ListSchedulesQuery>,
    now = new Date(),
  ): Promise<ScheduleListView> {
    const print = fingerprint(['report-schedules']);
    const after = decodeCursor(query.cursor, print);
    const rows = await scheduleViewsOf(this.prisma, organizationId, {
      after: after ? { createdAt: new Date(String(after.k[0])), id: String(after.k[1]) } : null,
      take: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      schedules: page.map((row) => scheduleView(row, now)),
      nextCursor:
        rows.length > query.limit ? encodeCursor({ f: print, k: [last.createdAt.toISOString(), last.id] }) : null,
    };
  }

  async get(organizationId: string, id: string, now = new Date()): Promise<ScheduleView> {
    return scheduleView(await this.row(organizationId, id), now);
  }

  /**
   * Changes a schedule. A new cadence, cron expression or time zone re-anchors it: periods are counted
   * from now on in the new rhythm (nothing is back-filled in it), and a period of the old rhythm that
   * ended while the worker was down is not made any more. Re-enabling a schedule re-anchors it too.
   */
  async update(
    organizationId: string,
    id: string,
    body: z.output<typeof UpdateScheduleBody>,
    actor: AuditActor,
    now = new Date(),
  ): Promise<ScheduleAnswerView> {
    const current = await reportScheduleOf(this.prisma, organizationId, id);
    if (!current) throw scheduleNotFound(id);
    const cadence = body.cadence ?? current.cadence;
    const timeZone = body.timeZone ?? current.timeZone;
    const cronInput = body.cron === undefined ? (cadence === 'cron' ? current.cronExpression : undefined) : body.cron;
    const cron = this.checkTiming(cadence, cronInput ?? undefined, timeZone, now);
    const retimed = cron !== current.cronExpression || timeZone !== current.timeZone;
    const data: Prisma.ReportScheduleUpdateInput = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(retimed || cadence !== current.cadence ? { cadence, cronExpression: cron, timeZone } : {}),
      // Re-enabled: the periods that ended while it was off are not made (only manual runs can).
      ...(retimed || (body.enabled === true && !current.enabled) ? { anchorAt: now } : {}),
      ...(body.scope !== undefined ? { clusterIds: await this.checkScope(organizationId, body.scope) } : {}),
      ...(body.formats !== undefined ? { formats: body.formats } : {}),
      ...(body.channelIds !== undefined
        ? { channelIds: await this.checkChannels(organizationId, body.channelIds) }
        : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
    };
    let secret: { secret: string; prefix: string } | null = null;
    if (body.webhook === null) {
      Object.assign(data, { webhookUrl: null, ...NO_WEBHOOK_SECRET, webhookSecretPrefix: null });
    } else if (body.webhook !== undefined || body.rotateWebhookSecret) {
      const url = body.webhook ? this.checkWebhook(body.webhook.url) : current.webhookUrl;
      if (!url) {
        throw validationProblem([
          { location: 'body', field: 'rotateWebhookSecret', message: 'this schedule has no webhook' },
        ]);
      }
      const hasSecret = current.webhookSecret !== null || current.webhookSecretSealed !== null;
      if (body.rotateWebhookSecret || !hasSecret) secret = newWebhookSecret();
      const field = body.rotateWebhookSecret ? 'rotateWebhookSecret' : 'webhook';
      Object.assign(data, {
        webhookUrl: url,
        ...(secret
          ? { ...sealedWebhookSecretColumns(this.keyring(field), secret.secret), webhookSecretPrefix: secret.prefix }
          : {}),
      });
    }
    await this.prisma.$transaction(async (tx) => {
      await updateReportSchedule(tx, id, data);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'report_schedule.update',
        targetType: 'report_schedule',
        targetId: id,
        // Which settings changed; a webhook's address and secret are not copied into the log.
        details: {
          name: current.name,
          fields: Object.keys(body).filter((field) => body[field as keyof typeof body] !== undefined),
        },
      });
    });
    await this.sync(id);
    return { schedule: await this.get(organizationId, id, now), webhookSecret: secret?.secret ?? null };
  }

  /** Deletes the schedule with its reports and deliveries; the worker drops its job scheduler. */
  async delete(organizationId: string, id: string, actor: AuditActor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const name = await reportScheduleNameOf(tx, organizationId, id);
      if (name === null) throw scheduleNotFound(id);
      await deleteReportSchedule(tx, id);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'report_schedule.delete',
        targetType: 'report_schedule',
        targetId: id,
        details: { name },
      });
    });
    await this.sync(id);
  }

  async run(
    organizationId: string,
    id: string,
    body: z.output<typeof RunScheduleBody>,
    actor: AuditActor,
    now = new Date(),
  ): Promise<RunView> {
    const schedule = await reportScheduleOf(this.prisma, organizationId, id);
    if (!schedule) throw scheduleNotFound(id);
    // The report is claimed and queued in the reports service's own transaction; the entry follows it.
    await recordAudit(this.prisma, actor, {
      organizationId,
      action: 'report_schedule.run',
      targetType: 'report_schedule',
      targetId: id,
      details: { name: schedule.name, period: body.period },
    });
    const timing = { cron: schedule.cronExpression, timeZone: schedule.timeZone };
    const period =
      body.period === 'previous' ? { ...previousPeriod(timing, now), partial: false } : currentPeriod(timing, now);
    return this.reports.claimAndEnqueue({
      organizationId,
      scheduleId: id,
      periodStart: period.start,
      periodEnd: period.end,
      partial: period.partial,
      formats: schedule.formats,
    });
  }

  private async row(organizationId: string, id: string): Promise<ScheduleViewRow> {
    const row = await scheduleViewOf(this.prisma, organizationId, id);
    if (!row) throw scheduleNotFound(id);
    return row;
  }

  private checkTiming(cadence: ReportCadence, cron: string | undefined, timeZone: string, now: Date): string {
    if (cadence !== 'cron' && cron !== undefined) {
      throw validationProblem([
        {
          location: 'body',
          field: 'cron',
          message: `only the \`cron\` cadence takes a cron expression (this one is ${cadence})`,
        },
      ]);
    }
    if (cadence === 'cron' && !cron) {
      throw validationProblem([{ location: 'body', field: 'cron', message: 'required with the `cron` cadence' }]);
    }
    const expression = cronOfCadence(cadence, cron);
    const problems = timingProblems(
      { cron: expression, timeZone },
      now,
      this.config.REPORT_MIN_INTERVAL_SECONDS * 1000,
    );
    if (problems.length > 0) {
      const field = problems[0].startsWith('unknown time zone') ? 'timeZone' : 'cron';
      throw validationProblem(problems.map((message) => ({ location: 'body', field, message })));
    }
    return expression;
  }

  /**
   * The scope's cluster ids, each one checked to be the caller's (any other id answers 404, whoever owns it),
   * and the Services they hold now within what one report covers (REPORT_MAX_SERVICES). A scope that grows
   * past it later fails its reports at once, saying the same.
   */
  private async checkScope(organizationId: string, scope: Scope): Promise<string[]> {
    const ids = await this.ownedScope(organizationId, scope);
    const services = await scopeServiceCount(this.prisma, organizationId, scope.kind === 'fleet' ? null : ids);
    if (services > this.config.REPORT_MAX_SERVICES) {
      throw validationProblem([
        {
          location: 'body',
          field: 'scope',
          message: tooManyServicesProblem(services, this.config.REPORT_MAX_SERVICES),
        },
      ]);
    }
    return ids;
  }

  private async ownedScope(organizationId: string, scope: Scope): Promise<string[]> {
    if (scope.kind === 'fleet') return [];
    const ids = [...new Set(scope.clusterIds)];
    const known = new Set(await ownedClusterIds(this.prisma, organizationId, ids));
    const errors: FieldError[] = scope.clusterIds.flatMap((clusterId, index) =>
      known.has(clusterId)
        ? []
        : [
            {
              location: 'body' as const,
              field: `scope.clusterIds.${index}`,
              message: `no cluster ${clusterId} in your organization`,
            },
          ],
    );
    if (errors.length > 0) throw new ProblemException(404, errors[0].message, { errors });
    return ids;
  }

  /** The channels, each one checked to be the caller's (any other id answers 404, whoever owns it). */
  private async checkChannels(organizationId: string, channelIds: string[]): Promise<string[]> {
    const ids = [...new Set(channelIds)];
    const known = new Set(await organizationChannelIds(this.prisma, organizationId, ids));
    const index = channelIds.findIndex((id) => !known.has(id));
    if (index === -1) return ids;
    const message = `no alert channel ${channelIds[index]} in your organization`;
    throw new ProblemException(404, message, {
      errors: [{ location: 'body', field: `channelIds.${index}`, message }],
    });
  }

  private checkWebhook(url: string): string {
    const problem = webhookUrlProblem(url, this.config.REPORT_WEBHOOK_ALLOW_PRIVATE);
    if (problem) throw validationProblem([{ location: 'body', field: 'webhook.url', message: problem }]);
    this.keyring('webhook');
    return url;
  }

  /** The keys webhook secrets are sealed with; a 400 on `field` when the deployment has none. */
  private keyring(field: string): SecretKeyring {
    this.parsedKeyring ??= secretKeyringOf(this.config) ?? undefined;
    if (!this.parsedKeyring) {
      throw validationProblem([
        {
          location: 'body',
          field,
          message:
            'this deployment stores no webhook secrets: its operator must set SECRET_ENCRYPTION_KEYS (or REPORT_WEBHOOK_ENCRYPTION_KEYS)',
        },
      ]);
    }
    return this.parsedKeyring;
  }

  /** Asks the worker to sync the schedule's job scheduler; its periodic sweep does it anyway if Redis is away. */
  private async sync(id: string): Promise<void> {
    try {
      // Redis away: BullMQ would hold the request for the whole outage; the sweep syncs it later.
      await this.queueAvailability.assertAvailable();
      await enqueueScheduleSync(this.queue, id);
    } catch (error) {
      this.logger.warn(`could not ask the worker to sync schedule ${id} (its sweep will): ${String(error)}`);
    }
  }
}
