import { randomBytes } from 'node:crypto';
import { ReadDb } from '@zw/db';
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
 * Requests without a valid credential are throttled per client address before any database lookup: a
 * flood of random API keys costs Postgres at most UNAUTHENTICATED_RATE_LIMIT_REQUESTS key lookups per
 * window (counted on the read pool every key lookup goes through), then answers 429 with Retry-After.
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
      for (let i = 0; i < 200; i++) {
        const answer = await apiClient(stack.url, randomKey()).get('/v1/clusters');
        statuses.push(answer.status);
        if (answer.status === 429) lastRefusal = answer;
      }
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
    expect(Number(lastRefusal!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const problem = ProblemSchema.parse(lastRefusal!.body);
    expect(problem.detail).toMatch(/too many requests without a valid credential from this address/);
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
    // An agent whose token worked keeps pushing from the throttled address.
    const list = capturedAt(fleet(3, 2), new Date(Date.now() - 60_000));
    expect(await pushSnapshot(stack.url, cluster.token, list)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
