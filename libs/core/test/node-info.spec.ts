import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Node } from '../src/k8s-objects.js';
import { computeNodeInfo, isExcludedNode, isNodeReady, nodeZone } from '../src/node-info.js';
import { QuantityError } from '../src/quantity.js';
import { deepFreeze, node, nodes } from './fixtures.js';

const INSUFFICIENT = 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes';
const CONTROL_PLANE = { 'node-role.kubernetes.io/control-plane': '' };

function ratiosOf(list: Node[]): Record<string, number> | null {
  const { ratios } = computeNodeInfo(list);
  return ratios === null ? null : Object.fromEntries(ratios);
}

describe('computeNodeInfo (topologycache.go SetNodes): node sets and their ratios', () => {
  it('no nodes: insufficient', () => {
    const info = computeNodeInfo([]);
    expect(info).toEqual({
      sufficient: false,
      reason: INSUFFICIENT,
      detail: 'no ready worker nodes',
      ratios: null,
      zones: [],
    });
  });

  it('a/1000m ready: insufficient (1 zone)', () => {
    const info = computeNodeInfo(nodes({ a: ['1000m'] }));
    expect(info.sufficient).toBe(false);
    expect(info.ratios).toBeNull();
    expect(info.detail).toBe('ready nodes are in only one zone (a)');
  });

  it('a/1000m twice: insufficient (1 zone), but what was gathered is listed', () => {
    const info = computeNodeInfo(nodes({ a: ['1000m', '1000m'] }));
    expect(info.ratios).toBeNull();
    expect(info.reason).toBe(INSUFFICIENT);
    expect(info.zones).toEqual([{ name: 'a', allocatableCpuMillis: 2000, cpuRatio: 1, readyNodes: 2 }]);
  });

  it('a/1000m, b/1000m: a=0.5, b=0.5', () => {
    const info = computeNodeInfo(nodes({ a: ['1000m'], b: ['1000m'] }));
    expect(info).toEqual({
      sufficient: true,
      reason: null,
      detail: null,
      ratios: new Map([
        ['a', 0.5],
        ['b', 0.5],
      ]),
      zones: [
        { name: 'a', allocatableCpuMillis: 1000, cpuRatio: 0.5, readyNodes: 1 },
        { name: 'b', allocatableCpuMillis: 1000, cpuRatio: 0.5, readyNodes: 1 },
      ],
    });
  });

  it('a not ready, b ready: insufficient (only b counts)', () => {
    const list = [
      node({ name: 'n1', zone: 'a', cpu: '1000m', ready: false }),
      node({ name: 'n2', zone: 'b', cpu: '1000m' }),
    ];
    expect(ratiosOf(list)).toBeNull();
    expect(computeNodeInfo(list).detail).toBe('ready nodes are in only one zone (b)');
  });

  it('b carries the control-plane label (empty value): excluded, insufficient', () => {
    const list = [
      node({ name: 'n1', zone: 'a', cpu: '1000m' }),
      node({ name: 'n2', zone: 'b', cpu: '1000m', labels: CONTROL_PLANE }),
    ];
    expect(ratiosOf(list)).toBeNull();
  });

  it('the legacy master label excludes too', () => {
    const master = node({ name: 'm', zone: 'c', cpu: '8', labels: { 'node-role.kubernetes.io/master': 'true' } });
    expect(isExcludedNode(master)).toBe(true);
    expect(ratiosOf([...nodes({ a: [1], b: [1] }), master])).toEqual({ a: 0.5, b: 0.5 });
  });

  it('a, b, and a not-ready b: a=0.5, b=0.5', () => {
    const list = [
      ...nodes({ a: ['1000m'], b: ['1000m'] }),
      node({ name: 'b-2', zone: 'b', cpu: '1000m', ready: false }),
    ];
    expect(ratiosOf(list)).toEqual({ a: 0.5, b: 0.5 });
  });

  it('a: 1000m+1000m+1000m+2000m, b: 3000m+1500m, c: 500m -> 0.5 / 0.45 / 0.05', () => {
    const info = computeNodeInfo(
      nodes({ a: ['1000m', '1000m', '1000m', '2000m'], b: ['3000m', '1500m'], c: ['500m'] }),
    );
    expect(Object.fromEntries(info.ratios ?? [])).toEqual({ a: 0.5, b: 0.45, c: 0.05 });
    expect(info.zones.map((z) => [z.name, z.allocatableCpuMillis, z.readyNodes])).toEqual([
      ['a', 5000, 4],
      ['b', 4500, 2],
      ['c', 500, 1],
    ]);
  });

  it('a/12 CPU, b/4 CPU: 0.75 / 0.25', () => {
    expect(ratiosOf(nodes({ a: [12], b: [4] }))).toEqual({ a: 0.75, b: 0.25 });
  });

  it('a ready node without a zone label poisons the cluster (topologycache.go SetNodes)', () => {
    const list = [
      node({ name: 'n1', zone: 'a', cpu: '1000m' }),
      node({ name: 'n3', zone: null, cpu: '1000m' }),
      node({ name: 'n2', zone: 'b', cpu: '1' }),
    ];
    const info = computeNodeInfo(list);
    expect(info).toEqual({
      sufficient: false,
      reason: INSUFFICIENT,
      detail: 'node "n3" has no topology.kubernetes.io/zone label',
      ratios: null,
      zones: [],
    });
  });

  it('an empty zone label is as bad as a missing one', () => {
    const list = [...nodes({ a: [1], b: [1] }), node({ name: 'x', zone: '', cpu: '1' })];
    expect(computeNodeInfo(list).detail).toBe('node "x" has an empty topology.kubernetes.io/zone label');
  });

  it('a zoned node with allocatable cpu 0 poisons the cluster', () => {
    const list = [node({ name: 'n1', zone: 'a', cpu: '1000m' }), node({ name: 'n2', zone: 'b', cpu: '0' })];
    const info = computeNodeInfo(list);
    expect(info.ratios).toBeNull();
    expect(info.detail).toBe('node "n2" has zero allocatable CPU');
  });

  it('missing allocatable cpu counts as zero', () => {
    const list = [...nodes({ a: [1], b: [1] }), node({ name: 'n9', zone: 'b', cpu: null })];
    expect(computeNodeInfo(list).detail).toBe('node "n9" has zero allocatable CPU');
  });

  it('names both problems of one node', () => {
    const list = [...nodes({ a: [1], b: [1] }), node({ name: 'n9', zone: null, cpu: '0m' })];
    expect(computeNodeInfo(list).detail).toBe(
      'node "n9" has no topology.kubernetes.io/zone label and zero allocatable CPU',
    );
  });

  it('not-ready and control-plane nodes without zone or CPU never cause insufficiency (topologycache.go SetNodes skips them first)', () => {
    const list = [
      ...nodes({ a: [2], b: [2] }),
      node({ name: 'cp', zone: null, cpu: null, labels: CONTROL_PLANE }),
      node({ name: 'down', zone: null, cpu: '0', ready: false }),
      node({ name: 'no-conditions', zone: null, cpu: '0', ready: null }),
      node({ name: 'garbage-cpu', zone: 'a', cpu: 'lots', ready: false }),
    ];
    expect(ratiosOf(list)).toEqual({ a: 0.5, b: 0.5 });
  });

  it('names the first bad node by sorted name, whatever the input order', () => {
    const bad = [node({ name: 'zz', zone: null, cpu: '1' }), node({ name: 'mm', zone: 'a', cpu: '0' })];
    const list = [...nodes({ a: [1], b: [1] }), ...bad];
    expect(computeNodeInfo(list).detail).toBe('node "mm" has zero allocatable CPU');
    expect(computeNodeInfo([...list].reverse()).detail).toBe('node "mm" has zero allocatable CPU');
  });

  it('converts the sums, not each node, to millicores (rounding up)', () => {
    // Each node rounded alone would be 1m + 1m; the sums are 1m (a) and 1m + 1 (b).
    const list = nodes({ a: ['100u', '100u'], b: ['1', '1n'] });
    const info = computeNodeInfo(list);
    expect(info.zones.map((z) => z.allocatableCpuMillis)).toEqual([1, 1001]);
    // total = 1.000200001 cores -> 1001 millicores
    expect(Object.fromEntries(info.ratios ?? [])).toEqual({ a: 1 / 1001, b: 1001 / 1001 });
  });

  it('throws a QuantityError naming the node for an unparseable CPU quantity', () => {
    const list = [...nodes({ a: [1], b: [1] }), node({ name: 'n7', zone: 'b', cpu: 'abc' })];
    expect(() => computeNodeInfo(list)).toThrow(QuantityError);
    expect(() => computeNodeInfo(list)).toThrow(
      'node "n7": status.allocatable.cpu "abc" is not a Kubernetes quantity (expected a number with an optional suffix such as 4, 3920m, 1.5)',
    );
    const negative = [...nodes({ a: [1], b: [1] }), node({ name: 'n8', zone: 'b', cpu: '-2' })];
    expect(() => computeNodeInfo(negative)).toThrow(/^node "n8": status.allocatable.cpu "-2" is a negative quantity/);
  });

  it('does not mutate its input', () => {
    const list = deepFreeze(nodes({ a: [1, 2], b: [3] }));
    expect(() => computeNodeInfo(list)).not.toThrow();
  });

  it('does not depend on node order (property)', () => {
    const nodeArb = fc.record({
      zone: fc.constantFrom('a', 'b', 'c', '', null),
      cpu: fc.constantFrom('0', '500m', '1', '2', '3920m', '100u', null),
      ready: fc.constantFrom(true, true, true, false, null),
      controlPlane: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(nodeArb, { maxLength: 12 }).chain((specs) =>
          fc.tuple(
            fc.constant(specs),
            fc.shuffledSubarray(
              specs.map((_, i) => i),
              { minLength: specs.length, maxLength: specs.length },
            ),
          ),
        ),
        ([specs, order]) => {
          const list = specs.map((spec, i) =>
            node({
              name: `n${i}`,
              zone: spec.zone,
              cpu: spec.cpu,
              ready: spec.ready,
              labels: spec.controlPlane ? CONTROL_PLANE : {},
            }),
          );
          const shuffled = order.map((i) => list[i] as Node);
          expect(computeNodeInfo(shuffled)).toEqual(computeNodeInfo(list));
        },
      ),
    );
  });
});

