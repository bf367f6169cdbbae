import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  type AllocationOutcome,
  type AllocationState,
  type RandomSource,
  allocateDynamic,
  allocateStatic,
  allocationState,
  releaseAddress,
} from '../src/cluster-ip-allocator.js';
import { analyzeClusterIPs } from '../src/cluster-ips.js';
import { type ServiceCidrInput, serviceCidrsOf } from '../src/service-cidrs.js';
import { bandOf, serviceIpRange } from '../src/cidr-bands.js';
import { CidrError, cidrContains, formatIp, parseCidr, parseIp } from '../src/ip-addresses.js';
import type { Service, ServiceCIDR } from '../src/k8s-objects.js';

interface ServiceOptions {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function service(key: string, clusterIPs: string[], options: ServiceOptions = {}): Service {
  const [namespace, name] = key.split('/');
  return {
    metadata: { namespace, name, ...options },
    spec: { type: 'ClusterIP', clusterIP: clusterIPs[0], clusterIPs },
  };
}

function kubeDns(ip: string): Service {
  return service('kube-system/kube-dns', [ip], { labels: { 'k8s-app': 'kube-dns' } });
}

const RANGE_16: ServiceCidrInput = { cidr: '10.96.0.0/16', source: 'kubernetes', ready: true };

/** mulberry32: a small seeded generator, so the "random" starts are reproducible. */
function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  const next32 = (): bigint => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return BigInt((t ^ (t >>> 14)) >>> 0);
  };
  return (max) => ((next32() << 32n) | next32()) % max;
}

function expectOk(outcome: AllocationOutcome): Extract<AllocationOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`expected success, got: ${outcome.error}`);
  return outcome;
}

function allocateMany(state: AllocationState, count: number, random: RandomSource) {
  const taken: { ip: string; band: string }[] = [];
  for (let i = 0; i < count; i++) {
    const outcome = expectOk(allocateDynamic(state, 'IPv4', random));
    taken.push({ ip: outcome.ip, band: outcome.band });
    state = outcome.state;
  }
  return { taken, state };
}

function lastOctet(ip: string): number {
  return Number(ip.split('.')[3]);
}

