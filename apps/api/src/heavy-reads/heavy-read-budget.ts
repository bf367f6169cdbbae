import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type RedisClient, taggedKey } from '@zw/queue';
import { randomUUID } from 'node:crypto';
import { type RateLimitStanding, tooManyRequests } from '../auth/rate-limit-headers.js';
import type { ApiConfig } from '../config.js';
import { ProblemException } from '../problem.js';
import { API_REDIS } from '../redis.provider.js';
import { LocalSlots } from './local-slots.js';

/** SQLSTATE query_canceled: the statement timeout fired. */
const STATEMENT_TIMEOUT = '57014';
const SLOW_RETRY_AFTER_SECONDS = 30;
/** Longest a waiter sleeps between two looks at its organization's slots (a slot freed elsewhere). */
const POLL_MS = 25;
/** How long a waiter that vanished (its process died) keeps its place in line past its own wait. */
const LINE_MARGIN_MS = 5000;

/**
 * Takes a slot in the organization's holders (a sorted set: member → when its lease, or its rest, ends)
 * when fewer than the budget hold one and no one waits ahead in line (a sorted set by arrival); else
 * joins the line. Returns {1} or {0, ms until the earliest slot's lease or rest ends}.
 */
const ACQUIRE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local member, limit, lease, lineTtl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - lineTtl)
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if redis.call('ZCARD', KEYS[1]) < limit and (not head or head == member) then
  redis.call('ZADD', KEYS[1], now + lease, member)
  redis.call('ZREM', KEYS[2], member)
  redis.call('PEXPIRE', KEYS[1], lease)
  return {1, 0}
end
redis.call('ZADD', KEYS[2], 'NX', now, member)
redis.call('PEXPIRE', KEYS[2], lineTtl)
local earliest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if earliest[2] then return {0, tonumber(earliest[2]) - now} end
return {0, 0}`;

/** Frees a slot, or, while others wait in line, keeps it resting for ARGV[2] ms (its duty cycle). */
const RELEASE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
local rest = tonumber(ARGV[2])
if rest >= 1 and redis.call('ZCARD', KEYS[2]) > 0 then
  redis.call('ZADD', KEYS[1], 'XX', now + rest, ARGV[1])
  return 1
end
redis.call('ZREM', KEYS[1], ARGV[1])
return 0`;

/** Extends a running read's lease. */
const RENEW_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

interface BudgetCommander {
  zwHeavyAcquire(holders: string, line: string, ...args: string[]): Promise<[number, number]>;
  zwHeavyRelease(holders: string, line: string, ...args: string[]): Promise<number>;
  zwHeavyRenew(holders: string, line: string, ...args: string[]): Promise<number>;
}

/** A slot held for one heavy read; `release` gives it back, told how long the read ran. */
interface Slot {
  /** Resolves once the slot is free for the organization's next read, in every process. */
  release(busyMs: number): Promise<void>;
}

/**
 * A per-organization concurrency budget for heavy reads (savings over a range, reports, trends), held in
 * Redis so every API process draws on the same one: at most HEAVY_READS_PER_ORGANIZATION of one
 * organization run at once over the whole deployment; more wait in line (first come, first served) up to
 * HEAVY_READ_QUEUE_WAIT_MS, then answer 429 with `Retry-After` and the rate-limit fields. One organization
 * hammering savings therefore holds at most that many of the heavy-read pools' connections, and never
 * touches the read pool every other route uses.
 *
 * Decision: when more of an organization's heavy reads wait in line as one ends, its slot pauses before
 * the next starts, for as long as keeps the slot busy at most HEAVY_READ_DUTY_CYCLE of the time (0.5:
 * it rests as long as the read ran). Without it, an organization with a backlog of heavy reads kept a
 * database core busy all the time, and on a small database server (2 cores in the bench) another
 * organization's reads slowed by more than 3× while the first also pushed snapshots. A read with none
 * waiting behind it (a person's, or one client's one after another) never waits for the pause.
 *
 * Decision: a slot is a lease in a Redis sorted set (renewed while its read runs, so a process that dies
 * mid-read frees it within the lease), a rest is the same entry kept until the rest ends, and the line is
 * a sorted set by arrival; waiters look again every POLL_MS at most (at once when a read of the same
 * organization ends in their own process). Hand-written scripts, not a library: rate-limiter-flexible
 * counts requests per window, not reads running at once, and redis-semaphore's waiters poll in no order
 * (no first come, first served, so a waiter could be passed over until its wait ran out) and cannot see
 * who waits, which the rest depends on. Both keys of an organization share its hash tag (one cluster slot).
 *
 * Decision (Redis unavailable): fail open to this process's own budget (LocalSlots, the same rules in
 * memory): heavy reads need only Postgres, and N replicas then allow up to N × the budget.
 */
@Injectable()
export class HeavyReadBudget implements OnApplicationShutdown {
  private readonly logger = new Logger('HeavyReads');
  private readonly perOrganization: number;
  private readonly queueWaitMs: number;
  private readonly statementTimeoutMs: number;
  /** Pause after a heavy read, per ms it ran: (1 − duty cycle) / duty cycle. */
  private readonly restPerBusyMs: number;
  private readonly leaseMs: number;
  private readonly prefix: string;
  private readonly local: LocalSlots;
  /** Waiters of this process by organization: woken when a read of theirs ends here. */
  private readonly wakers = new Map<string, Set<() => void>>();
  private running = 0;
  private waiting = 0;

