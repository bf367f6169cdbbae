import { analyzeSnapshot, applyWhatIf, parseSnapshot } from '@zw/core';
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
