import { KubeConfig } from '@kubernetes/client-node';
import { analyzeSnapshot, LAST_APPLIED_ANNOTATION, parseSnapshot, SERVICE_CIDR_ANNOTATION } from '@zw/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactLastApplied } from '../src/compact.js';
import { RESOURCES } from '../src/kubernetes.js';
import { CAPTURED_AT_ANNOTATION } from '@zw/core';
import { buildSnapshot } from '../src/snapshot.js';
import { realisticCluster, SERVICE_CIDR_OBJECT } from './support/cluster.js';
import { FakeApiServer } from './support/fake-apiserver.js';

type Json = Record<string, unknown>;

function byKind(items: Json[]) {
  const of = (kind: string) => items.filter((item) => item.kind === kind);
  return {
    nodes: of('Node'),
    services: of('Service'),
    endpointSlices: of('EndpointSlice'),
    serviceCIDRs: of('ServiceCIDR'),
    pods: of('Pod'),
    replicaSets: of('ReplicaSet'),
  };
}

/** The analysis minus the slices it echoes back (those carry whatever metadata the input had). */
function analysisOf(document: unknown) {
  const report = analyzeSnapshot(parseSnapshot(structuredClone(document)));
  return { ...report, services: report.services.map(({ endpointSlices: _slices, ...rest }) => rest) };
}

