import { describe, expect, it } from 'vitest';
import { analyzeSnapshot } from '../src/analyze.js';
import type { EndpointSlice } from '../src/k8s-objects.js';
import { type Recommendation, recommendFixes } from '../src/recommendations.js';
import { parseSnapshot, SnapshotError } from '../src/snapshots.js';
import { serviceWorkloads, WorkloadIndex } from '../src/workloads.js';
import { autoService, nodes, type PodOwner, podsOwnedBy, slice } from './fixtures.js';

const threeEqualZones = nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [4] });

/** `web` with 4 ready endpoints (2 in zone-a) over three equal zones: its replicas fix adds one in zone-b and zone-c. */
function replicasFixOf(ownerOf: (slice: EndpointSlice, index: number) => PodOwner, withPods = true): Recommendation {
  const slices = [slice('web-1', ['zone-a', 'zone-a', 'zone-b', 'zone-c'])];
  const owned = podsOwnedBy(slices, ownerOf);
  const snapshot = parseSnapshot(
    structuredClone({
      nodes: threeEqualZones,
      services: [autoService({ namespace: 'default' })],
      endpointSlices: slices,
      ...(withPods ? owned : {}),
    }),
  );
  const fixes = recommendFixes(snapshot, analyzeSnapshot(snapshot)).services[0].recommendations;
  const replicas = fixes.find((fix) => fix.kind === 'replicas');
  if (!replicas) throw new Error('no replicas fix');
  return replicas;
}

describe('replicas fixes name the workload behind the endpoints (Pod ownerReferences, ReplicaSet to Deployment)', () => {
  it('a StatefulSet-backed Service is scaled as the StatefulSet', () => {
    const fix = replicasFixOf(() => ({ kind: 'StatefulSet', name: 'ledger' }));
    expect(fix.workload).toEqual({ kind: 'StatefulSet', namespace: 'default', name: 'ledger' });
    expect(fix.patch).toContain('kubectl scale statefulset/ledger -n default --replicas=6');
    expect(fix.patch).not.toContain('deployment/');
  });

  it('a Deployment is found through its ReplicaSet, whatever the Service is called', () => {
    const fix = replicasFixOf(() => ({ kind: 'Deployment', name: 'checkout-api' }));
    expect(fix.workload).toEqual({ kind: 'Deployment', namespace: 'default', name: 'checkout-api' });
    expect(fix.patch).toContain('kubectl scale deployment/checkout-api -n default --replicas=6');
  });

  it('an owner of another kind (an Argo Rollout) is named by its kind', () => {
    const fix = replicasFixOf(() => ({ kind: 'Rollout', name: 'canary' }));
    expect(fix.workload).toEqual({ kind: 'Rollout', namespace: 'default', name: 'canary' });
    expect(fix.patch).toContain('kubectl scale rollout/canary -n default --replicas=6');
  });

  it('without Pods in the snapshot the fix says the owner is unknown and names no guessed object', () => {
    const fix = replicasFixOf(() => ({ kind: 'Deployment', name: 'web' }), false);
    expect(fix.workload).toBeNull();
    expect(fix.patch).toContain('# the workload behind Service default/web is not known');
    expect(fix.patch).toContain('the snapshot carries no Pods');
    expect(fix.patch).not.toMatch(/^kubectl scale/m);
    expect(fix.endpointsToAdd).toEqual({ 'zone-b': 1, 'zone-c': 1 });
  });

  it('bare Pods (no controller owner) give an unknown owner, said so', () => {
    const fix = replicasFixOf(() => null);
    expect(fix.workload).toBeNull();
    expect(fix.patch).toContain('no controller owner');
    expect(fix.patch).not.toMatch(/^kubectl scale/m);
  });

  it('endpoints of several workloads: each zone grows the workload already there, and each is named', () => {
    const perZone: Record<string, string> = { 'zone-a': 'web-a', 'zone-b': 'web-b', 'zone-c': 'web-c' };
    const fix = replicasFixOf((entry, index) => ({ kind: 'StatefulSet', name: perZone[entry.endpoints[index].zone!] }));
    expect(fix.workloads).toEqual([
      { kind: 'StatefulSet', namespace: 'default', name: 'web-b', endpointsToAdd: { 'zone-b': 1 } },
      { kind: 'StatefulSet', namespace: 'default', name: 'web-c', endpointsToAdd: { 'zone-c': 1 } },
    ]);
    expect(fix.patch).toContain('kubectl scale statefulset/web-b -n default --replicas=2');
    expect(fix.patch).toContain('kubectl scale statefulset/web-c -n default --replicas=2');
    expect(fix.patch).not.toContain('statefulset/web-a');
  });

  it('a DaemonSet is not scaled: the patch says to add nodes where it runs', () => {
    const fix = replicasFixOf(() => ({ kind: 'DaemonSet', name: 'node-cache' }));
    expect(fix.workload).toEqual({ kind: 'DaemonSet', namespace: 'default', name: 'node-cache' });
    expect(fix.patch).toContain('daemonset/node-cache runs one Pod per eligible node');
    expect(fix.patch).not.toMatch(/^kubectl scale/m);
  });
});

