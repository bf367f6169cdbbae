import { randomBytes } from 'node:crypto';
import { createApiKey, ReadDb } from '@zw/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  createCluster,
  createTenant,
  postGraphQL,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { ProblemSchema } from '../src/http/schemas.js';

/**
 * Refused credentials are throttled per client address: a flood of random API keys costs Postgres at most
 * UNAUTHENTICATED_RATE_LIMIT_REQUESTS key lookups per window (counted on the read pool every key lookup
 * goes through), then answers 429 with Retry-After and the rate-limit fields, while valid keys and
 * tokens from the same address (other organizations' too, never seen by this process before) keep
 * working.
 */
const BUDGET = 20;
let stack: QueryStack;
let tenant: Tenant;
let cluster: { id: string; token: string };

beforeAll(async () => {
  stack = await startQueryStack('unauththrottle', { UNAUTHENTICATED_RATE_LIMIT_REQUESTS: String(BUDGET) });
  tenant = await createTenant(stack.prisma, 'throttle-org');
  // The cluster's agent pushes before anyone floods its address.
  cluster = await createCluster(stack.prisma, tenant, 'throttled-address');
  await pushSnapshot(stack.url, cluster.token, capturedAt(fleet(3, 2), new Date(Date.now() - 120_000)));
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

const randomKey = () => `zwk_${randomBytes(24).toString('base64url')}`;

describe('throttling of requests without a valid credential', () => {
  it('answers a random-key flood 429 with Retry-After after the budget, without looking the keys up', async () => {
    // The tenant's key is verified (and cached) before the flood: it keeps working from the same address.
    expect((await apiClient(stack.url, tenant.readKey).get('/v1/clusters')).status).toBe(200);
    const statements: string[] = [];
    const stop = stack.api.get(ReadDb).onQuery((query) => statements.push(query.text));
    const statuses: number[] = [];
    let lastRefusal: Awaited<ReturnType<ReturnType<typeof apiClient>['get']>> | undefined;
    try {
      // The budget's worth one by one, then the rest at once (refusals wait for one load of the prefixes).
      for (let i = 0; i < BUDGET; i++)
        statuses.push((await apiClient(stack.url, randomKey()).get('/v1/clusters')).status);
      const flood = await Promise.all(
        Array.from({ length: 200 - BUDGET }, () => apiClient(stack.url, randomKey()).get('/v1/clusters')),
      );
      statuses.push(...flood.map((answer) => answer.status));
      lastRefusal = flood.find((answer) => answer.status === 429);
      // GraphQL authenticates through the same path.
      const graphql = await postGraphQL(stack.url, randomKey(), { query: '{ fleet { clusters { id } } }' });
      expect(graphql.body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
      expect((await apiClient(stack.url, tenant.readKey).get('/v1/clusters')).status).toBe(200);
    } finally {
      stop();
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(BUDGET);
    expect(statuses.filter((status) => status === 429)).toHaveLength(200 - BUDGET);
    const keyLookups = statements.filter((text) => /FROM api_keys WHERE key_hash/.test(text));
    expect(keyLookups).toHaveLength(BUDGET);
    expect(lastRefusal!.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const retryAfter = Number(lastRefusal!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(lastRefusal!.headers.get('x-ratelimit-limit')).toBe(String(BUDGET));
    expect(lastRefusal!.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(lastRefusal!.headers.get('ratelimit-policy')).toBe(`"refused-credentials";q=${BUDGET};w=60`);
    expect(lastRefusal!.headers.get('ratelimit')).toBe(`"refused-credentials";r=0;t=${retryAfter}`);
    const problem = ProblemSchema.parse(lastRefusal!.body);
    expect(problem.detail).toMatch(/too many requests without a valid credential from this address/);
  });

  it("keeps answering other organizations' valid keys 200 during a bad-key flood from their address", async () => {
    // Another organization's keys, never used before (in no cache, created after the flood began), and one
    // created in the middle of it (as on another API process): each is looked up, and answered 200.
    const other = await createTenant(stack.prisma, 'same-nat-org');
    const statuses = { flood: [] as number[], valid: [] as number[] };
    for (let round = 0; round < 10; round++) {
      const keys = [other.readKey];
      if (round === 5) {
        const created = await createApiKey(stack.prisma, {
          organizationId: other.organizationId,
          name: 'new',
          role: 'viewer',
        });
        keys.push(created.key);
      }
      const [flood, valid] = await Promise.all([
        Promise.all(Array.from({ length: 5 }, () => apiClient(stack.url, randomKey()).get('/v1/fleet'))),
        Promise.all(keys.map((key) => apiClient(stack.url, key).get('/v1/fleet'))),
      ]);
      statuses.flood.push(...flood.map((answer) => answer.status));
      statuses.valid.push(...valid.map((answer) => answer.status));
    }
    expect(new Set(statuses.flood)).toEqual(new Set([429]));
    expect(statuses.valid).toEqual(Array<number>(11).fill(200));
  });

  it('answers requests without any key, and unknown agent tokens at ingest, 429 once the address is throttled', async () => {
    expect((await apiClient(stack.url, null).get('/v1/fleet')).status).toBe(429);
    const push = await fetch(`${stack.url}/v1/ingest/snapshots`, {
      method: 'POST',
      headers: {
        authorization: `Bearer zwa_${randomBytes(24).toString('base64url')}`,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(push.status).toBe(429);
    expect(Number(push.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // An agent whose token worked keeps pushing from the throttled address, and so does a new cluster's.
    const list = capturedAt(fleet(3, 2), new Date(Date.now() - 60_000));
    expect(await pushSnapshot(stack.url, cluster.token, list)).toMatch(/^[0-9a-f-]{36}$/);
    const newcomer = await createCluster(stack.prisma, tenant, 'joined-during-the-flood');
    expect(await pushSnapshot(stack.url, newcomer.token, list)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
