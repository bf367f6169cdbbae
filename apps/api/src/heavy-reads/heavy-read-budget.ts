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
 */
@Injectable()
export class HeavyReadBudget {
  private readonly slots = new Map<string, OrganizationSlots>();
  private readonly perOrganization: number;
  private readonly queueWaitMs: number;
  private readonly statementTimeoutMs: number;

  constructor(@Inject(ConfigService) config: ConfigService<ApiConfig, true>) {
    this.perOrganization = config.get('HEAVY_READS_PER_ORGANIZATION', { infer: true });
    this.queueWaitMs = config.get('HEAVY_READ_QUEUE_WAIT_MS', { infer: true });
    this.statementTimeoutMs = config.get('HEAVY_READ_STATEMENT_TIMEOUT_MS', { infer: true });
  }

  /** Runs `work` inside the organization's budget (waiting for a slot, or 429). */
  async run<T>(organizationId: string, what: string, work: () => Promise<T>): Promise<T> {
    await this.acquire(organizationId, what);
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: unknown }).code === STATEMENT_TIMEOUT) throw this.tooSlow(what);
      throw error;
    } finally {
      this.release(organizationId);
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
      slots = { running: 0, waiting: [] };
      this.slots.set(organizationId, slots);
    }
    if (slots.running < this.perOrganization) {
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

  /** Hands the slot to the next in line, or frees it. */
  private release(organizationId: string): void {
    const slots = this.slots.get(organizationId);
    if (!slots) return;
    const next = slots.waiting.shift();
    if (next) return next.admit();
    slots.running--;
    if (slots.running === 0) this.slots.delete(organizationId);
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
      `too many ${what} requests of this organization at once: at most ${this.perOrganization} run together, and this one waited ${this.queueWaitMs} ms; retry in ${retryAfter} s`,
      { concurrentLimit: this.perOrganization, retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}