describe('the workload index', () => {
  it('reads Pods and ReplicaSets of a kubectl List, keeping only names and owner references', () => {
    const snapshot = parseSnapshot({
      kind: 'List',
      items: [
        {
          kind: 'Pod',
          metadata: {
            name: 'cart-7c9-x1',
            namespace: 'shop',
            uid: 'u-1',
            labels: { app: 'cart' },
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cart-7c9', uid: 'r', controller: true },
            ],
          },
          spec: { containers: [{ name: 'cart', image: 'cart:1' }] },
          status: { phase: 'Running' },
        },
        {
          kind: 'ReplicaSet',
          metadata: {
            name: 'cart-7c9',
            namespace: 'shop',
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart', controller: true }],
          },
        },
      ],
    });
    expect(snapshot.pods).toEqual([
      {
        kind: 'Pod',
        metadata: {
          name: 'cart-7c9-x1',
          namespace: 'shop',
          ownerReferences: [{ kind: 'ReplicaSet', name: 'cart-7c9', controller: true }],
        },
      },
    ]);
    const index = new WorkloadIndex(snapshot);
    expect(index.ofPod('shop', 'cart-7c9-x1')).toEqual({
      workload: { kind: 'Deployment', namespace: 'shop', name: 'cart' },
    });
    expect(index.ofPod('shop', 'gone')).toEqual({ workload: null, reason: 'pod-missing' });
  });

  it('a ReplicaSet the snapshot lacks leaves the Pod’s workload unknown; a ReplicaSet without owner is the workload', () => {
    const pod = (name: string, set: string) => ({
      kind: 'Pod',
      metadata: { name, namespace: 'ns', ownerReferences: [{ kind: 'ReplicaSet', name: set, controller: true }] },
    });
    const snapshot = parseSnapshot({
      kind: 'List',
      items: [pod('a-1', 'a'), pod('b-1', 'b'), { kind: 'ReplicaSet', metadata: { name: 'b', namespace: 'ns' } }],
    });
    const index = new WorkloadIndex(snapshot);
    expect(index.ofPod('ns', 'a-1')).toEqual({ workload: null, reason: 'replicaset-missing' });
    expect(index.ofPod('ns', 'b-1')).toEqual({ workload: { kind: 'ReplicaSet', namespace: 'ns', name: 'b' } });
  });

  it('counts a Service’s ready endpoints per workload and zone, and those without a known owner', () => {
    const slices = [slice('web-1', ['zone-a', 'zone-b', { zone: 'zone-b', ready: false }])];
    const owned = podsOwnedBy(slices, (_, index) => (index === 0 ? { kind: 'StatefulSet', name: 'db' } : null));
    const result = serviceWorkloads(slices, new WorkloadIndex(owned));
    expect(result.known).toEqual([
      { workload: { kind: 'StatefulSet', namespace: 'default', name: 'db' }, readyByZone: new Map([['zone-a', 1]]) },
    ]);
    expect(result.unknownEndpoints).toBe(1);
    expect(result.unknownReason).toBe('no-controller');
  });

  it('a malformed owner reference is refused with its JSON path', () => {
    expect(() =>
      parseSnapshot({ pods: [{ metadata: { name: 'p', ownerReferences: [{ kind: 'ReplicaSet', name: 7 }] } }] }),
    ).toThrow(new SnapshotError('pods[0].metadata.ownerReferences[0].name', 'expected a string, got number 7'));
  });
});
