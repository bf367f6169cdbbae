import {
  analyzeSnapshot,
  DATA_PLANE_ANNOTATION,
  DATA_PLANE_NAMES,
  KUBERNETES_VERSION_ANNOTATION,
  type KubernetesList,
  parseSnapshot,
} from '@zw/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
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
import { AuditLogSchema } from '../src/audit/audit-log.schemas.js';
import { ClusterSchema } from '../src/clusters/clusters.schemas.js';
import { ProblemSchema } from '../src/http/schemas.js';
import { ServiceDetailSchema } from '../src/services/services.schemas.js';

/**
 * Per-cluster overrides of the Kubernetes version and data plane, through the real API, worker, Postgres
 * and Redis: validation, scopes and tenancy of `PATCH /v1/clusters/{id}`, the audit log, the cluster reads
 * (REST and GraphQL), and the worker analysing each snapshot with the override in place of what the
 * agent reported (also when the snapshot repeats an earlier one's input), and the API's live views (the
 * Service detail's kube-proxy view, what-ifs) reading the stored payload with the overrides of now.
 */

let stack: QueryStack;
let acme: Tenant;
let globex: Tenant;

beforeAll(async () => {
  stack = await startQueryStack('overrides');
  acme = await createTenant(stack.prisma, 'acme');
  globex = await createTenant(stack.prisma, 'globex');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

function expectProblem(answer: { status: number; body: unknown }, status: number, detail: RegExp) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  const problem = ProblemSchema.parse(answer.body);
  expect(problem.detail).toMatch(detail);
  return problem;
}

/** A snapshot as the agent sends it: captured at `at`, with these List annotations. */
function agentSnapshot(at: Date, annotations: Record<string, string> = {}): KubernetesList {
  const list = capturedAt(fleet(4, 3, 21), at);
  return { ...list, metadata: { annotations: { ...list.metadata.annotations, ...annotations } } };
}

async function settingsAfter(clusterId: string, snapshotId: string) {
  await waitProcessed(stack.prisma, [snapshotId]);
  const answer = await apiClient(stack.url, acme.readKey).get(`/v1/clusters/${clusterId}`);
  expect(answer.status).toBe(200);
  return ClusterSchema.parse(answer.body).analysisSettings;
}

describe('PATCH /v1/clusters/{id} overrides', () => {
  it('sets and clears the Kubernetes version and data plane, audited like every admin write', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const { id } = await createCluster(stack.prisma, acme, 'edge-1');
    const set = await admin.patch(`/v1/clusters/${id}`, { kubernetesVersion: '1.31', dataPlane: 'cilium-no-topology' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(ClusterSchema.parse(set.body)).toMatchObject({
      kubernetesVersion: '1.31',
      dataPlane: 'cilium-no-topology',
      analysisSettings: null,
    });
    const list = await apiClient(stack.url, acme.readKey).get('/v1/clusters');
    expect(list.body.clusters.find((cluster: { id: string }) => cluster.id === id)).toMatchObject({
      kubernetesVersion: '1.31',
      dataPlane: 'cilium-no-topology',
    });

    const cleared = await admin.patch(`/v1/clusters/${id}`, { dataPlane: null });
    expect(ClusterSchema.parse(cleared.body)).toMatchObject({ kubernetesVersion: '1.31', dataPlane: null });

    const audit = AuditLogSchema.parse((await admin.get('/v1/audit-log?limit=50')).body).entries.filter(
      (entry) => entry.action === 'cluster.update' && entry.target.id === id,
    );
    expect(audit.map((entry) => entry.details).reverse()).toEqual([
      {
        name: 'edge-1',
        changes: {
          kubernetesVersion: { from: null, to: '1.31' },
          dataPlane: { from: null, to: 'cilium-no-topology' },
        },
      },
      { name: 'edge-1', changes: { dataPlane: { from: 'cilium-no-topology', to: null } } },
    ]);
  });

  it('accepts every data plane name, and overrides at creation too', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const created = await admin.post('/v1/clusters', {
      name: 'mesh-1',
      kubernetesVersion: '1.33',
      dataPlane: 'linkerd',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.cluster).toMatchObject({ kubernetesVersion: '1.33', dataPlane: 'linkerd' });
    for (const name of DATA_PLANE_NAMES) {
      const answer = await admin.patch(`/v1/clusters/${created.body.cluster.id}`, { dataPlane: name });
      expect(answer.status, name).toBe(200);
    }
  });

  it('answers 400 naming the field for a version that is not MAJOR.MINOR or an unknown data plane', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const { id } = await createCluster(stack.prisma, acme, 'edge-2');
    for (const kubernetesVersion of ['1.31.4', 'v1.31', '1', '1.031', 131, '']) {
      const problem = expectProblem(
        await admin.patch(`/v1/clusters/${id}`, { kubernetesVersion }),
        400,
        /kubernetesVersion/,
      );
      expect(problem.errors?.[0]).toMatchObject({ location: 'body', field: 'kubernetesVersion' });
    }
    const plane = expectProblem(await admin.patch(`/v1/clusters/${id}`, { dataPlane: 'flannel' }), 400, /dataPlane/);
    expect(plane.errors?.[0].message).toContain('cilium-no-topology');
    expectProblem(
      await admin.post('/v1/clusters', { name: 'bad', kubernetesVersion: 'latest' }),
      400,
      /kubernetesVersion/,
    );
    // Nothing was changed by the refused requests.
    expect((await admin.get(`/v1/clusters/${id}`)).body).toMatchObject({ kubernetesVersion: null, dataPlane: null });
  });

  it('is refused to read keys (403) and to other organizations (404)', async () => {
    const { id } = await createCluster(stack.prisma, acme, 'edge-3');
    expect((await apiClient(stack.url, acme.readKey).patch(`/v1/clusters/${id}`, { dataPlane: 'cilium' })).status).toBe(
      403,
    );
    expectProblem(
      await apiClient(stack.url, globex.adminKey).patch(`/v1/clusters/${id}`, { dataPlane: 'cilium' }),
      404,
      /no cluster/,
    );
    expect((await stack.prisma.cluster.findUniqueOrThrow({ where: { id } })).dataPlane).toBeNull();
  });
});

describe('the worker applies overrides', () => {
  it('analyses with the override in place of what the agent reported, and says where each setting came from', async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const cluster = await createCluster(stack.prisma, acme, 'versions');
    const start = Date.now() - 10 * 60_000;
    const reported = { [KUBERNETES_VERSION_ANNOTATION]: '1.35', [DATA_PLANE_ANNOTATION]: 'kube-proxy' };

    const first = await pushSnapshot(stack.url, cluster.token, agentSnapshot(new Date(start), reported));
    expect(await settingsAfter(cluster.id, first)).toMatchObject({
      kubernetesVersion: '1.35',
      kubernetesVersionSource: 'snapshot',
      dataPlane: 'kube-proxy',
      dataPlaneSource: 'snapshot',
    });

    // The same cluster state again, after an override: not recorded as a repeat of the first analysis.
    expect(
      (await admin.patch(`/v1/clusters/${cluster.id}`, { kubernetesVersion: '1.31', dataPlane: 'cilium-no-topology' }))
        .status,
    ).toBe(200);
    const second = await pushSnapshot(stack.url, cluster.token, agentSnapshot(new Date(start + 60_000), reported));
    expect(await settingsAfter(cluster.id, second)).toEqual({
      asOf: new Date(start + 60_000).toISOString(),
      kubernetesVersion: '1.31',
      kubernetesVersionSource: 'override',
      dataPlane: 'cilium-no-topology',
      dataPlaneSource: 'override',
    });

    // Unchanged overrides and input: the repeat keeps them.
    const third = await pushSnapshot(stack.url, cluster.token, agentSnapshot(new Date(start + 120_000), reported));
    expect(await settingsAfter(cluster.id, third)).toMatchObject({
      kubernetesVersionSource: 'override',
      dataPlaneSource: 'override',
    });

    // One override cleared: the agent's report counts again for it.
    await admin.patch(`/v1/clusters/${cluster.id}`, { kubernetesVersion: null });
    const fourth = await pushSnapshot(stack.url, cluster.token, agentSnapshot(new Date(start + 180_000), reported));
    expect(await settingsAfter(cluster.id, fourth)).toMatchObject({
      kubernetesVersion: '1.35',
      kubernetesVersionSource: 'snapshot',
      dataPlane: 'cilium-no-topology',
      dataPlaneSource: 'override',
    });

    // Over GraphQL, the same.
    const graphql = await postGraphQL(stack.url, acme.readKey, {
      query: `{ cluster(id: "${cluster.id}") { kubernetesVersion dataPlane
                analysisSettings { asOf kubernetesVersion kubernetesVersionSource dataPlane dataPlaneSource } } }`,
    });
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.body.data.cluster).toEqual({
      kubernetesVersion: null,
      dataPlane: 'cilium-no-topology',
      analysisSettings: {
        asOf: new Date(start + 180_000).toISOString(),
        kubernetesVersion: '1.35',
        kubernetesVersionSource: 'snapshot',
        dataPlane: 'cilium-no-topology',
        dataPlaneSource: 'override',
      },
    });
  }, 60_000);

  it('a snapshot without the annotations and no override is analysed with the defaults', async () => {
    const cluster = await createCluster(stack.prisma, acme, 'defaults');
    const pushed = await pushSnapshot(stack.url, cluster.token, agentSnapshot(new Date(Date.now() - 60_000)));
    const settings = await settingsAfter(cluster.id, pushed);
    expect(settings).toMatchObject({ kubernetesVersionSource: 'default', dataPlaneSource: 'default' });
  });
});

