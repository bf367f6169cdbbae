import { ConfigService } from '@nestjs/config';
import { PrismaService, ReadDb } from '@zw/db';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../../test/support/redis.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import type { ApiConfig } from '../src/config.js';
import { HeavyReadBudget } from '../src/heavy-reads/heavy-read-budget.js';
import { HEAVY_READ_DB } from '../src/heavy-reads/heavy-read-db.provider.js';
import { ProblemSchema } from '../src/http/schemas.js';
import { ProblemException } from '../src/problem.js';

/**
 * Limits on heavy reads and honest readiness: one organization flooding savings gets 429 with
 * Retry-After once its concurrency budget is used, while another organization's reads answer; /readyz
 * reports saturation (requests waiting for a read-pool connection, event-loop delay), not only reachability.
 */
let stack: QueryStack;
let flooder: Tenant;
let bystander: Tenant;
let bystanderCluster: { id: string; token: string };

beforeAll(async () => {
  stack = await startQueryStack('heavyreads', {
    HEAVY_READS_PER_ORGANIZATION: '1',
    HEAVY_READ_QUEUE_WAIT_MS: '0',
    // No pause after a heavy read here: with no wait in line, a read right after another would be refused.
    HEAVY_READ_DUTY_CYCLE: '1',
    HEAVY_READ_STATEMENT_TIMEOUT_MS: '2000',
    READ_POOL_MAX: '1',
    READY_MAX_POOL_WAITING: '1',
    QUERY_CACHE_TTL_MS: '0',
  });
  flooder = await createTenant(stack.prisma, 'flooder');
  bystander = await createTenant(stack.prisma, 'bystander');
  const floodCluster = await createCluster(stack.prisma, flooder, 'flood');
  bystanderCluster = await createCluster(stack.prisma, bystander, 'calm');
  const at = new Date(Date.now() - 3600_000);
  await waitProcessed(stack.prisma, [
    await pushSnapshot(stack.url, floodCluster.token, capturedAt(fleet(60, 3, 5), at)),
    await pushSnapshot(stack.url, bystanderCluster.token, capturedAt(fleet(20, 3, 6), at)),
  ]);
}, 90_000);

const connections: Redis[] = [];

afterAll(async () => {
  for (const redis of connections) redis.disconnect();
  await stack?.stop();
});