describe('serviceCidrsOf', () => {
  const serviceCIDR = (name: string, cidrs: string[], extra: Partial<ServiceCIDR> = {}): ServiceCIDR => ({
    metadata: { name },
    spec: { cidrs },
    ...extra,
  });

  it('is ready with a True Ready condition or none at all, not when False or being deleted', () => {
    const cidrs = serviceCidrsOf(
      [
        serviceCIDR('kubernetes', ['10.96.0.0/16', 'fd00::/108'], {
          status: { conditions: [{ type: 'Ready', status: 'True' }] },
        }),
        serviceCIDR('no-conditions', ['10.97.0.0/16']),
        serviceCIDR('not-ready', ['10.98.0.0/16'], { status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
        {
          ...serviceCIDR('deleting', ['10.99.0.0/16']),
          metadata: { name: 'deleting', deletionTimestamp: '2026-01-01T00:00:00Z' },
        },
      ],
      ['172.16.0.0/16'],
    );
    expect(cidrs).toEqual([
      { cidr: '10.96.0.0/16', source: 'kubernetes', ready: true },
      { cidr: 'fd00::/108', source: 'kubernetes', ready: true },
      { cidr: '10.97.0.0/16', source: 'no-conditions', ready: true },
      { cidr: '10.98.0.0/16', source: 'not-ready', ready: false },
      { cidr: '10.99.0.0/16', source: 'deleting', ready: false },
    ]);
  });

  it('merges ServiceCIDRs sharing a CIDR into one entry, ready if any of them is', () => {
    const cidrs = serviceCidrsOf(
      [
        serviceCIDR('old', ['10.96.0.0/16'], { status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
        serviceCIDR('new', ['10.96.0.0/16']),
      ],
      [],
    );
    expect(cidrs).toEqual([{ cidr: '10.96.0.0/16', source: 'old, new', ready: true }]);
  });

  it('falls back to the List annotation only when there are no ServiceCIDR objects', () => {
    expect(serviceCidrsOf([], [' 10.96.0.0/16', 'fd00::/108 ', '', '10.96.0.0/16'])).toEqual([
      { cidr: '10.96.0.0/16', source: 'annotation', ready: true },
      { cidr: 'fd00::/108', source: 'annotation', ready: true },
    ]);
  });
});

describe('analyzeClusterIPs: bands, counts and the DNS convention', () => {
  it('describes the range with the cidr contract fields plus source and readiness', () => {
    const [report] = analyzeClusterIPs([RANGE_16], []);
    expect(report).toMatchObject({
      cidr: '10.96.0.0/16',
      family: 'IPv4',
      size: 65534,
      bandOffset: 256,
      staticBand: { first: '10.96.0.1', last: '10.96.1.0' },
      dynamicBand: { first: '10.96.1.1', last: '10.96.255.254' },
      source: 'kubernetes',
      ready: true,
      allocated: { static: 0, dynamic: 0, total: 0 },
      free: { static: 256, dynamic: 65278 },
      utilization: 0,
      conflicts: [],
      risks: [],
    });
  });

  it('reports 10.96.0.10 free in the static band when no Service holds it', () => {
    const [report] = analyzeClusterIPs([RANGE_16], [service('default/kubernetes', ['10.96.0.1'])]);
    expect(report.wellKnown).toEqual([
      {
        ip: '10.96.0.1',
        purpose: 'first address: the kubernetes API Service (default/kubernetes)',
        band: 'static',
        free: false,
        heldBy: ['default/kubernetes'],
        error: 'failed to allocate IP 10.96.0.1: provided IP is already allocated',
      },
      {
        ip: '10.96.0.10',
        purpose: 'cluster DNS Service by convention (10th address of the range)',
        band: 'static',
        free: true,
        heldBy: [],
      },
    ]);
  });

  it('reports 10.96.0.10 taken once the DNS Service holds it, with no risk (static band)', () => {
    const [report] = analyzeClusterIPs(
      [RANGE_16],
      [service('default/kubernetes', ['10.96.0.1']), kubeDns('10.96.0.10')],
    );
    expect(report.wellKnown[1]).toMatchObject({
      ip: '10.96.0.10',
      band: 'static',
      free: false,
      heldBy: ['kube-system/kube-dns'],
    });
    expect(report.allocated).toEqual({ static: 2, dynamic: 0, total: 2 });
    expect(report.free).toEqual({ static: 254, dynamic: 65278 });
    expect(report.risks).toEqual([]);
    expect(report.conflicts).toEqual([]);
  });

  it('flags a DNS Service whose static IP sits in the dynamic band as a conflict risk', () => {
    const [report] = analyzeClusterIPs([RANGE_16], [kubeDns('10.96.5.10')]);
    expect(report.risks).toHaveLength(1);
    expect(report.risks[0]).toMatchObject({
      kind: 'static-ip-in-dynamic-band',
      ip: '10.96.5.10',
      service: 'kube-system/kube-dns',
      staticBecause: 'cluster-dns',
    });
    expect(report.risks[0].message).toContain('kube-system/kube-dns holds 10.96.5.10');
    expect(report.risks[0].message).toContain('dynamic band 10.96.1.1–10.96.255.254 of 10.96.0.0/16');
    expect(report.risks[0].message).toContain('10.96.0.1–10.96.1.0 (the static band)');
    expect(report.allocated).toEqual({ static: 0, dynamic: 1, total: 1 });
  });

  it('counts every ClusterIP per band, skipping None and empty, and computes free and utilization', () => {
    const services = [
      service('a/one', ['10.96.0.2']),
      service('a/two', ['10.96.0.200']),
      service('a/three', ['10.96.1.1', 'fd00::5']),
      service('a/headless', ['None']),
      service('a/external', []),
      { metadata: { namespace: 'a', name: 'legacy' }, spec: { clusterIP: '10.96.200.1' } },
      { metadata: { namespace: 'a', name: 'empty' }, spec: { clusterIP: '' } },
    ];
    const [v4, v6] = analyzeClusterIPs([RANGE_16, { cidr: 'fd00::/64', source: 'kubernetes', ready: true }], services);
    expect(v4.allocated).toEqual({ static: 2, dynamic: 2, total: 4 });
    expect(v4.free).toEqual({ static: 254, dynamic: 65276 });
    expect(v4.utilization).toBeCloseTo(4 / 65534, 12);
    expect(v6.allocated).toEqual({ static: 1, dynamic: 0, total: 1 });
    expect(v6.free).toEqual({ static: 255, dynamic: ((1n << 64n) - 257n).toString() });
    expect(v4.conflicts).toEqual([]);
    expect(v6.conflicts).toEqual([]);
  });

  it('/24: the DNS address in the 16-address static band', () => {
    const [report] = analyzeClusterIPs(
      [{ cidr: '10.96.0.0/24', source: 'annotation', ready: true }],
      [kubeDns('10.96.0.10'), service('app/web', ['10.96.0.17'])],
    );
    expect(report).toMatchObject({
      size: 254,
      bandOffset: 16,
      staticBand: { first: '10.96.0.1', last: '10.96.0.16' },
      dynamicBand: { first: '10.96.0.17', last: '10.96.0.254' },
      allocated: { static: 1, dynamic: 1, total: 2 },
      free: { static: 15, dynamic: 237 },
    });
    expect(report.utilization).toBeCloseTo(2 / 254, 12);
  });

  it('/28 and /29 have no static band: every address, the DNS one too, is dynamic', () => {
    const [r28] = analyzeClusterIPs([{ cidr: '10.96.0.0/28', source: 'x', ready: true }], [kubeDns('10.96.0.10')]);
    expect(r28.staticBand).toBeNull();
    expect(r28.free).toEqual({ static: 0, dynamic: 13 });
    expect(r28.wellKnown[1]).toMatchObject({ ip: '10.96.0.10', band: 'dynamic', free: false });
    expect(r28.risks[0].message).toContain('has no static band');
    const [r29] = analyzeClusterIPs([{ cidr: '10.96.0.0/29', source: 'x', ready: true }], []);
    expect(r29.wellKnown.map((entry) => entry.ip)).toEqual(['10.96.0.1']);
  });
});

describe('analyzeClusterIPs: what counts as a static request', () => {
  const lastApplied = (spec: unknown) => ({
    'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ apiVersion: 'v1', kind: 'Service', spec }),
  });

  it('a last-applied configuration naming the ClusterIP makes it static', () => {
    const [report] = analyzeClusterIPs(
      [RANGE_16],
      [service('app/pinned', ['10.96.9.9'], { annotations: lastApplied({ clusterIP: '10.96.9.9' }) })],
    );
    expect(report.risks).toMatchObject([{ service: 'app/pinned', ip: '10.96.9.9', staticBecause: 'last-applied' }]);
  });

  it('a last-applied configuration without clusterIP, or with None, does not', () => {
    const services = [
      service('app/plain', ['10.96.9.9'], { annotations: lastApplied({ ports: [{ port: 80 }] }) }),
      service('app/none', ['10.96.9.10'], { annotations: lastApplied({ clusterIP: 'None' }) }),
      service('app/list', ['10.96.9.11'], { annotations: lastApplied({ clusterIPs: ['', 'None'] }) }),
    ];
    expect(analyzeClusterIPs([RANGE_16], services)[0].risks).toEqual([]);
  });

  it('ignores malformed last-applied JSON instead of crashing', () => {
    const broken = { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec": {"clusterIP": "10.96' };
    const nullSpec = { 'kubectl.kubernetes.io/last-applied-configuration': 'null' };
    const services = [
      service('app/broken', ['10.96.9.9'], { annotations: broken }),
      service('app/null', ['10.96.9.8'], { annotations: nullSpec }),
    ];
    const [report] = analyzeClusterIPs([RANGE_16], services);
    expect(report.risks).toEqual([]);
    expect(report.allocated.total).toBe(2);
  });

  it('the zonewise.io/static-cluster-ip annotation and default/kubernetes make it static', () => {
    const services = [
      service('app/annotated', ['10.96.9.9'], { annotations: { 'zonewise.io/static-cluster-ip': 'true' } }),
      service('default/kubernetes', ['10.96.9.1']),
      service('app/other', ['10.96.9.2'], { annotations: { 'zonewise.io/static-cluster-ip': 'false' } }),
    ];
    const [report] = analyzeClusterIPs([RANGE_16], services);
    expect(report.risks.map(({ service: name, staticBecause }) => [name, staticBecause])).toEqual([
      ['app/annotated', 'annotation'],
      ['default/kubernetes', 'kubernetes-api'],
    ]);
  });

  it('a kube-dns label outside kube-system is not the cluster DNS Service', () => {
    const [report] = analyzeClusterIPs(
      [RANGE_16],
      [service('app/dns', ['10.96.9.9'], { labels: { 'k8s-app': 'kube-dns' } })],
    );
    expect(report.risks).toEqual([]);
  });

  it('explains that static-band addresses without a static sign count as static while the dynamic band has room', () => {
    const [report] = analyzeClusterIPs([RANGE_16], [service('app/low', ['10.96.0.37'])]);
    expect(report.allocated.static).toBe(1);
    expect(report.notes).toHaveLength(1);
    expect(report.notes[0]).toContain('10.96.0.37 (app/low)');
    expect(report.notes[0]).toContain('dynamic allocation only reaches the static band when the dynamic band is full');
    expect(report.notes[0]).toContain('65278 free');
  });

  it('says so when the dynamic band is full and dynamic allocations spill into the static band', () => {
    const services = Array.from({ length: 14 }, (_, i) => service(`app/s${i}`, [`10.96.0.${17 + i}`]));
    services.push(service('app/low', ['10.96.0.3']));
    const [report] = analyzeClusterIPs([{ cidr: '10.96.0.0/27', source: 'x', ready: true }], services);
    expect(report.free).toEqual({ static: 15, dynamic: 0 });
    expect(report.notes).toEqual([
      'The dynamic band of 10.96.0.0/27 is full: new dynamic allocations now take addresses from the static band (15 free), competing with static requests.',
    ]);
  });
});

describe('analyzeClusterIPs: conflicts', () => {
  it('reports two Services holding the same ClusterIP', () => {
    const [report] = analyzeClusterIPs([RANGE_16], [service('a/x', ['10.96.3.3']), service('b/y', ['10.96.3.3'])]);
    expect(report.conflicts).toEqual([
      {
        kind: 'duplicate-cluster-ip',
        ip: '10.96.3.3',
        services: ['a/x', 'b/y'],
        message: '10.96.3.3 is held by 2 Services (a/x, b/y); a ClusterIP must be unique in the cluster',
      },
    ]);
    expect(report.allocated.total).toBe(1);
  });

  it('reports ClusterIPs inside no range, the network/broadcast addresses, and unparsable ones', () => {
    const services = [
      service('a/outside', ['10.100.0.1']),
      service('a/network', ['10.96.0.0']),
      service('a/broadcast', ['10.96.255.255']),
      service('a/garbage', ['10.96.0.300']),
    ];
    const [report] = analyzeClusterIPs([RANGE_16], services);
    expect(report.conflicts).toEqual([
      {
        kind: 'outside-service-cidrs',
        ip: '10.100.0.1',
        services: ['a/outside'],
        message:
          '10.100.0.1 (held by a/outside) is inside no Service CIDR (10.96.0.0/16); requesting it now fails with "the provided network does not match the current range"',
      },
      {
        kind: 'outside-service-cidrs',
        ip: '10.96.0.0',
        services: ['a/network'],
        message: '10.96.0.0 (held by a/network) is the network address of 10.96.0.0/16, which is never allocated',
      },
      {
        kind: 'outside-service-cidrs',
        ip: '10.96.255.255',
        services: ['a/broadcast'],
        message:
          '10.96.255.255 (held by a/broadcast) is the broadcast address of 10.96.0.0/16, which is never allocated',
      },
      {
        kind: 'invalid-cluster-ip',
        ip: '10.96.0.300',
        services: ['a/garbage'],
        message: 'a/garbage has ClusterIP "10.96.0.300", which is not an IPv4 or IPv6 address',
      },
    ]);
    expect(report.allocated.total).toBe(0);
  });

  it('an address usable in an overlapping range is not a conflict', () => {
    const cidrs = [
      { cidr: '10.96.0.0/24', source: 'small', ready: true },
      { cidr: '10.96.0.0/16', source: 'big', ready: true },
    ];
    const [small, big] = analyzeClusterIPs(cidrs, [service('a/x', ['10.96.0.255'])]);
    expect(small.conflicts).toEqual([]);
    expect(big.allocated.dynamic).toBe(0);
    expect(big.allocated.static).toBe(1);
  });

  it('IPv6 ClusterIPs inside a /48 (which the allocator refuses) are flagged, and the report says allocatable: false', () => {
    const [report] = analyzeClusterIPs(
      [{ cidr: 'fd00::/48', source: 'x', ready: true }],
      [service('a/x', ['fd00::5'])],
    );
    expect(report.allocatable).toBe(false);
    expect(report.reason).toBe('shortest allowed prefix length for service CIDR is 64, got 48');
    expect(report.conflicts[0].message).toContain('lies in fd00::/48, which the allocator does not use');
    expect(report.wellKnown[0]).toMatchObject({
      ip: 'fd00::1',
      free: false,
      error: 'failed to allocate IP fd00::1: the provided network does not match the current range',
    });
  });

  it('puts out-of-range addresses in the first report of their family only', () => {
    const cidrs = [
      { cidr: '10.96.0.0/16', source: 'a', ready: true },
      { cidr: 'fd00::/108', source: 'a', ready: true },
      { cidr: '10.97.0.0/16', source: 'b', ready: true },
    ];
    const reports = analyzeClusterIPs(cidrs, [service('x/y', ['fd01::1'])]);
    expect(reports.map((report) => report.conflicts.length)).toEqual([0, 1, 0]);
  });
});

describe('analyzeClusterIPs: requested static IPs and readiness', () => {
  it('lists requested addresses with their band and whether a request would succeed', () => {
    const [report] = analyzeClusterIPs([RANGE_16], [service('app/web', ['10.96.0.53'])], {
      requestedStaticIPs: ['10.96.0.53', '10.96.0.10', '10.96.7.7'],
    });
    expect(
      report.wellKnown.map(({ ip, purpose, band, free, heldBy, error }) => ({
        ip,
        purpose,
        band,
        free,
        heldBy,
        error,
      })),
    ).toEqual([
      {
        ip: '10.96.0.1',
        purpose: 'first address: the kubernetes API Service (default/kubernetes)',
        band: 'static',
        free: true,
        heldBy: [],
        error: undefined,
      },
      {
        ip: '10.96.0.10',
        purpose: 'cluster DNS Service by convention (10th address of the range); requested static IP',
        band: 'static',
        free: true,
        heldBy: [],
        error: undefined,
      },
      {
        ip: '10.96.0.53',
        purpose: 'requested static IP',
        band: 'static',
        free: false,
        heldBy: ['app/web'],
        error: 'failed to allocate IP 10.96.0.53: provided IP is already allocated',
      },
      { ip: '10.96.7.7', purpose: 'requested static IP', band: 'dynamic', free: true, heldBy: [], error: undefined },
    ]);
    expect(report.risks).toMatchObject([{ ip: '10.96.7.7', service: null, staticBecause: 'requested' }]);
  });

  it('a requested address inside no range is listed with the mismatched-network error', () => {
    const [report] = analyzeClusterIPs([RANGE_16], [], { requestedStaticIPs: ['10.200.0.10'] });
    expect(report.wellKnown.at(-1)).toEqual({
      ip: '10.200.0.10',
      purpose: 'requested static IP',
      band: null,
      free: false,
      heldBy: [],
      error: 'failed to allocate IP 10.200.0.10: the provided network does not match the current range',
    });
  });

  it('rejects a requested address that is not an IP', () => {
    expect(() => analyzeClusterIPs([RANGE_16], [], { requestedStaticIPs: ['10.96.0.300'] })).toThrow(
      '"10.96.0.300" is not an IPv4 or IPv6 address',
    );
  });

  it('explains a range that is not ready, whose addresses a static request cannot get', () => {
    const [report] = analyzeClusterIPs([{ ...RANGE_16, ready: false }], []);
    expect(report.ready).toBe(false);
    expect(report.notes[0]).toContain('is not ready: dynamic allocation skips it');
    expect(report.wellKnown[1]).toMatchObject({ ip: '10.96.0.10', free: false });
  });

  it('notes host bits set on an annotated CIDR, and names the source of a bogus CIDR', () => {
    const [report] = analyzeClusterIPs([{ cidr: '10.96.0.5/16', source: 'annotation', ready: true }], []);
    expect(report.cidr).toBe('10.96.0.0/16');
    expect(report.notes).toEqual(['10.96.0.5/16 has host bits set; using 10.96.0.0/16']);
    expect(() => analyzeClusterIPs([{ cidr: '10.96.0.0/33', source: 'annotation', ready: true }], [])).toThrow(
      'the zonewise.io/service-cidr annotation: "10.96.0.0/33" is not a valid CIDR',
    );
    expect(() => analyzeClusterIPs([{ cidr: 'nope', source: 'kubernetes', ready: true }], [])).toThrow(CidrError);
  });

  it('returns no report without Service CIDRs', () => {
    expect(analyzeClusterIPs([], [service('a/b', ['10.96.0.1'])])).toEqual([]);
  });

  it('does not mutate its inputs', () => {
    const services = [kubeDns('10.96.5.10'), service('a/b', ['10.96.0.3'])];
    const cidrs = [RANGE_16];
    const before = structuredClone({ services, cidrs });
    analyzeClusterIPs(cidrs, services, { requestedStaticIPs: ['10.96.0.10'] });
    expect({ services, cidrs }).toEqual(before);
  });

  it('handles 10,000 Services over IPv4 and IPv6 ranges without enumerating them', () => {
    const services = Array.from({ length: 10_000 }, (_, i) =>
      service(`ns${i % 50}/svc${i}`, [
        formatIp({ family: 'IPv4', value: parseIp('10.96.1.1').value + BigInt(i) }),
        `fd00::${(i + 300).toString(16)}`,
      ]),
    );
    const cidrs = [
      RANGE_16,
      { cidr: '10.96.0.0/12', source: 'extra', ready: true },
      { cidr: 'fd00::/64', source: 'kubernetes', ready: true },
      { cidr: 'fd00::/48', source: 'bad', ready: true },
    ];
    // A /48 holds 2^80 addresses: enumerating them would never finish, so finishing is the proof.
    const reports = analyzeClusterIPs(cidrs, services);
    expect(reports.map((report) => report.allocated.total)).toEqual([10_000, 10_000, 10_000, 10_000]);
    expect(reports[2].free.dynamic).toBe(((1n << 64n) - 257n - 10_000n).toString());
  });
});

describe('allocateDynamic: upper band first, random start, wrap-around (ipallocator.go allocateNextService)', () => {
  const RANGE_27 = [{ cidr: '10.96.0.0/27', source: 'kubernetes', ready: true }];

  it('fills the whole upper band before touching the lower band, then reports range is full', () => {
    const random = seededRandom(42);
    const { taken, state } = allocateMany(allocationState(RANGE_27, []), 30, random);
    const upper = taken.slice(0, 14);
    const lower = taken.slice(14);
    expect(upper.every(({ band }) => band === 'dynamic')).toBe(true);
    expect(upper.map(({ ip }) => lastOctet(ip)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 14 }, (_, i) => 17 + i),
    );
    expect(lower.every(({ band }) => band === 'static')).toBe(true);
    expect(lower.map(({ ip }) => lastOctet(ip)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 16 }, (_, i) => 1 + i),
    );
    const full = allocateDynamic(state, 'IPv4', random);
    expect(full).toMatchObject({
      ok: false,
      reason: 'range is full',
      error: 'failed to allocate a serviceIP: range is full',
    });
  });

  it('starts at the random position of the upper band', () => {
    const outcome = expectOk(allocateDynamic(allocationState(RANGE_27, []), 'IPv4', () => 5n));
    expect(outcome).toMatchObject({ ip: '10.96.0.22', band: 'dynamic', cidr: '10.96.0.0/27', source: 'kubernetes' });
  });

  it('asks the random source for a position in [0, upper band size), then [0, offset)', () => {
    const asked: bigint[] = [];
    const spy: RandomSource = (max) => {
      asked.push(max);
      return 0n;
    };
    const fullUpper = Array.from({ length: 14 }, (_, i) => `10.96.0.${17 + i}`);
    allocateDynamic(allocationState(RANGE_27, []), 'IPv4', spy);
    allocateDynamic(allocationState(RANGE_27, fullUpper), 'IPv4', spy);
    expect(asked).toEqual([14n, 16n]);
  });

  it('moves up from a taken start and wraps from the last address to the first of the band', () => {
    const atEnd: RandomSource = (max) => max - 1n;
    let state = allocationState(RANGE_27, []);
    const first = expectOk(allocateDynamic(state, 'IPv4', atEnd));
    expect(first.ip).toBe('10.96.0.30');
    state = first.state;
    const second = expectOk(allocateDynamic(state, 'IPv4', atEnd));
    expect(second.ip).toBe('10.96.0.17');
    const third = expectOk(allocateDynamic(second.state, 'IPv4', () => 0n));
    expect(third.ip).toBe('10.96.0.18');
  });

  it('scans the lower band with its own random start and wrap-around', () => {
    const fullUpper = Array.from({ length: 14 }, (_, i) => `10.96.0.${17 + i}`);
    const state = allocationState(RANGE_27, [...fullUpper, '10.96.0.16']);
    const outcome = expectOk(allocateDynamic(state, 'IPv4', (max) => max - 1n));
    expect(outcome).toMatchObject({ ip: '10.96.0.1', band: 'static' });
  });

  it('skips a static address taken in the upper band', () => {
    const state = expectOk(allocateStatic(allocationState(RANGE_27, []), '10.96.0.22')).state;
    expect(expectOk(allocateDynamic(state, 'IPv4', () => 5n)).ip).toBe('10.96.0.23');
  });

  it('a range without a static band (/28) allocates from its whole usable range', () => {
    const cidrs = [{ cidr: '10.96.0.0/28', source: 'x', ready: true }];
    const { taken, state } = allocateMany(allocationState(cidrs, []), 14, seededRandom(7));
    expect(new Set(taken.map(({ ip }) => ip)).size).toBe(14);
    expect(taken.every(({ band }) => band === 'dynamic')).toBe(true);
    expect(allocateDynamic(state, 'IPv4', seededRandom(7)).ok).toBe(false);
  });

  it('a range with no usable address is full at once; a /48 has no allocator at all', () => {
    expect(
      allocateDynamic(allocationState([{ cidr: '10.96.0.0/32', source: 'x', ready: true }], []), 'IPv4', () => 0n),
    ).toMatchObject({
      ok: false,
      reason: 'range is full',
    });
    expect(
      allocateDynamic(allocationState([{ cidr: 'fd00::/48', source: 'x', ready: true }], []), 'IPv6', () => 0n).ok,
    ).toBe(false);
  });

  it('skips ranges that are full or not ready, and of the other family', () => {
    const cidrs = [
      { cidr: 'fd00::/120', source: 'v6', ready: true },
      { cidr: '10.96.0.0/29', source: 'full', ready: true },
      { cidr: '10.97.0.0/24', source: 'paused', ready: false },
      { cidr: '10.98.0.0/24', source: 'open', ready: true },
    ];
    const fullIPs = Array.from({ length: 6 }, (_, i) => `10.96.0.${i + 1}`);
    const outcome = expectOk(allocateDynamic(allocationState(cidrs, fullIPs), 'IPv4', () => 0n));
    expect(outcome).toMatchObject({ ip: '10.98.0.17', source: 'open' });
    const onlyPaused = allocationState([cidrs[2]], []);
    expect(allocateDynamic(onlyPaused, 'IPv4', () => 0n)).toMatchObject({
      ok: false,
      error: 'failed to allocate a serviceIP: range is full',
    });
  });

  it('handles a /64 upper band of 2^64-257 addresses with bigint positions', () => {
    const state = allocationState([{ cidr: 'fd00::/64', source: 'x', ready: true }], []);
    expect(expectOk(allocateDynamic(state, 'IPv6', (max) => max - 1n)).ip).toBe('fd00::ffff:ffff:ffff:ffff');
    expect(expectOk(allocateDynamic(state, 'IPv6', () => 0n)).ip).toBe('fd00::101');
    const random = seededRandom(3);
    const { ip } = expectOk(allocateDynamic(state, 'IPv6', random));
    expect(parseIp(ip).value).toBeGreaterThanOrEqual(parseIp('fd00::101').value);
  });

  it('never mutates the state it is given', () => {
    const state = allocationState(RANGE_27, ['10.96.0.17']);
    const outcome = expectOk(allocateDynamic(state, 'IPv4', () => 0n));
    expect(state.taken.IPv4.size).toBe(1);
    expect(outcome.state.taken.IPv4.size).toBe(2);
  });

  it('refuses a random source that answers outside [0, max)', () => {
    const state = allocationState(RANGE_27, []);
    expect(() => allocateDynamic(state, 'IPv4', (max) => max)).toThrow(RangeError);
    expect(() => allocateDynamic(state, 'IPv4', () => -1n)).toThrow(RangeError);
  });

  it('property: dynamic allocations never repeat an address and stay in usable addresses', () => {
    fc.assert(
      fc.property(fc.integer({ min: 24, max: 30 }), fc.integer(), (prefix, seed) => {
        const cidrs = [{ cidr: `10.96.0.0/${prefix}`, source: 'x', ready: true }];
        const usable = 2 ** (32 - prefix) - 2;
        const { taken, state } = allocateMany(allocationState(cidrs, []), usable, seededRandom(seed));
        const octets = taken.map(({ ip }) => parseIp(ip).value - parseIp('10.96.0.0').value);
        expect(new Set(octets).size).toBe(usable);
        expect(octets.every((offset) => offset >= 1n && offset <= BigInt(usable))).toBe(true);
        const firstStatic = taken.findIndex(({ band }) => band === 'static');
        const upperSize = usable - (prefix <= 27 ? 16 : 0);
        expect(firstStatic === -1 ? usable : firstStatic).toBe(upperSize);
        expect(allocateDynamic(state, 'IPv4', seededRandom(seed)).ok).toBe(false);
      }),
      { numRuns: 30 },
    );
  });
});

describe('allocateStatic (ipallocator.go allocateService)', () => {
  const RANGE_24 = [{ cidr: '10.96.0.0/24', source: 'kubernetes', ready: true }];

  it('accepts a free address in the static band (the DNS convention address)', () => {
    expect(expectOk(allocateStatic(allocationState(RANGE_24, []), '10.96.0.10'))).toMatchObject({
      ip: '10.96.0.10',
      band: 'static',
    });
  });

  it('accepts a free address in the upper (dynamic) band, and then it is taken', () => {
    const outcome = expectOk(allocateStatic(allocationState(RANGE_24, []), '10.96.0.200'));
    expect(outcome.band).toBe('dynamic');
    expect(allocateStatic(outcome.state, '10.96.0.200')).toMatchObject({
      ok: false,
      reason: 'provided IP is already allocated',
      error: 'failed to allocate IP 10.96.0.200: provided IP is already allocated',
    });
  });

  it('rejects the network and broadcast addresses as not in the valid range', () => {
    const state = allocationState(RANGE_24, []);
    expect(allocateStatic(state, '10.96.0.0')).toMatchObject({
      ok: false,
      error: 'failed to allocate IP 10.96.0.0: provided IP 10.96.0.0 is not in the valid range',
    });
    expect(allocateStatic(state, '10.96.0.255')).toMatchObject({
      ok: false,
      reason: 'provided IP 10.96.0.255 is not in the valid range',
    });
  });

  it('rejects an address no ready range contains as a network mismatch', () => {
    const cidrs = [...RANGE_24, { cidr: '10.97.0.0/24', source: 'paused', ready: false }];
    const state = allocationState(cidrs, []);
    expect(allocateStatic(state, '10.98.0.1')).toMatchObject({
      ok: false,
      error: 'failed to allocate IP 10.98.0.1: the provided network does not match the current range',
    });
    expect(allocateStatic(state, '10.97.0.1')).toMatchObject({
      ok: false,
      reason: 'the provided network does not match the current range',
    });
  });

  it('uses the canonical address in its answers and throws for non-addresses', () => {
    const state = allocationState([{ cidr: 'fd00::/112', source: 'x', ready: true }], []);
    expect(expectOk(allocateStatic(state, 'FD00:0:0:0:0:0:0:A')).ip).toBe('fd00::a');
    expect(() => allocateStatic(state, 'fd00::zz')).toThrow(CidrError);
  });

  it('releaseAddress frees an address and ignores free or foreign ones', () => {
    const state = expectOk(allocateStatic(allocationState(RANGE_24, []), '10.96.0.10')).state;
    const released = releaseAddress(state, '10.96.0.10');
    expect(allocateStatic(released, '10.96.0.10').ok).toBe(true);
    expect(state.taken.IPv4.size).toBe(1);
    expect(releaseAddress(released, '192.168.0.1')).toBe(released);
  });
});

describe('analyzeClusterIPs: band counts', () => {
  const addressArb = fc.oneof(
    fc
      .tuple(fc.constantFrom(96, 97), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
      .map(([b, c, d]) => `10.${b}.${c}.${d}`),
    fc.integer({ min: 0, max: 0xffff }).map((n) => `fd00:96::${n.toString(16)}`),
  );
  const cidrArb = fc.constantFrom('10.96.0.0/16', '10.96.0.0/24', '10.96.0.0/28', 'fd00:96::/112', 'fd00:96::/120');

  it('count each distinct address once per range it is usable in, by band (cidrContains and bandOf)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(cidrArb, { maxLength: 3 }), fc.array(addressArb, { maxLength: 40 }), (cidrs, ips) => {
        const inputs = cidrs.map((cidr) => ({ cidr, source: 'test', ready: true }));
        const services = ips.map((ip, i) => service(`ns/svc-${i}`, [ip]));
        const reports = analyzeClusterIPs(inputs, services);
        const distinct = [...new Map(ips.map((ip) => [formatIp(parseIp(ip)), parseIp(ip)])).values()];
        reports.forEach((report, index) => {
          const range = serviceIpRange(parseCidr(cidrs[index]));
          const inRange = distinct.filter((ip) => cidrContains(range.cidr, ip));
          const count = (band: string) => inRange.filter((ip) => bandOf(range, ip.value) === band).length;
          expect(report.allocated).toEqual({
            static: count('static'),
            dynamic: count('dynamic'),
            total: count('static') + count('dynamic'),
          });
        });
      }),
      { numRuns: 500 },
    );
  });
});