  constructor(
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
    @Inject(API_REDIS) private readonly redis: RedisClient,
  ) {
    this.perOrganization = config.get('HEAVY_READS_PER_ORGANIZATION', { infer: true });
    this.queueWaitMs = config.get('HEAVY_READ_QUEUE_WAIT_MS', { infer: true });
    this.statementTimeoutMs = config.get('HEAVY_READ_STATEMENT_TIMEOUT_MS', { infer: true });
    const dutyCycle = config.get('HEAVY_READ_DUTY_CYCLE', { infer: true });
    this.restPerBusyMs = (1 - dutyCycle) / dutyCycle;
    this.leaseMs = Math.max(30_000, 3 * this.statementTimeoutMs);
    this.prefix = config.get('QUEUE_PREFIX', { infer: true });
    this.local = new LocalSlots(this.perOrganization, this.queueWaitMs, this.restPerBusyMs);
    redis.defineCommand('zwHeavyAcquire', { numberOfKeys: 2, lua: ACQUIRE_SCRIPT });
    redis.defineCommand('zwHeavyRelease', { numberOfKeys: 2, lua: RELEASE_SCRIPT });
    redis.defineCommand('zwHeavyRenew', { numberOfKeys: 2, lua: RENEW_SCRIPT });
  }

  onApplicationShutdown(): void {
    for (const wakers of this.wakers.values()) for (const wake of wakers) wake();
  }

  /** Runs `work` inside the organization's budget (waiting for a slot, or 429). */
  async run<T>(organizationId: string, what: string, work: () => Promise<T>): Promise<T> {
    const slot = await this.acquire(organizationId, what);
    this.running++;
    const started = performance.now();
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: unknown }).code === STATEMENT_TIMEOUT) throw this.tooSlow(what);
      throw error;
    } finally {
      this.running--;
      // Awaited: a client's next read, sent once this one answered, must not find this slot still held.
      await slot.release(performance.now() - started);
    }
  }

  /** Heavy reads running and waiting in this process, over all organizations (for readiness and metrics). */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting };
  }

  private async acquire(organizationId: string, what: string): Promise<Slot> {
    this.waiting++;
    try {
      return await this.acquireShared(organizationId, what);
    } catch (error) {
      if (error instanceof ProblemException) throw error;
      this.logger.warn(`heavy-read budget: Redis does not answer, this process counts alone: ${String(error)}`);
      await this.local.acquire(organizationId, () => this.tooMany(what));
      return { release: async (busyMs) => this.local.release(organizationId, busyMs) };
    } finally {
      this.waiting--;
    }
  }

  private async acquireShared(organizationId: string, what: string): Promise<Slot> {
    const group = `heavy:${organizationId}`;
    const keys: [string, string] = [taggedKey(this.prefix, group, 'holders'), taggedKey(this.prefix, group, 'line')];
    const member = randomUUID();
    const lineTtl = String(this.queueWaitMs + LINE_MARGIN_MS);
    const deadline = Date.now() + this.queueWaitMs;
    for (;;) {
      const [granted, waitMs] = await this.commands.zwHeavyAcquire(
        ...keys,
        member,
        String(this.perOrganization),
        String(this.leaseMs),
        lineTtl,
      );
      if (granted === 1) return this.sharedSlot(organizationId, keys, member, lineTtl);
      const left = deadline - Date.now();
      if (left <= 0) {
        await this.redis.zrem(keys[1], member).catch(() => undefined);
        throw this.tooMany(what);
      }
      await this.sleep(organizationId, Math.min(left, POLL_MS, Math.max(1, waitMs)));
    }
  }

  private sharedSlot(organizationId: string, keys: [string, string], member: string, lineTtl: string): Slot {
    const renewer = setInterval(() => {
      this.commands.zwHeavyRenew(...keys, member, String(this.leaseMs)).catch(() => undefined);
    }, this.leaseMs / 3);
    renewer.unref();
    return {
      release: (busyMs) => {
        clearInterval(renewer);
        const restMs = Math.round(busyMs * this.restPerBusyMs);
        return this.commands
          .zwHeavyRelease(...keys, member, String(restMs), lineTtl)
          .then(
            () => undefined,
            () => undefined, // the lease frees it
          )
          .finally(() => {
            const wake = () => this.wake(organizationId);
            if (restMs >= 1) setTimeout(wake, restMs).unref();
            wake();
          });
      },
    };
  }

  private get commands(): BudgetCommander {
    return this.redis as unknown as BudgetCommander;
  }

  private sleep(organizationId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let wakers = this.wakers.get(organizationId);
      if (!wakers) this.wakers.set(organizationId, (wakers = new Set()));
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        if (wakers.size === 0) this.wakers.delete(organizationId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });
  }

  private wake(organizationId: string): void {
    for (const wake of [...(this.wakers.get(organizationId) ?? [])]) wake();
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
    const standing: RateLimitStanding = {
      policy: 'heavy-reads-per-organization',
      limit: this.perOrganization,
      concurrent: true,
      remaining: 0,
      resetSeconds: retryAfter,
      retryAfterSeconds: retryAfter,
    };
    return tooManyRequests(
      standing,
      `too many ${what} requests of this organization at once: at most ${this.perOrganization} run together, with a pause between those waiting in line (HEAVY_READ_DUTY_CYCLE), and this one waited ${this.queueWaitMs} ms`,
      { concurrentLimit: this.perOrganization },
    );
  }
}