describe('node helpers', () => {
  it('isNodeReady reads the first Ready condition only', () => {
    const n = node({ name: 'n', zone: 'a' });
    n.status = {
      conditions: [
        { type: 'MemoryPressure', status: 'False' },
        { type: 'Ready', status: 'True' },
        { type: 'Ready', status: 'False' },
      ],
    };
    expect(isNodeReady(n)).toBe(true);
    n.status = {
      conditions: [
        { type: 'Ready', status: 'Unknown' },
        { type: 'Ready', status: 'True' },
      ],
    };
    expect(isNodeReady(n)).toBe(false);
    n.status = { conditions: [{ type: 'Ready', status: 'true' }] };
    expect(isNodeReady(n)).toBe(false);
    n.status = {};
    expect(isNodeReady(n)).toBe(false);
  });

  it('nodeZone is empty for an unlabeled node', () => {
    expect(nodeZone(node({ name: 'n', zone: null }))).toBe('');
    expect(nodeZone(node({ name: 'n', zone: 'eu-west-1a' }))).toBe('eu-west-1a');
  });

  it('isExcludedNode checks key presence only', () => {
    expect(
      isExcludedNode(node({ name: 'n', zone: 'a', labels: { 'node-role.kubernetes.io/control-plane': 'false' } })),
    ).toBe(true);
    expect(isExcludedNode(node({ name: 'n', zone: 'a', labels: { 'node-role.kubernetes.io/worker': '' } }))).toBe(
      false,
    );
  });
});