describe('the per-organization heavy-read budget', () => {
  it('admits an organization’s heavy reads up to its budget, queues the next briefly, then refuses; others run', async () => {
    const budget = budgetOf({
      HEAVY_READS_PER_ORGANIZATION: 1,
      HEAVY_READ_QUEUE_WAIT_MS: 500,
      HEAVY_READ_DUTY_CYCLE: 1,
    });
    const gates: (() => void)[] = [];
    const held = () => new Promise<string>((resolve) => gates.push(() => resolve('done')));
    // A slot that frees within the wait goes to the first in line.
    const first = budget.run('org-a', 'savings', held);
    await waitFor('the first read to hold the slot', async () => gates.length === 1);
    const queued = budget.run('org-a', 'savings', async () => 'queued ran');
    await waitFor('the second read to wait in line', async () => budget.load().waiting === 1);
    expect(budget.load()).toEqual({ running: 1, waiting: 1 });
    setTimeout(() => gates[0](), 20);
    expect(await first).toBe('done');
    expect(await queued).toBe('queued ran');
    // A slot that stays taken past the wait: 429 with Retry-After.
    const second = budget.run('org-a', 'savings', held);
    await waitFor('the third read to hold the slot', async () => gates.length === 2);
    const refused = budget.run('org-a', 'savings', async () => 'never');
    // Another organization is not held up by org-a's full budget.
    expect(await budget.run('org-b', 'savings', async () => 'org-b ran')).toBe('org-b ran');
    const error = await refused.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemException);
    expect((error as ProblemException).getStatus()).toBe(429);
    expect((error as ProblemException).headers['Retry-After']).toBe('1');
    expect((error as ProblemException).headers['RateLimit-Policy']).toBe(
      '"heavy-reads-per-organization";q=1;qu="concurrent-requests"',
    );
    gates[1]();
    expect(await second).toBe('done');
    expect(budget.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('pauses an organization’s slot between heavy reads waiting in line, for its duty cycle; a lone read never waits', async () => {
    const budget = budgetOf({
      HEAVY_READS_PER_ORGANIZATION: 1,
      HEAVY_READ_QUEUE_WAIT_MS: 1000,
      HEAVY_READ_DUTY_CYCLE: 0.5,
    });
    const order: string[] = [];
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const read = (name: string, ms: number) => async () => {
      order.push(`${name} started`);
      await pause(ms);
      order.push(`${name} ended`);
      return performance.now();
    };
    // a2 waits in line behind a1: the slot rests as long as a1 ran before a2 starts, while another
    // organization's read runs at once.
    let secondStarted = 0;
    const [firstEnded] = await Promise.all([
      budget.run('org-a', 'savings', read('a1', 60)).then(async (ended) => {
        await budget.run('org-b', 'savings', read('b1', 1));
        return ended;
      }),
      budget.run('org-a', 'savings', async () => {
        secondStarted = performance.now();
        return read('a2', 1)();
      }),
    ]);
    expect(secondStarted - firstEnded).toBeGreaterThanOrEqual(50);
    expect(order).toEqual(['a1 started', 'a1 ended', 'b1 started', 'b1 ended', 'a2 started', 'a2 ended']);

    // Nothing waited behind c1: the next read runs at once (with no wait in line allowed, a pause would be a 429).
    const lone = budgetOf({ HEAVY_READS_PER_ORGANIZATION: 1, HEAVY_READ_QUEUE_WAIT_MS: 0, HEAVY_READ_DUTY_CYCLE: 0.5 });
    await lone.run('org-a', 'savings', read('c1', 30));
    expect(await lone.run('org-a', 'savings', async () => 'at once')).toBe('at once');
    expect(lone.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('is one budget for every API process: a read held in one makes another process’s wait, then run', async () => {
    const config = configOf({
      HEAVY_READS_PER_ORGANIZATION: 1,
      HEAVY_READ_QUEUE_WAIT_MS: 2000,
      HEAVY_READ_DUTY_CYCLE: 1,
    });
    const [here, there] = [budgetOf({}, config), budgetOf({}, config)];
    let release!: () => void;
    const held = here.run('org-a', 'savings', () => new Promise<void>((resolve) => (release = resolve)));
    await waitFor('the read to hold the slot', async () => here.load().running === 1);
    const order: string[] = [];
    const waiting = there.run('org-a', 'savings', async () => order.push('there ran'));
    await waitFor('the other process to wait in line', async () => there.load().waiting === 1);
    order.push('here ended');
    release();
    await held;
    await waiting;
    expect(order).toEqual(['here ended', 'there ran']);
    // With no wait allowed, the other process's read is refused while the slot is held.
    const strictConfig = configOf({
      HEAVY_READS_PER_ORGANIZATION: 1,
      HEAVY_READ_QUEUE_WAIT_MS: 0,
      HEAVY_READ_DUTY_CYCLE: 1,
    });
    const [strict, twin] = [budgetOf({}, strictConfig), budgetOf({}, strictConfig)];
    let unblock!: () => void;
    const holding = strict.run('org-a', 'savings', () => new Promise<void>((resolve) => (unblock = resolve)));
    await waitFor('the read to hold the slot', async () => strict.load().running === 1);
    const refusal = await twin.run('org-a', 'savings', async () => 'never').catch((caught: unknown) => caught);
    expect((refusal as ProblemException).getStatus()).toBe(429);
    unblock();
    await holding;
    expect(await twin.run('org-a', 'savings', async () => 'after')).toBe('after');
  });

  it('answers an organization flooding savings 429 with Retry-After while another organization’s reads succeed', async () => {
    const flood = apiClient(stack.url, flooder.readKey);
    const calm = apiClient(stack.url, bystander.readKey);
    const [floodAnswers, calmAnswers] = await Promise.all([
      Promise.all(Array.from({ length: 24 }, () => flood.get('/v1/savings?groupBy=service'))),
      Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          calm.get(
            i % 2 ? `/v1/clusters/${bystanderCluster.id}/zones` : `/v1/clusters/${bystanderCluster.id}/services`,
          ),
        ),
      ),
    ]);
    const statuses = floodAnswers.map((answer) => answer.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    const refusal = floodAnswers.find((answer) => answer.status === 429)!;
    expect(Number(refusal.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(ProblemSchema.parse(refusal.body).detail).toMatch(/too many savings requests of this organization at once/);
    expect(calmAnswers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    // The other organization's savings has its own budget.
    expect((await calm.get('/v1/savings?groupBy=service')).status).toBe(200);
  });
});

describe('the heavy-read pool', () => {
  it('runs each statement without parallel workers, the regular read pool as configured', async () => {
    const setting = async (db: ReadDb) =>
      (await db.query<{ value: string }>('SELECT current_setting($1) AS value', ['max_parallel_workers_per_gather']))[0]
        .value;
    expect(await setting(stack.api.get<ReadDb>(HEAVY_READ_DB))).toBe('0');
    expect(await setting(stack.api.get(ReadDb))).not.toBe('0');
  });

  it('compiles no statement with JIT, on every pool the API opens', async () => {
    const jit = async (db: ReadDb) =>
      (await db.query<{ value: string }>('SELECT current_setting($1) AS value', ['jit']))[0].value;
    expect(await jit(stack.api.get<ReadDb>(HEAVY_READ_DB))).toBe('off');
    expect(await jit(stack.api.get(ReadDb))).toBe('off');
    const [prisma] = await stack.api.get(PrismaService).$queryRaw<
      { value: string }[]
    >`SELECT current_setting('jit') AS value`;
    expect(prisma.value).toBe('off');
  });

  it('prepares each statement once per connection, named by its text hash', async () => {
    const listing = 'SELECT name, statement FROM pg_prepared_statements';
    const prepared = async (db: ReadDb) => db.query<{ name: string; statement: string }>(listing);
    const heavy = await prepared(stack.api.get<ReadDb>(HEAVY_READ_DB));
    const itself = heavy.find((statement) => statement.statement === listing);
    expect(itself?.name).toMatch(/^zw_[0-9a-f]{32}$/);
    expect((await prepared(stack.api.get<ReadDb>(HEAVY_READ_DB))).filter((s) => s.statement === listing)).toHaveLength(
      1,
    );
    expect(await prepared(stack.api.get(ReadDb))).toEqual([]);
  });
});

describe('the heavy-read statement timeout', () => {
  it('stops a savings query that runs past it and answers 503 with Retry-After', async () => {
    // Hold the intervals so the savings statement cannot finish: its statement timeout stops it.
    const holder = new pg.Client({ connectionString: stack.db.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE service_intervals IN ACCESS EXCLUSIVE MODE');
    try {
      const answer = await apiClient(stack.url, bystander.readKey).get('/v1/savings');
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(ProblemSchema.parse(answer.body).detail).toMatch(/savings query took longer than/);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect((await apiClient(stack.url, bystander.readKey).get('/v1/savings')).status).toBe(200);
  });
});

describe('/readyz', () => {
  it('answers 503 "saturated" while requests wait for a read-pool connection, and 200 once they drain', async () => {
    // The flood above may have delayed the event loop (API and worker share this process): let it settle.
    await waitFor('readiness', async () => (await apiClient(stack.url, null).get('/readyz')).status === 200, 20_000);
    // Hold the Services table so the one read-pool connection waits on it, and requests line up behind it.
    const holder = new pg.Client({ connectionString: stack.db.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE cluster_services IN ACCESS EXCLUSIVE MODE');
    const calm = apiClient(stack.url, bystander.readKey);
    const waiting = Array.from({ length: 4 }, () => calm.get(`/v1/clusters/${bystanderCluster.id}/services`));
    try {
      // However slowly a loaded machine delivers the four requests, they keep waiting while the lock holds.
      const ready = await waitFor('requests lined up for the read pool', async () => {
        const answer = await apiClient(stack.url, null).get('/readyz');
        const load = (answer.body as { load?: { readPool?: { waiting?: number } } }).load;
        return (load?.readPool?.waiting ?? 0) > 1 && answer;
      });
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('5');
      expect(ProblemSchema.parse(ready.body).detail).toMatch(/saturated: \d+ requests wait for a read-pool connection/);
      expect((ready.body as { load: { readPool: { waiting: number } } }).load.readPool.waiting).toBeGreaterThan(1);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect((await Promise.all(waiting)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect((await apiClient(stack.url, null).get('/readyz')).status).toBe(200);
  });

  it('answers 503 "saturated" when the event loop is delayed', async () => {
    // The API runs in this process: holding this event loop holds the API's. The readiness figure is the
    // p99 of the delay samples in a 5 s window (the worse of the last and the current one), and a free
    // loop takes a sample every 10 ms while a stall yields one: four stalls in a window already half full
    // of free samples fell under its top 1 % (one CI run answered 200). Stalls that outlast a whole
    // window fill one of the two windows the figure reads, wherever its boundary falls.
    for (let i = 0; i < 9; i++) {
      const blockedUntil = Date.now() + 700;
      while (Date.now() < blockedUntil);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ready = await apiClient(stack.url, null).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ProblemSchema.parse(ready.body).detail).toMatch(/saturated: event-loop delay \d+ ms/);
  });
});

/** The settings as Nest's ConfigService serves them. */
function configOf(values: Record<string, number>): ConfigService<ApiConfig, true> {
  return new ConfigService({ QUEUE_PREFIX: uniquePrefix('heavybudget'), ...values }) as ConfigService<ApiConfig, true>;
}

/** A budget as an API process holds it: on its own connection to the real Redis. */
function budgetOf(values: Record<string, number>, config = configOf(values)): HeavyReadBudget {
  const redis = new Redis(TEST_REDIS_URL);
  connections.push(redis);
  return new HeavyReadBudget(config, redis);
}