describe('buildSnapshot', () => {
  const items = [...realisticCluster({ services: 60 }), SERVICE_CIDR_OBJECT];
  const capturedAt = new Date('2026-03-01T12:00:00.123Z');

  it('gives the analysis the full objects give, at a fraction of the size', () => {
    const snapshot = buildSnapshot(byKind(items), capturedAt, []);
    const full = { apiVersion: 'v1', kind: 'List', metadata: {}, items };
    expect(analysisOf(JSON.parse(snapshot.json))).toEqual(analysisOf(full));
    // Under 60%: the Pod names of endpoint targetRefs (kept for traffic sources) are most of what is left.
    expect(snapshot.json.length).toBeLessThan(JSON.stringify(full).length * 0.6);
    expect(snapshot.json).not.toMatch(/managedFields|"uid"|creationTimestamp|"images"|osImage|machineID/);
    // Selectors stay: whether a Service has one decides whether the EndpointSlice controller writes its slices.
    const compacted = (JSON.parse(snapshot.json) as { items: Json[] }).items;
    const serviceNamed = (name: string) =>
      compacted.find((item) => item.kind === 'Service' && (item.metadata as Json).name === name)!;
    expect((serviceNamed('svc-00001').spec as Json).selector).toEqual({ app: 'svc-00001' });
    // Of nodeInfo, only what says which kube-proxy and OS route a node's traffic.
    const node = (JSON.parse(snapshot.json) as { items: Json[] }).items.find((item) => item.kind === 'Node')!;
    expect((node.status as Json).nodeInfo).toEqual({ kubeletVersion: 'v1.35.0' });
    // Pod references stay (kind and name): traffic sources map per-Pod bytes to Services with them.
    const slice = (JSON.parse(snapshot.json) as { items: Json[] }).items.find((item) => item.kind === 'EndpointSlice')!;
    expect((slice.endpoints as Json[])[0].targetRef).toEqual({ kind: 'Pod', name: 'svc-00001-5d4f7b9c8-x0' });
    expect(JSON.parse(snapshot.json).metadata.annotations).toEqual({
      [CAPTURED_AT_ANNOTATION]: '2026-03-01T12:00:00.123Z',
    });
  });

  it('carries the Pods behind endpoints and their ReplicaSets, reduced to their controller owners', () => {
    const compacted = (JSON.parse(buildSnapshot(byKind(items), capturedAt, []).json) as { items: Json[] }).items;
    const pods = compacted.filter((item) => item.kind === 'Pod');
    const endpoints = compacted
      .filter((item) => item.kind === 'EndpointSlice')
      .flatMap((item) => item.endpoints as Json[]);
    expect(pods).toHaveLength(endpoints.length);
    // The finished Job's Pod backs no endpoint: it is left out.
    expect(pods.map((item) => (item.metadata as Json).name)).not.toContain('report-28391-abcde');
    expect(pods.find((item) => (item.metadata as Json).name === 'svc-00001-5d4f7b9c8-x0')).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'svc-00001-5d4f7b9c8-x0',
        namespace: 'team-01',
        ownerReferences: [{ kind: 'ReplicaSet', name: 'svc-00001-5d4f7b9c8', controller: true }],
      },
    });
    expect(pods.find((item) => (item.metadata as Json).name === 'svc-00005-0')).toMatchObject({
      metadata: { ownerReferences: [{ kind: 'StatefulSet', name: 'svc-00005', controller: true }] },
    });
    const sets = compacted.filter((item) => item.kind === 'ReplicaSet');
    expect(sets).toHaveLength(48); // the 60 Services but the 12 StatefulSet-backed ones
    expect(sets[0]).toEqual({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'svc-00001-5d4f7b9c8',
        namespace: 'team-01',
        ownerReferences: [{ kind: 'Deployment', name: 'svc-00001', controller: true }],
      },
    });
  });

  it('keeps only the ClusterIPs of a last-applied configuration, so static addresses stay static', () => {
    const snapshot = JSON.parse(buildSnapshot(byKind(items), capturedAt, []).json) as { items: Json[] };
    const ldap = snapshot.items.find((item) => (item.metadata as Json).name === 'legacy-ldap')!;
    expect((ldap.metadata as { annotations: Record<string, string> }).annotations[LAST_APPLIED_ANNOTATION]).toBe(
      '{"spec":{"clusterIP":"10.96.200.10"}}',
    );
    expect(compactLastApplied('not json')).toBeNull();
    expect(compactLastApplied('{"spec":{"selector":{"a":"b"}}}')).toBeNull();
    const report = analyzeSnapshot(parseSnapshot(snapshot));
    const held = JSON.stringify(report.serviceCIDRs);
    expect(held).toContain('10.96.200.10');
    expect(held).toContain('last-applied');
  });

  it('carries --service-cidr in the List annotation only when the cluster has no ServiceCIDR objects', () => {
    const without = byKind(items.filter((item) => item.kind !== 'ServiceCIDR'));
    const annotated = JSON.parse(buildSnapshot(without, capturedAt, ['10.96.0.0/16']).json);
    expect(annotated.metadata.annotations[SERVICE_CIDR_ANNOTATION]).toBe('10.96.0.0/16');
    const withObjects = JSON.parse(buildSnapshot(byKind(items), capturedAt, ['10.96.0.0/16']).json);
    expect(withObjects.metadata.annotations[SERVICE_CIDR_ANNOTATION]).toBeUndefined();
  });

  it('gives the same bytes for the same state whatever the object order, and a key that ignores the time', () => {
    const a = buildSnapshot(byKind(items), capturedAt, []);
    const b = buildSnapshot(byKind([...items].reverse()), new Date(capturedAt.getTime() + 60_000), []);
    expect(b.contentKey).toBe(a.contentKey);
    expect(b.json.replace(/"zonewise.io\/captured-at":"[^"]+"/, '')).toBe(
      a.json.replace(/"zonewise.io\/captured-at":"[^"]+"/, ''),
    );
    const changed = structuredClone(items);
    ((changed.find((item) => item.kind === 'Node')!.status as Json).allocatable as Json).cpu = '2';
    expect(buildSnapshot(byKind(changed), capturedAt, []).contentKey).not.toBe(a.contentKey);
  });

  it('compacts typed objects from client-node lists exactly like the raw JSON of watch events', async () => {
    const server = new FakeApiServer();
    await server.start();
    const dir = mkdtempSync(join(tmpdir(), 'zw-agent-typed-'));
    try {
      for (const item of items) server.apply(item);
      // Typed objects carry Dates and class instances; a deletion timestamp exercises the Date path.
      server.apply({
        ...SERVICE_CIDR_OBJECT,
        metadata: { name: 'old', deletionTimestamp: '2026-02-01T00:00:00Z' },
        spec: { cidrs: ['10.100.0.0/24'] },
      });
      const kc = new KubeConfig();
      kc.loadFromFile(server.writeKubeconfig(join(dir, 'kubeconfig')));
      const listed = await Promise.all(RESOURCES.map((resource) => resource.list(kc)()));
      const typed = {
        nodes: listed[0].items,
        services: listed[1].items,
        endpointSlices: listed[2].items,
        serviceCIDRs: listed[3].items,
        // As the watchers cache them: only the owner fields.
        pods: listed[4].items.map(RESOURCES[4].trim!),
        replicaSets: listed[5].items.map(RESOURCES[5].trim!),
      };
      expect(typed.nodes[0]).not.toHaveProperty('kind'); // list items come without kind, as from kube-apiserver
      const raw = byKind(server.list());
      const fromTyped = buildSnapshot(typed, capturedAt, []);
      expect(fromTyped.json === buildSnapshot(raw, capturedAt, []).json).toBe(true);
      expect(fromTyped.json).toContain('"deletionTimestamp":"2026-02-01T00:00:00.000Z"');
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
