import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';

/** SQLSTATE query_canceled: the statement timeout fired. */
const STATEMENT_TIMEOUT = '57014';
const SLOW_RETRY_AFTER_SECONDS = 30;

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

interface OrganizationSlots {
  running: number;
  /** Slots pausing after a heavy read (HEAVY_READ_DUTY_CYCLE), not yet free for the next. */
  resting: number;
  waiting: Waiter[];
}

/**
 * A per-organization concurrency budget for heavy reads (savings over a range, and anything else that
 * scans history): at most HEAVY_READS_PER_ORGANIZATION of one organization run at once; more wait in
 * line up to HEAVY_READ_QUEUE_WAIT_MS, then answer 429 with `Retry-After`. One organization hammering
 * savings therefore holds at most that many of the heavy-read pool's connections, and never touches the
 * read pool every other route uses.
 *
 * Decision: per API process, in memory (like the rate limits): with N replicas an organization may run
 * N × the budget; the heavy-read pool and its statement timeout bound each process either way.
 *
 * Decision: when more of an organization's heavy reads wait in line as one ends, its slot pauses before
 * the next starts, for as long as keeps the slot busy at most HEAVY_READ_DUTY_CYCLE of the time (0.5:
 * it rests as long as the read ran). Without it, an organization with a backlog of heavy reads kept a
 * database core busy all the time, and on a small database server (2 cores in the bench) another
 * organization's reads slowed by more than 3× while the first also pushed snapshots. A read with none
 * waiting behind it (a person's, or one client's one after another) never waits for the pause.
 */
@Injectable()
export class HeavyReadBudget {
  private readonly slots = new Map<string, OrganizationSlots>();
  private readonly perOrganization: number;
  private readonly queueWaitMs: number;
  private readonly statementTimeoutMs: number;
  /** Pause after a heavy read, per ms it ran: (1 − duty cycle) / duty cycle. */
  private readonly restPerBusyMs: number;

  constructor(@Inject(ConfigService) config: ConfigService<ApiConfig, true>) {
    this.perOrganization = config.get('HEAVY_READS_PER_ORGANIZATION', { infer: true });
    this.queueWaitMs = config.get('HEAVY_READ_QUEUE_WAIT_MS', { infer: true });
    this.statementTimeoutMs = config.get('HEAVY_READ_STATEMENT_TIMEOUT_MS', { infer: true });
    const dutyCycle = config.get('HEAVY_READ_DUTY_CYCLE', { infer: true });
    this.restPerBusyMs = (1 - dutyCycle) / dutyCycle;
  }

  /** Runs `work` inside the organization's budget (waiting for a slot, or 429). */
  async run<T>(organizationId: string, what: string, work: () => Promise<T>): Promise<T> {
    await this.acquire(organizationId, what);
    const started = performance.now();
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: unknown }).code === STATEMENT_TIMEOUT) throw this.tooSlow(what);
      throw error;
    } finally {
      this.release(organizationId, performance.now() - started);
    }
  }

  /** Heavy reads running and waiting, over all organizations (for readiness and metrics). */
  load(): { running: number; waiting: number } {
    let running = 0;
    let waiting = 0;
    for (const slots of this.slots.values()) {
      running += slots.running;
      waiting += slots.waiting.length;
    }
    return { running, waiting };
  }

  private acquire(organizationId: string, what: string): Promise<void> {
    let slots = this.slots.get(organizationId);
    if (!slots) {
      slots = { running: 0, resting: 0, waiting: [] };
      this.slots.set(organizationId, slots);
    }
    if (slots.running + slots.resting < this.perOrganization) {
      slots.running++;
      return Promise.resolve();
    }
    const line = slots;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          line.waiting.splice(line.waiting.indexOf(waiter), 1);
          reject(this.tooMany(what));
        }, this.queueWaitMs),
      };
      line.waiting.push(waiter);
    });
  }

  /** Hands the slot to the next in line (after its pause for `busyMs`), or frees it. */
  private release(organizationId: string, busyMs: number): void {
    const slots = this.slots.get(organizationId);
    if (!slots) return;
    slots.running--;
    const restMs = busyMs * this.restPerBusyMs;
    if (slots.waiting.length === 0 || restMs < 1) return this.handOver(organizationId, slots);
    slots.resting++;
    setTimeout(() => {
      slots.resting--;
      this.handOver(organizationId, slots);
    }, restMs).unref();
  }

  private handOver(organizationId: string, slots: OrganizationSlots): void {
    const next = slots.waiting.shift();
    if (next) {
      slots.running++;
      return next.admit();
    }
    if (slots.running + slots.resting === 0) this.slots.delete(organizationId);
  }

  private tooSlow(what: string): ProblemException {
    return new ProblemException(
      503,
      `the ${what} query took longer than HEAVY_READ_STATEMENT_TIMEOUT_MS (${this.statementTimeoutMs} ms) and was stopped; retry later or ask for a shorter range`,
      { retryAfterSeconds: SLOW_RETRY_AFTER_SECONDS },
      { 'Retry-After': String(SLOW_RETRY_AFTER_SECONDS) },
    );
  }

  private tooMany(what: string): ProblemException {
    const retryAfter = Math.max(1, Math.ceil(this.queueWaitMs / 1000));
    return new ProblemException(
      429,
      `too many ${what} requests of this organization at once: at most ${this.perOrganization} run together, with a pause between those waiting in line (HEAVY_READ_DUTY_CYCLE), and this one waited ${this.queueWaitMs} ms; retry in ${retryAfter} s`,
      { concurrentLimit: this.perOrganization, retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}
