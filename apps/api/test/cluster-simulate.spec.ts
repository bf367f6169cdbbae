import { analyzeSnapshot, applyWhatIf, parseSnapshot } from '@zw/core';
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
  waitProcessed,
} from '../../../test/support/query-api.js';
import { leakIn } from '../../../test/support/no-internals.js';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';

/** POST /v1/clusters/{id}/simulate: the what-ifs of /v1/simulate on the cluster's newest stored snapshot. */
describe('what-if on the newest stored snapshot', () => {
  let stack: QueryStack;
  let tenant: Tenant;
  let cluster: { id: string; token: string };
  let empty: { id: string; token: string };
  const list = capturedAt(fleet(12, 3, 4), new Date(Date.now() - 60_000));

  beforeAll(async () => {
    stack = await startQueryStack('csim');
    tenant = await createTenant(stack.prisma, 'csim');
    cluster = await createCluster(stack.prisma, tenant, 'sim-prod', { cloud: 'aws' });
    empty = await createCluster(stack.prisma, tenant, 'sim-empty');
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, list)]);
  });
  afterAll(() => stack?.stop());

  it('answers what the core answers for the same snapshot and what-if, for a read key', async () => {
    const local = analyzeSnapshot(parseSnapshot(list));
    const target = local.services.find((service) => service.hints.state === 'none')!;
    const whatIf = { enableRouting: [{ namespace: target.namespace, name: target.name, mode: 'Auto' }] };
    const expected = analyzeSnapshot(applyWhatIf(parseSnapshot(list), whatIf));
    const answer = await apiClient(stack.url, tenant.readKey).post(`/v1/clusters/${cluster.id}/simulate`, {
      whatIf,
      services: [{ namespace: target.namespace, name: target.name }],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.cluster).toEqual({ id: cluster.id, name: 'sim-prod' });
    expect(answer.body.capturedAt).toBe(list.metadata.annotations?.['zonewise.io/captured-at']);
    expect(answer.body.analysis.services).toHaveLength(1);
    const simulated = expected.services.find((s) => s.name === target.name && s.namespace === target.namespace)!;
    expect(answer.body.analysis.services[0].hints).toEqual(simulated.hints);
    expect(answer.body.analysis.services[0].zones).toEqual(JSON.parse(JSON.stringify(simulated.zones)));
    expect(answer.body.analysis.summary).toEqual(JSON.parse(JSON.stringify(expected.summary)));
  });

  it('without a what-if, analyzes the stored snapshot as it is', async () => {
    const answer = await apiClient(stack.url, tenant.readKey).post(`/v1/clusters/${cluster.id}/simulate`, {});
    expect(answer.status).toBe(200);
    const local = analyzeSnapshot(parseSnapshot(list));
    expect(answer.body.analysis.services).toHaveLength(local.services.length);
    expect(answer.body.analysis.summary.services).toEqual(local.summary.services);
  });

  it('names the problem: an unknown Service, a bad field, a cluster without snapshots', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const unknown = await client.post(`/v1/clusters/${cluster.id}/simulate`, {
      whatIf: { enableRouting: [{ namespace: 'nope', name: 'missing', mode: 'Auto' }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('whatIf.enableRouting[0]');
    const bad = await client.post(`/v1/clusters/${cluster.id}/simulate`, { whatIf: { teleport: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('teleport');
    const none = await client.post(`/v1/clusters/${empty.id}/simulate`, {});
    expect(none.status).toBe(409);
    expect(none.body.detail).toContain('no processed snapshot');
  });
});

/** GraphQL `clusterSimulation`: the same service, validation and problems as the REST route. */
describe('GraphQL clusterSimulation', () => {
  let stack: QueryStack;
  let tenant: Tenant;
  let other: Tenant;
  let cluster: { id: string; token: string };
  let empty: { id: string; token: string };
  const list = capturedAt(fleet(12, 3, 4), new Date(Date.now() - 60_000));
  const QUERY = `query ($id: ID!, $whatIf: WhatIfInput, $services: [ServiceRefInput!]) {
    clusterSimulation(id: $id, whatIf: $whatIf, services: $services) {
      clusterId clusterName snapshotId capturedAt
      summary { services { populated removed none } servicesWithDrift servicesWithIgnoredHints crossZone { withoutHints withHints } }
      services { namespace name routing hintState hintReason readyEndpoints crossZone { withoutHints withHints }
                 dataPath { honoursHints reason } zones { zone minimum maximum desired allocated expectedOverload } }
    }
  }`;
  const simulate = (key: string, variables: Record<string, unknown>) =>
    postGraphQL(stack.url, key, { query: QUERY, variables });

  beforeAll(async () => {
    stack = await startQueryStack('gqlsim');
    tenant = await createTenant(stack.prisma, 'gqlsim');
    other = await createTenant(stack.prisma, 'gqlsim-other');
    cluster = await createCluster(stack.prisma, tenant, 'gql-prod', { cloud: 'aws' });
    empty = await createCluster(stack.prisma, tenant, 'gql-empty');
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, list)]);
  });
  afterAll(() => stack?.stop());

  it("answers the REST route's analysis for the same what-if, for a read key, and charges its cost", async () => {
    const local = analyzeSnapshot(parseSnapshot(list));
    const target = local.services.find((service) => service.hints.state === 'none')!;
    const whatIf = { enableRouting: [{ namespace: target.namespace, name: target.name, mode: 'Auto' }] };
    const services = [{ namespace: target.namespace, name: target.name }];
    const rest = await apiClient(stack.url, tenant.readKey).post(`/v1/clusters/${cluster.id}/simulate`, {
      whatIf,
      services,
    });
    const answer = await simulate(tenant.readKey, { id: cluster.id, whatIf, services });
    expect(answer.body.errors).toBeUndefined();
    const simulation = answer.body.data.clusterSimulation;
    expect(simulation).toMatchObject({
      clusterId: cluster.id,
      clusterName: 'gql-prod',
      snapshotId: rest.body.snapshotId,
      capturedAt: rest.body.capturedAt,
    });
    const analysis = rest.body.analysis;
    expect(simulation.summary).toEqual({
      services: analysis.summary.services,
      servicesWithDrift: analysis.summary.servicesWithDrift,
      servicesWithIgnoredHints: analysis.summary.servicesWithIgnoredHints,
      crossZone: analysis.summary.crossZone,
    });
    const [service] = simulation.services;
    const expected = analysis.services[0];
    expect(simulation.services).toHaveLength(1);
    expect(service).toMatchObject({
      namespace: target.namespace,
      name: target.name,
      routing: 'Auto',
      hintState: expected.hints.state,
      hintReason: expected.hints.reason,
      readyEndpoints: expected.readyEndpoints,
      crossZone: expected.crossZone,
      dataPath: { honoursHints: expected.dataPath.honoursHints, reason: expected.dataPath.reason },
    });
    expect(service.zones.map((zone: { zone: string }) => zone.zone)).toEqual(Object.keys(expected.zones).sort());
    for (const zone of service.zones) expect(zone).toEqual({ zone: zone.zone, ...expected.zones[zone.zone] });
    // Its computed cost is charged to the key's rate limit, like every operation.
    const remaining = Number(answer.headers.get('x-ratelimit-remaining'));
    const again = await simulate(tenant.readKey, { id: cluster.id });
    expect(again.body.data.clusterSimulation.services).toHaveLength(local.services.length);
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBeLessThan(remaining);
  });

  it("answers NOT_FOUND for another organization's cluster, and names what is wrong with a what-if", async () => {
    const stolen = await simulate(other.readKey, { id: cluster.id });
    expect(stolen.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(stolen.body.data).toBeNull();

    const unknown = await simulate(tenant.readKey, {
      id: cluster.id,
      whatIf: { enableRouting: [{ namespace: 'nope', name: 'missing', mode: 'Auto' }] },
    });
    expect(unknown.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 400 });
    expect(unknown.body.errors?.[0].message).toContain('whatIf.enableRouting[0]');

    const none = await simulate(tenant.readKey, { id: empty.id });
    expect(none.body.errors?.[0].extensions).toMatchObject({ status: 409 });
    expect(none.body.errors?.[0].message).toContain('no processed snapshot');

    const badId = await simulate(tenant.readKey, { id: 'not-a-uuid' });
    expect(badId.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(badId.body.errors?.[0].message).toContain('id');
  });

  it('refuses hostile input with a clear message and no stack: wrong types, unknown modes, huge what-ifs', async () => {
    const wrongType = await simulate(tenant.readKey, {
      id: cluster.id,
      whatIf: { scaleReplicas: [{ namespace: 'a', name: 'b', zone: 'z', delta: 'two' }] },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors?.[0].message).toMatch(/delta.*Int cannot represent non-integer value: "two"/);

    const badMode = await simulate(tenant.readKey, {
      id: cluster.id,
      whatIf: { enableRouting: [{ namespace: 'a', name: 'b', mode: 'Teleport' }] },
    });
    expect(badMode.status).toBe(400);
    expect(badMode.body.errors?.[0].message).toMatch(/Value "Teleport" does not exist in "RoutingMode" enum/);

    const huge = await simulate(tenant.readKey, {
      id: cluster.id,
      whatIf: { removeZoneNodes: Array.from({ length: 1001 }, () => ({ zone: 'z' })) },
    });
    expect(huge.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 400 });
    expect(huge.body.errors?.[0].message).toContain('whatIf.removeZoneNodes');

    const tooManyServices = await simulate(tenant.readKey, {
      id: cluster.id,
      services: Array.from({ length: 101 }, (_, i) => ({ namespace: 'a', name: `s${i}` })),
    });
    expect(tooManyServices.body.errors?.[0].message).toContain('services');
    for (const answer of [wrongType, badMode, huge, tooManyServices]) {
      expect(leakIn(JSON.stringify(answer.body))).toBeNull();
    }
  });
});
