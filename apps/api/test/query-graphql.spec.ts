import { type ExecutedQuery, ReadDb } from '@zw/db';
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
import { withServiceAnnotations } from '../../../test/support/query-snapshots.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { ServiceListSchema } from '../src/services/services.schemas.js';
import { ZonesSchema } from '../src/services/cluster-state.schemas.js';

/**
 * GraphQL at /graphql: the dashboard's fleet page (fleet → clusters → services → timeline, zones, CIDRs,
 * savings) answers the same data as REST, in a handful of SQL statements whatever the number of clusters
 * and Services (DataLoader batching), counted at the read pool.
 */

let stack: QueryStack;
let small: Tenant;
let large: Tenant;
const MINUTE = 60_000;
const T0 = Date.now() - 2 * 3600_000;

const FLEET_PAGE = `
  query FleetPage {
    fleet {
      generatedAt
      clusters {
        id name cloud asOf
        hintStates { populated removed none }
        lastSnapshot { ageSeconds stale }
        monthly { withHints { crossZoneGb cost } missedSavings { cost } pricing { pricePerGb source } }
        zones { name cpuShare readyEndpoints hintedEndpoints expectedOverload { max servicesAboveThreshold } }
        serviceCidrs { cidr utilization size risks { ip } wellKnown { ip free } }
        savings { withHints { cost } realizedSavings { cost } missedSavings { cost } services }
        services(first: 5) {
          asOf nextCursor
          nodes {
            namespace name routing hintState hintReason
            monthly { withHints { cost } inputs { trafficSource estimate } }
            zones { zone allocated expectedOverload }
            timeline { changes hintStateChanges flapping entries { from hintState } }
          }
        }
      }
    }
  }`;

