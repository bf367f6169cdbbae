import { analyzeSnapshot, type AnalysisReport, type KubernetesList, parseSnapshot } from '@zw/core';
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
import { capturedAt } from '../../../test/support/snapshots.js';
import { unmanagedServicesList } from '../../../test/support/unmanaged-services.js';
import { FleetSchema } from '../src/fleet/fleet.schemas.js';
import { ServiceDetailSchema, ServiceListSchema } from '../src/services/services.schemas.js';

/**
 * Services the EndpointSlice controller does not manage (selector-less, mirrored, `default/kubernetes`),
 * headless and ExternalName Services, and a data plane that ignores hints, through the whole pipeline:
 * ingest, the worker's analysis and history, and the REST and GraphQL read side.
 */

let stack: QueryStack;
let tenant: Tenant;
/** The list on kube-proxy (no annotations: Kubernetes 1.35, kube-proxy). */
let plain: { id: string; report: AnalysisReport };
/** The same list annotated as Kubernetes 1.31 on Cilium without service topology. */
let cilium: { id: string; report: AnalysisReport };

const CILIUM_ANNOTATIONS = { 'zonewise.io/kubernetes-version': '1.31', 'zonewise.io/data-plane': 'cilium-no-topology' };

function annotated(list: KubernetesList, annotations: Record<string, string>): KubernetesList {
  return { ...list, metadata: { annotations: { ...list.metadata.annotations, ...annotations } } };
}

async function pushed(name: string, list: KubernetesList) {
  const cluster = await createCluster(stack.prisma, tenant, name, { cloud: 'aws', region: 'us-east-1' });
  const stamped = capturedAt(list, new Date(Date.now() - 60_000));
  await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, stamped)]);
  return { id: cluster.id, report: analyzeSnapshot(parseSnapshot(structuredClone(stamped))) };
}