describe('the live views apply overrides', () => {
  it("the Service detail's kube-proxy view and what-ifs follow a data plane override at once, without a new snapshot", async () => {
    const admin = apiClient(stack.url, acme.adminKey);
    const reader = apiClient(stack.url, acme.readKey);
    const cluster = await createCluster(stack.prisma, acme, 'live-overrides');
    const snapshot = agentSnapshot(new Date(Date.now() - 60_000), { [DATA_PLANE_ANNOTATION]: 'kube-proxy' });
    const hinted = analyzeSnapshot(parseSnapshot(structuredClone(snapshot))).services.find(
      (service) => service.hints.state === 'populated',
    )!;
    await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, snapshot)]);
    const kubeProxy = async () => {
      const answer = await reader.get(`/v1/clusters/${cluster.id}/services/${hinted.namespace}/${hinted.name}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return ServiceDetailSchema.parse(answer.body).kubeProxy;
    };
    const simulatedDataPath = async () => {
      const answer = await reader.post(`/v1/clusters/${cluster.id}/simulate`, {
        services: [{ namespace: hinted.namespace, name: hinted.name }],
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.analysis.services[0].dataPath as { honoursHints: boolean; reason: string | null };
    };

    const honoured = await kubeProxy();
    expect(honoured.zones.length).toBeGreaterThan(0);
    // On kube-proxy the controller's hints (populated) filter every zone's endpoints.
    for (const zone of honoured.zones) {
      expect(zone.computed).toMatchObject({ topologyFiltered: true, reason: null });
      expect(zone.observed.reason ?? '').not.toContain('serviceTopology');
    }
    expect((await simulatedDataPath()).honoursHints).toBe(true);

    await admin.patch(`/v1/clusters/${cluster.id}`, { dataPlane: 'cilium-no-topology' });
    const ignored = await kubeProxy();
    // The same payload on Cilium without service topology: every endpoint everywhere, and the reason.
    for (const zone of ignored.zones) {
      for (const view of [zone.observed, zone.computed]) {
        expect(view.topologyFiltered).toBe(false);
        expect(view.reason).toContain('serviceTopology');
      }
    }
    expect(await simulatedDataPath()).toMatchObject({
      honoursHints: false,
      reason: expect.stringContaining('serviceTopology'),
    });

    await admin.patch(`/v1/clusters/${cluster.id}`, { dataPlane: null });
    expect((await kubeProxy()).zones).toEqual(honoured.zones);
    expect((await simulatedDataPath()).honoursHints).toBe(true);
  });
});