async function graphql(key: string | null, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${stack.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: any[] } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Statements the API's read pool ran while `work` ran. */
async function countQueries(work: () => Promise<unknown>): Promise<ExecutedQuery[]> {
  const seen: ExecutedQuery[] = [];
  const stop = stack.api.get(ReadDb).onQuery((query) => seen.push(query));
  try {
    await work();
  } finally {
    stop();
  }
  return seen;
}

async function tenantWithClusters(slug: string, count: number): Promise<Tenant> {
  const tenant = await createTenant(stack.prisma, slug);
  const ids: string[] = [];
  for (let c = 0; c < count; c++) {
    const cluster = await createCluster(stack.prisma, tenant, `cluster-${c}`, { cloud: c % 2 ? 'gcp' : 'aws' });
    const base = fleet(8 + c, 4, 100 + c);
    // Two snapshots, so timelines have something to show.
    const changed = withServiceAnnotations(base, (_, i) => i % 3 === 0, {
      'service.kubernetes.io/topology-mode': 'Auto',
    });
    ids.push(await pushSnapshot(stack.url, cluster.token, capturedAt(base, new Date(T0))));
    ids.push(await pushSnapshot(stack.url, cluster.token, capturedAt(changed, new Date(T0 + MINUTE))));
  }
  await waitProcessed(stack.prisma, ids, 60_000);
  return tenant;
}

beforeAll(async () => {
  stack = await startQueryStack('qgraphql');
  small = await tenantWithClusters('small', 3);
  large = await tenantWithClusters('large', 9);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GraphQL /graphql', () => {
  it('answers the fleet page with the same data as REST', async () => {
    const answer = await graphql(small.readKey, FLEET_PAGE);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const clusters = answer.body.data.fleet.clusters;
    expect(clusters).toHaveLength(3);
    const rest = apiClient(stack.url, small.readKey);
    const restFleet = (await rest.get('/v1/fleet')).body;
    for (const cluster of clusters) {
      const restCluster = restFleet.clusters.find((c: { id: string }) => c.id === cluster.id);
      expect(cluster.hintStates).toEqual(restCluster.services);
      expect(cluster.monthly.withHints).toEqual(restCluster.monthly.withHints);
      const restServices = ServiceListSchema.parse(
        (await rest.get(`/v1/clusters/${cluster.id}/services?limit=5`)).body,
      );
      expect(cluster.services.asOf).toBe(restServices.asOf);
      expect(
        cluster.services.nodes.map((n: { namespace: string; name: string }) => `${n.namespace}/${n.name}`),
      ).toEqual(restServices.services.map((s) => `${s.namespace}/${s.name}`));
      expect(cluster.services.nodes.map((n: { monthly: unknown }) => n.monthly)).toEqual(
        restServices.services.map((s) => ({
          withHints: { cost: s.monthly.withHints.cost },
          inputs: { trafficSource: s.monthly.inputs.trafficSource, estimate: s.monthly.inputs.estimate },
        })),
      );
      expect(cluster.services.nodes.some((n: { timeline: { changes: number } }) => n.timeline.changes > 0)).toBe(true);
      const restZones = ZonesSchema.parse((await rest.get(`/v1/clusters/${cluster.id}/zones`)).body);
      expect(cluster.zones.map((z: { name: string; readyEndpoints: number }) => [z.name, z.readyEndpoints])).toEqual(
        restZones.zones.map((z) => [z.name, z.readyEndpoints]),
      );
      expect(cluster.serviceCidrs[0].cidr).toBe('10.96.0.0/12');
    }
  });

  it("pages a cluster's Services exactly as the REST listing does, cursors included", async () => {
    const [first] = (await graphql(small.readKey, FLEET_PAGE)).body.data.fleet.clusters;
    const query = `query Page($id: ID!, $after: String) {
      cluster(id: $id) { services(first: 4, after: $after, sort: cost) { asOf nextCursor nodes { namespace name monthly { withHints { cost } } } } }
    }`;
    const names: string[] = [];
    let after: string | null = null;
    do {
      const answer = await graphql(small.readKey, query, { id: first.id, after });
      expect(answer.body.errors).toBeUndefined();
      const page = answer.body.data.cluster.services;
      names.push(...page.nodes.map((n: { namespace: string; name: string }) => `${n.namespace}/${n.name}`));
      after = page.nextCursor;
    } while (after);
    const rest = ServiceListSchema.parse(
      (await apiClient(stack.url, small.readKey).get(`/v1/clusters/${first.id}/services?sort=cost&limit=500`)).body,
    );
    expect(names).toEqual(rest.services.map((s) => `${s.namespace}/${s.name}`));
  });

  it('needs a handful of SQL statements for the fleet page, however many clusters and Services it shows', async () => {
    await graphql(small.readKey, FLEET_PAGE); // the API key is verified (and remembered) here
    await graphql(large.readKey, FLEET_PAGE);
    const smallQueries = await countQueries(() => graphql(small.readKey, FLEET_PAGE));
    const largeQueries = await countQueries(async () => {
      const answer = await graphql(large.readKey, FLEET_PAGE);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data.fleet.clusters).toHaveLength(9);
      const nodes = answer.body.data.fleet.clusters.flatMap(
        (c: { services: { nodes: unknown[] } }) => c.services.nodes,
      );
      expect(nodes).toHaveLength(45);
    });
    // fleet, Services of every cluster, timelines of every Service, zone+CIDR documents, savings.
    expect(largeQueries.length, largeQueries.map((q) => q.text.slice(0, 60)).join('\n')).toBeLessThanOrEqual(6);
    expect(largeQueries.length).toBe(smallQueries.length);
  });

  it("refuses unauthenticated requests and scopes every query to the caller's organization", async () => {
    const anonymous = await graphql(null, '{ fleet { clusters { id } } }');
    // Refused before anything resolves: a request error (HTTP 401), no data at all.
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors?.[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    expect(anonymous.body.data).toBeUndefined();
    const [theirs] = (await graphql(large.readKey, '{ fleet { clusters { id } } }')).body.data.fleet.clusters;
    const stolen = await graphql(
      small.readKey,
      `{ cluster(id: "${theirs.id}") { id name services { nodes { name } } } }`,
    );
    expect(stolen.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(stolen.body.data).toBeNull();
    const bad = await graphql(
      small.readKey,
      `
        {
          fleet {
            clusters {
              services(first: 0) {
                nodes {
                  name
                }
              }
            }
          }
        }
      `,
    );
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(bad.body.errors?.[0].message).toMatch(/"first"/);
  });
});
