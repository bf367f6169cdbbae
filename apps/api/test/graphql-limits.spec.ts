import { type ExecutedQuery, createApiKey, ReadDb } from '@zw/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../src/http-app.js';
import {
  createCluster,
  createTenant,
  type GraphQLAnswer,
  postGraphQL,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';

/**
 * Hostile GraphQL: alias, depth and cost bombs, huge documents and variables, batches, introspection and
 * GET are refused with a clear error, before any SQL runs; a query's cost is charged to its key's rate limit.
 */

let stack: QueryStack;
let tenant: Tenant;

const LIMITS = {
  GRAPHQL_MAX_DEPTH: '8',
  GRAPHQL_MAX_ALIASES: '10',
  GRAPHQL_MAX_COST: '5000',
  GRAPHQL_COST_PER_REQUEST: '100',
  GRAPHQL_MAX_TOKENS: '1000',
  GRAPHQL_MAX_VARIABLES_BYTES: '1024',
  RATE_LIMIT_REQUESTS: '60',
};

const post = (key: string | null, body: unknown, url = stack.url) => postGraphQL(url, key, body);

const graphql = (key: string | null, query: string, variables: Record<string, unknown> = {}) =>
  post(key, { query, variables });

/** Statements the API's read pool ran (authentication and every resolver read through it). */
async function sqlDuring(work: () => Promise<unknown>): Promise<ExecutedQuery[]> {
  const seen: ExecutedQuery[] = [];
  const stop = stack.api.get(ReadDb).onQuery((query) => seen.push(query));
  try {
    await work();
  } finally {
    stop();
  }
  return seen;
}

/** A key never used before, so its verification is not cached: any SQL would show. */
async function freshKey(name: string): Promise<string> {
  return (await createApiKey(stack.prisma, { organizationId: tenant.organizationId, name, role: 'viewer' })).key;
}

/** A second API process on the same database with other settings. */
async function withApi(settings: Record<string, string>, work: (url: string) => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
  Object.assign(process.env, settings);
  const api = await createApiApp({ logger: ['error'] });
  try {
    await api.listen(0, '127.0.0.1');
    await work((await api.getUrl()).replace('[::1]', '127.0.0.1'));
  } finally {
    await api.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** An operation spreading F0, which spreads F1 … F(length-1). */
const chain = (length: number) =>
  `query { ...F0 } ${Array.from({ length }, (_, i) =>
    i < length - 1 ? `fragment F${i} on Query { ...F${i + 1} }` : `fragment F${i} on Query { fleet { generatedAt } }`,
  ).join(' ')}`;

/** Each fragment spreading the next twice: 2^levels copies of the innermost selection once expanded. */
const bomb = (levels: number) =>
  `query { ...F0 } ${Array.from({ length: levels }, (_, i) =>
    i < levels - 1
      ? `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`
      : `fragment F${i} on Query { fleet { generatedAt } }`,
  ).join(' ')}`;

const SERVICES_PAGE = (first: string) => `
  fleet { clusters { services(first: ${first}) { nodes { name namespace monthly { withHints { cost crossZoneGb } }
    timeline { changes entries { from hintState routing } } } } } }`;

beforeAll(async () => {
  stack = await startQueryStack('qgqllimits', LIMITS);
  tenant = await createTenant(stack.prisma, 'gql-limits');
  const cluster = await createCluster(stack.prisma, tenant, 'prod');
  await waitProcessed(stack.prisma, [
    await pushSnapshot(stack.url, cluster.token, capturedAt(fleet(6, 3, 7), new Date(Date.now() - 60_000))),
  ]);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GraphQL limits', () => {
  it('refuses a cost bomb before any SQL runs, naming its cost and the limit', async () => {
    const key = await freshKey('cost-bomb');
    let answer!: GraphQLAnswer;
    const sql = await sqlDuring(async () => (answer = await graphql(key, `{ ${SERVICES_PAGE('500')} }`)));
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0].message).toMatch(/query too costly: its computed cost is \d+, at most 5000/);
    expect(answer.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', maxCost: 5000 });
    expect(answer.body.data).toBeUndefined();
    expect(sql).toEqual([]);
    // The same page, small enough, answers.
    const small = await graphql(key, `{ ${SERVICES_PAGE('5')} }`);
    expect(small.body.errors).toBeUndefined();
    expect(small.body.data.fleet.clusters[0].services.nodes).toHaveLength(5);
  });

  it('prices a page size given as a variable like a literal one', async () => {
    const key = await freshKey('cost-variable');
    const query = `query Page($n: Int) { fleet { clusters { services(first: $n) { nodes { name
      timeline { changes entries { from hintState routing } } monthly { withHints { cost crossZoneGb } } } } } } }`;
    let answer!: GraphQLAnswer;
    const sql = await sqlDuring(async () => (answer = await graphql(key, query, { n: 500 })));
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0].message).toMatch(/query too costly/);
    expect(sql).toEqual([]);
    expect((await graphql(key, query, { n: 3 })).body.errors).toBeUndefined();
  });

  it('refuses alias and depth bombs and huge documents while validating them, before any SQL', async () => {
    const key = await freshKey('bombs');
    const aliases = `{ ${Array.from({ length: 40 }, (_, i) => `f${i}: fleet { generatedAt }`).join(' ')} }`;
    const huge = `{ fleet { ${'generatedAt '.repeat(5000)} } }`;
    const answers: GraphQLAnswer[] = [];
    const sql = await sqlDuring(async () => {
      for (const query of [aliases, huge]) answers.push(await graphql(key, query));
    });
    expect(sql, JSON.stringify(answers.map((a) => a.body))).toEqual([]);
    const [aliasBomb, hugeDocument] = answers;
    expect(aliasBomb.status).toBe(400);
    expect(aliasBomb.body.errors?.[0].message).toMatch(/Aliases limit of 10 exceeded, found 40/);
    expect(hugeDocument.status).toBe(400);
    expect(hugeDocument.body.errors?.[0].message).toMatch(/Document contains more th(an|at) 1000 tokens/);
  });

  it('refuses fragment chains of 100, 300 and 1,000 and fragment bombs of 2^25 and 2^30 with a 400 naming the limit, before any SQL, in bounded memory', async () => {
    const shapes = [chain(100), chain(300), chain(1000), bomb(25), bomb(30)];
    const heapBefore = process.memoryUsage().heapUsed;
    // With this file's limits the token limit (1,000) refuses the longer chains; either limit is named.
    const answers: GraphQLAnswer[] = [];
    const sql = await sqlDuring(async () => {
      for (const query of shapes)
        answers.push(...(await Promise.all([null, tenant.readKey].map((key) => graphql(key, query)))));
    });
    expect(sql).toEqual([]);
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.errors?.[0].message).toMatch(
        /^(fragments nested too deep: a chain of \d+ fragment spreads, at most 8 \(GRAPHQL_MAX_DEPTH\)|Syntax Error: Document contains more th(an|at) 1000 tokens)/,
      );
    }
    // With room for 100,000 tokens every shape meets the fragment limit, 40 of each at once, without a key.
    await withApi({ GRAPHQL_MAX_TOKENS: '100000' }, async (url) => {
      for (const [query, nesting] of [
        [chain(100), 100],
        [chain(300), 300],
        [chain(1000), 1000],
        [bomb(25), 25],
        [bomb(30), 30],
      ] as const) {
        const parallel = await Promise.all(Array.from({ length: 40 }, () => post(null, { query }, url)));
        for (const answer of parallel) {
          expect(answer.status).toBe(400);
          expect(answer.body.errors).toEqual([
            {
              message: `fragments nested too deep: a chain of ${nesting} fragment spreads, at most 8 (GRAPHQL_MAX_DEPTH)`,
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', fragmentNesting: nesting, maxFragmentNesting: 8 },
            },
          ]);
        }
      }
    });
    // A bomb of 2^30 expanded would take gigabytes; refused, it takes what parsing its text does.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(256 * 1024 * 1024);
  });

  it('refuses a bomb within the fragment limit by its cost, even a cost past exact numbers', async () => {
    // Ten levels, each spreading the next 50 times: 50^9 copies of the innermost selection.
    const wide = `query { ...F0 } ${Array.from({ length: 10 }, (_, i) =>
      i < 9
        ? `fragment F${i} on Query { ${Array.from({ length: 50 }, () => `...F${i + 1}`).join(' ')} }`
        : `fragment F${i} on Query { fleet { generatedAt } }`,
    ).join(' ')}`;
    await withApi({ GRAPHQL_MAX_TOKENS: '100000', GRAPHQL_MAX_DEPTH: '12' }, async (url) => {
      const answer = await post(null, { query: wide }, url);
      expect(answer.status).toBe(400);
      expect(answer.body.errors?.[0].message).toBe(
        `query too costly: its computed cost is more than ${Number.MAX_SAFE_INTEGER}, at most 5000 (ask for fewer fields, less nesting or smaller pages)`,
      );
      expect(answer.body.errors?.[0].extensions).toMatchObject({ cost: null, maxCost: 5000 });
      const chained = await post(null, { query: chain(10) }, url);
      expect(chained.status).toBe(400);
      expect(chained.body.errors?.[0].message).toMatch(/^query too costly: its computed cost is \d+, at most 5000/);
    });
  });

  it('refuses a query nested deeper than GRAPHQL_MAX_DEPTH', async () => {
    await withApi({ GRAPHQL_MAX_DEPTH: '4' }, async (url) => {
      const deep = await post(tenant.readKey, { query: `{ ${SERVICES_PAGE('2')} }` }, url);
      expect(deep.status).toBe(400);
      expect(deep.body.errors?.[0].message).toMatch(/Query depth limit of 4 exceeded/);
      const shallow = await post(tenant.readKey, { query: '{ fleet { clusters { lastSnapshot { stale } } } }' }, url);
      expect(shallow.body.errors).toBeUndefined();
    });
  });

  it('refuses oversized variables (413) and batched requests', async () => {
    const key = await freshKey('variables');
    const query =
      'query Q($ns: String) { fleet { clusters { services(namespace: $ns, first: 1) { nodes { name } } } } }';
    const big = await graphql(key, query, { ns: 'x'.repeat(5000) });
    expect(big.status, JSON.stringify(big.body)).toBe(413);
    expect(big.body.errors?.[0].message).toMatch(/GraphQL variables are too large: \d+ bytes, at most 1024/);
    const huge = await post(key, { query: `{ fleet { generatedAt } } # ${'x'.repeat(2 * 1024 * 1024)}` });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ status: 413, detail: 'request body is too large' });
    const notAQuery = await post(key, { query: 5 });
    expect(notAQuery.status).toBe(400);
    const batch = await post(key, [{ query: '{ fleet { generatedAt } }' }, { query: '{ fleet { generatedAt } }' }]);
    expect(batch.status).toBe(400);
    expect(JSON.stringify(batch.body)).toMatch(/batching/i);
  });

  it('answers introspection only to a valid key', async () => {
    const query = '{ __schema { queryType { name } } }';
    const anonymous = await graphql(null, query);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors?.[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(anonymous.body.errors?.[0].extensions).not.toHaveProperty('http');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="zonewise"');
    expect(anonymous.body.data).toBeUndefined();
    const wrongKey = await graphql('zwk_this-is-not-a-key-of-anybody-at-all', query);
    expect(wrongKey.status).toBe(401);
    const allowed = await graphql(tenant.readKey, query);
    expect(allowed.body.data.__schema.queryType.name).toBe('Query');
  });

  it('refuses introspection to everyone with GRAPHQL_INTROSPECTION=off', async () => {
    await withApi({ GRAPHQL_INTROSPECTION: 'off' }, async (url) => {
      const answer = await post(tenant.readKey, { query: '{ __schema { queryType { name } } }' }, url);
      expect(answer.status).toBe(400);
      expect(answer.body.errors?.[0].message).toMatch(/introspection/i);
      expect((await post(tenant.readKey, { query: '{ fleet { generatedAt } }' }, url)).body.errors).toBeUndefined();
    });
  });

  it("charges a query's cost to its key's rate limit, and says so in X-RateLimit headers", async () => {
    const key = await freshKey('charged');
    const cheap = await graphql(key, '{ fleet { generatedAt } }');
    expect(cheap.headers.get('x-ratelimit-limit')).toBe('60');
    expect(cheap.headers.get('x-ratelimit-remaining')).toBe('59');
    // ~1,900 cost at 100 a request: about 19 requests' worth.
    const costly = await graphql(key, `{ ${SERVICES_PAGE('6')} }`);
    expect(costly.body.errors).toBeUndefined();
    const charged = 59 - Number(costly.headers.get('x-ratelimit-remaining'));
    expect(charged).toBeGreaterThan(5);
    let refused: GraphQLAnswer | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const answer = await graphql(key, `{ ${SERVICES_PAGE('6')} }`);
      if (answer.status === 429) refused = answer;
    }
    expect(refused, 'the key ran out of its window').toBeDefined();
    expect(refused!.body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', limit: 60 });
    expect(refused!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused!.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused!.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refused!.headers.get('ratelimit-policy')).toMatch(/^"api-key";q=60;w=\d+$/);
    expect(refused!.headers.get('ratelimit')).toMatch(/^"api-key";r=0;t=\d+$/);
  });

  it('answers GET /graphql with 405 naming the POST endpoint', async () => {
    const response = await fetch(`${stack.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const body = (await response.json()) as { detail: string };
    expect(body.detail).toMatch(/POST \/graphql/);
  });

  it('shows stack traces only with NODE_ENV=development, and the suites catch any that leaks', async () => {
    await withApi({ NODE_ENV: 'development' }, async (url) => {
      // test/support/no-internals.ts checks every error answer of every suite: this one fails the request.
      await expect(post(tenant.readKey, { query: '{ fleet { nope } }' }, url)).rejects.toThrow(
        /answered 400 with a stack trace/,
      );
    });
  });

  it('never answers a stack trace or a server path', async () => {
    const key = await freshKey('errors');
    for (const query of [
      '{ fleet { nope } }',
      '{ fleet {',
      '{ cluster(id: "not-a-uuid") { id } }',
      'query { __typename',
    ]) {
      const answer = await graphql(key, query);
      expect(answer.body.errors?.length).toBeGreaterThan(0);
      for (const error of answer.body.errors ?? []) expect(error.extensions).not.toHaveProperty('stacktrace');
    }
  });
});