beforeAll(async () => {
  stack = await startQueryStack('qverdicts');
  tenant = await createTenant(stack.prisma, 'verdicts-org');
  plain = await pushed('plain', unmanagedServicesList());
  cilium = await pushed('cilium', annotated(unmanagedServicesList(), CILIUM_ANNOTATIONS));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('verdicts through the pipeline and the API', () => {
  it('the worker stores who manages each Service and whether its data path honours hints', async () => {
    const rows = await stack.prisma.serviceInterval.findMany({
      where: { clusterId: plain.id, validTo: null },
      include: { service: true },
    });
    const stored = Object.fromEntries(
      rows.map((row) => [`${row.service.namespace}/${row.service.name}`, [row.managedBy, row.honoursHints]]),
    );
    const expected = Object.fromEntries(
      plain.report.services.map((s) => [`${s.namespace}/${s.name}`, [s.managedBy, s.dataPath.honoursHints]]),
    );
    expect(stored).toEqual(expected);
    expect(stored['default/kubernetes']).toEqual(['kube-apiserver', true]);
    expect(stored['shop/legacy-api']).toEqual(['endpointslicemirroring-controller.k8s.io', true]);
    expect(stored['shop/headless']).toEqual(['endpointslice-controller', false]);
  });

  it('the Service list serves managedBy and dataPath, and only the control group is an opportunity', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const list = ServiceListSchema.parse((await client.get(`/v1/clusters/${plain.id}/services?limit=500`)).body);
    const byKey = Object.fromEntries(list.services.map((s) => [`${s.namespace}/${s.name}`, s]));
    for (const analysis of plain.report.services) {
      const served = byKey[`${analysis.namespace}/${analysis.name}`];
      expect(served.managedBy).toBe(analysis.managedBy);
      expect(served.dataPath).toEqual(analysis.dataPath);
      expect(served.hints).toEqual(analysis.hints);
      expect(served.crossZone).toEqual(analysis.crossZone);
    }
    expect(list.services.filter((s) => s.opportunity).map((s) => `${s.namespace}/${s.name}`)).toEqual(['shop/plain']);
    expect(byKey['default/kubernetes'].ifAutoEnabled).toBeNull();
    expect(byKey['shop/headless'].monthly.realizedSavings.cost).toBe(0);
    const opportunities = ServiceListSchema.parse(
      (await client.get(`/v1/clusters/${plain.id}/services?opportunity=true&limit=500`)).body,
    );
    expect(opportunities.services.map((s) => s.name)).toEqual(['plain']);
  });

  it('the savings ranking and the fleet count never include them', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const from = new Date(Date.now() - 3600_000).toISOString();
    const to = new Date().toISOString();
    const savings = (await client.get(`/v1/savings?clusterId=${plain.id}&from=${from}&to=${to}`)).body;
    expect(savings.opportunities.map((o: { name: string }) => o.name)).toEqual(['plain']);

    const fleet = FleetSchema.parse((await client.get('/v1/fleet')).body);
    const clusters = Object.fromEntries(fleet.clusters.map((c) => [c.name, c]));
    expect(clusters.plain.servicesWithIgnoredHints).toBe(plain.report.summary.servicesWithIgnoredHints);
    // The headless Service, and the two kube-proxy never programs (service-proxy-name, headless labels).
    expect(clusters.plain.servicesWithIgnoredHints).toBe(3);
    expect(clusters.plain.monthly?.opportunities).toBe(1);
    // On Cilium without service topology every written hint is ignored, and nothing is an opportunity.
    expect(clusters.cilium.servicesWithIgnoredHints).toBe(cilium.report.summary.servicesWithIgnoredHints);
    expect(clusters.cilium.servicesWithIgnoredHints).toBeGreaterThan(1);
    expect(clusters.cilium.monthly?.opportunities).toBe(0);
    expect(clusters.cilium.monthly?.realizedSavings.cost).toBe(0);
    expect(clusters.plain.monthly?.realizedSavings.cost).toBeGreaterThan(0);
    expect(fleet.totals.servicesWithIgnoredHints).toBe(
      clusters.plain.servicesWithIgnoredHints! + clusters.cilium.servicesWithIgnoredHints!,
    );
  });

  it('the Service detail shows the kube-proxy view of the cluster: hand-written hints read, none computed for default/kubernetes', async () => {
    const client = apiClient(stack.url, tenant.readKey);
    const detail = async (clusterId: string, namespace: string, name: string) =>
      ServiceDetailSchema.parse((await client.get(`/v1/clusters/${clusterId}/services/${namespace}/${name}`)).body);

    const kubernetes = await detail(plain.id, 'default', 'kubernetes');
    expect(kubernetes.current).toMatchObject({ managedBy: 'kube-apiserver', hints: { state: 'none' } });
    for (const zone of kubernetes.kubeProxy.zones) {
      expect(zone.computed).toEqual(zone.observed);
      expect(zone.computed.topologyFiltered).toBe(false);
    }
    expect(kubernetes.drift.endpoints).toBe(0);

    const handHinted = await detail(plain.id, 'shop', 'hand-hinted');
    for (const zone of handHinted.kubeProxy.zones) {
      expect(zone.observed).toMatchObject({ topologyFiltered: true, endpointsByZone: { [zone.zone]: 3 } });
      expect(zone.computed).toEqual(zone.observed);
    }

    const headless = await detail(plain.id, 'shop', 'headless');
    expect(headless.current?.dataPath?.honoursHints).toBe(false);
    for (const zone of headless.kubeProxy.zones) expect(zone.computed.endpoints).toBeNull();

    // The same Service on Cilium without service topology: every endpoint, and the reason.
    const web = await detail(cilium.id, 'shop', 'web');
    expect(web.current?.dataPath).toEqual({ honoursHints: false, reason: expect.stringContaining('serviceTopology') });
    for (const zone of web.kubeProxy.zones) {
      expect(zone.computed).toMatchObject({ topologyFiltered: false, endpoints: 9 });
      expect(zone.computed.reason).toContain('serviceTopology');
    }
  });

  it('GraphQL serves the same verdicts and the fleet count', async () => {
    const answer = await postGraphQL(stack.url, tenant.readKey, {
      query: `{ fleet { clusters { name servicesWithIgnoredHints
                 services(first: 50) { nodes { namespace name managedBy opportunity dataPath { honoursHints reason } } } } } }`,
    });
    expect(answer.body.errors).toBeUndefined();
    const clusters = Object.fromEntries(answer.body.data.fleet.clusters.map((c: { name: string }) => [c.name, c]));
    expect(clusters.plain.servicesWithIgnoredHints).toBe(plain.report.summary.servicesWithIgnoredHints);
    const nodes = Object.fromEntries(
      clusters.plain.services.nodes.map((s: { namespace: string; name: string }) => [`${s.namespace}/${s.name}`, s]),
    );
    for (const analysis of plain.report.services) {
      expect(nodes[`${analysis.namespace}/${analysis.name}`]).toMatchObject({
        managedBy: analysis.managedBy,
        dataPath: analysis.dataPath,
        opportunity: analysis.namespace === 'shop' && analysis.name === 'plain',
      });
    }
  });
});
