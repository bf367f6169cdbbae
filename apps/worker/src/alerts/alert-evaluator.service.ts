import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type CreatedDelivery,
  enabledRules,
  evaluateRule,
  type EvaluationOutcome,
  organizationOfCluster,
  PrismaService,
  type RuleRow,
  SNAPSHOT_KINDS,
  unfinishedDeliveries,
} from '@zw/db';
import { quietHoursEnd } from '@zw/notify';
import { ALERTS_QUEUE, type AlertsConfig, enqueueAlertDelivery } from '@zw/queue';
import type { Queue } from 'bullmq';
import type { WorkerConfig } from '../config.js';
import { WORKER_CONFIG } from '../worker-config.token.js';
import { ALERTS_CONFIG } from './alerts-config.token.js';

/**
 * Evaluates the rules: over one cluster after each of its snapshots is recorded (the kinds a snapshot
 * changes), and over every cluster periodically (all kinds: agents go stale with time, traffic sources
 * fail between snapshots). The deliveries an evaluation creates are enqueued after its transaction
 * commits; one whose job is lost (a crash in between, Redis data lost) is re-enqueued by the sweep.
 */
@Injectable()
export class AlertEvaluator {
  private readonly logger = new Logger('AlertEvaluator');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @InjectQueue(ALERTS_QUEUE) private readonly queue: Queue,
    @Inject(ALERTS_CONFIG) private readonly config: AlertsConfig,
    @Inject(WORKER_CONFIG) private readonly worker: WorkerConfig,
  ) {}

  /** After a snapshot of `clusterId` was recorded. */
  async afterSnapshot(clusterId: string, now = new Date()): Promise<EvaluationOutcome> {
    const organizationId = await organizationOfCluster(this.prisma, clusterId);
    if (organizationId === null) return { opened: 0, resolved: 0, deliveries: [] };
    const rules = await enabledRules(this.prisma, organizationId, SNAPSHOT_KINDS);
    return this.evaluate(rules, clusterId, now);
  }

  /** Every enabled rule over all its clusters, then re-enqueues deliveries whose jobs may be lost. */
  async sweep(now = new Date()): Promise<EvaluationOutcome & { requeued: number }> {
    const outcome = await this.evaluate(await enabledRules(this.prisma, null), undefined, now);
    const stuck = await unfinishedDeliveries(this.prisma, new Date(now.getTime() - this.config.ALERT_SWEEP_GRACE_MS));
    await this.enqueue(stuck);
    return { ...outcome, requeued: stuck.length };
  }

  private async evaluate(rules: RuleRow[], clusterId: string | undefined, now: Date): Promise<EvaluationOutcome> {
    const total: EvaluationOutcome = { opened: 0, resolved: 0, deliveries: [] };
    for (const rule of rules) {
      const outcome = await evaluateRule(this.prisma, rule, {
        clusterId,
        now,
        staleAfterSeconds: this.worker.STALE_AFTER_SECONDS,
        notBefore: (one, at) => quietHoursEnd(at, one.quietStart, one.quietEnd, one.timeZone),
      });
      total.opened += outcome.opened;
      total.resolved += outcome.resolved;
      total.deliveries.push(...outcome.deliveries);
      await this.enqueue(outcome.deliveries);
    }
    if (total.opened + total.resolved > 0) {
      this.logger.log(
        `alerts: ${total.opened} opened, ${total.resolved} resolved, ${total.deliveries.length} deliveries`,
      );
    }
    return total;
  }

  async enqueue(deliveries: CreatedDelivery[]): Promise<void> {
    for (const delivery of deliveries) await enqueueAlertDelivery(this.queue, delivery, this.config);
  }
}
