import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../src/k8s-objects.js';
import { kubeProxyView } from '../src/proxy-filter.js';
import { parseIP } from '../src/proxy-addresses.js';
import { categorizeEndpoints } from '../src/proxy-categorize-endpoints.js';
import { proxyConditions, type ProxyEndpoint } from '../src/proxy-endpointslice-cache.js';
import { TOPOLOGY_FALLBACK, type ProxyNode } from '../src/proxy-topology-mode.js';
import { portTrafficPolicy } from '../src/proxy-traffic-policy.js';
import {
  deepFreeze,
  proxyTestEndpoint as ep,
  proxyTestService as svc,
  proxyTestSlice as slice,
  type ProxyTestEndpointOptions,
} from './fixtures.js';

const R = { ready: true, serving: true, terminating: false } as const;
const ST = { ready: false, serving: true, terminating: true } as const;
const NOT_READY = { ready: false, serving: false, terminating: false } as const;

const ip = (last: number) => `10.0.0.${last}`;
const nodeIn = (zone: string, name = 'n1'): ProxyNode => ({ name, zone });

/** Endpoint `.last` hinted for the given zones, ready unless told otherwise. */
function hinted(last: number, zones: string[], options: ProxyTestEndpointOptions = R): ReturnType<typeof ep> {
  return ep(ip(last), { forZones: zones, ...options });
}

function view(service: Service, slices: EndpointSlice[], node: ProxyNode, nodeHintsEnabled?: boolean) {
  return kubeProxyView(deepFreeze(service), deepFreeze(slices), node, { nodeHintsEnabled });
}

const example1Slices = () => [
  slice('web-1', [hinted(3, ['zone-a']), hinted(4, ['zone-b']), hinted(5, ['zone-c']), hinted(6, ['zone-a'])]),
];

describe('kube-proxy (pkg/proxy/topology.go CategorizeEndpoints): worked examples', () => {
  it('1: ClusterIP, ITP Cluster, node in zone-a keeps the zone-a hinted endpoints', () => {
    const result = view(svc(), example1Slices(), nodeIn('zone-a'));
    expect(result.clusterEndpoints).toEqual([ip(3), ip(6)]);
    expect(result.localEndpoints).toBeNull();
    expect(result.topologyFiltered).toBe(true);
    expect(result.topologyMode).toBe('PreferSameZone');
    expect(result.reason).toBeNull();
    expect(result.ports).toHaveLength(1);
    expect(result.ports[0].clusterEndpoints).toEqual(['10.0.0.3:8080', '10.0.0.6:8080']);
    expect(result.ports[0].allReachableEndpoints).toEqual(result.ports[0].clusterEndpoints);
    expect(result.ports[0].hasAnyEndpoints).toBe(true);
  });

  it('2: one ready endpoint without hints disables zone filtering', () => {
    const slices = [
      slice('web-1', [hinted(3, ['zone-a']), hinted(4, ['zone-b']), ep(ip(5), R), hinted(6, ['zone-a'])]),
    ];
    const result = view(svc(), slices, nodeIn('zone-a'));
    expect(result.clusterEndpoints).toEqual([ip(3), ip(4), ip(5), ip(6)]);
    expect(result.topologyFiltered).toBe(false);
    expect(result.topologyMode).toBeNull();
    expect(result.reason).toBe(TOPOLOGY_FALLBACK.endpointMissingZoneHint);
  });

  it('3: zone-b gets its one endpoint; an unhinted zone and a node without zone label get all four', () => {
    expect(view(svc(), example1Slices(), nodeIn('zone-b')).clusterEndpoints).toEqual([ip(4)]);

    const zoneD = view(svc(), example1Slices(), nodeIn('zone-d'));
    expect(zoneD.clusterEndpoints).toEqual([ip(3), ip(4), ip(5), ip(6)]);
    expect(zoneD.reason).toBe(TOPOLOGY_FALLBACK.noZoneHintForZone);

    const unlabelled = view(svc(), example1Slices(), nodeIn(''));
    expect(unlabelled.clusterEndpoints).toEqual([ip(3), ip(4), ip(5), ip(6)]);
    expect(unlabelled.reason).toBe(TOPOLOGY_FALLBACK.nodeMissingZoneLabel);
  });

  it('4: hints on non-ready endpoints are irrelevant: no ready endpoint for zone-a means no filtering', () => {
    const slices = [
      slice('web-1', [
        hinted(3, ['zone-a'], NOT_READY),
        hinted(4, ['zone-b']),
        hinted(5, ['zone-c']),
        hinted(6, ['zone-a'], NOT_READY),
      ]),
    ];
    const result = view(svc(), slices, nodeIn('zone-a'));
    expect(result.clusterEndpoints).toEqual([ip(4), ip(5)]);
    expect(result.topologyFiltered).toBe(false);
    expect(result.reason).toBe(TOPOLOGY_FALLBACK.noZoneHintForZone);
  });

  it('5: one ready endpoint for the zone is enough', () => {
    const slices = [
      slice('web-1', [
        hinted(3, ['zone-a']),
        hinted(4, ['zone-b']),
        hinted(5, ['zone-c']),
        hinted(6, ['zone-a'], NOT_READY),
      ]),
    ];
    expect(view(svc(), slices, nodeIn('zone-a')).clusterEndpoints).toEqual([ip(3)]);
  });

  it('6: endpoints hinted for several zones serve each of them', () => {
    const slices = [
      slice('web-1', [
        hinted(3, ['zone-a', 'zone-b', 'zone-c']),
        hinted(4, ['zone-b', 'zone-c']),
        hinted(5, ['zone-b', 'zone-d']),
        hinted(6, ['zone-c']),
      ]),
    ];
    expect(view(svc(), slices, nodeIn('zone-c')).clusterEndpoints).toEqual([ip(3), ip(4), ip(6)]);
  });

  it('7: ETP Local NodePort: local endpoints ignore topology and the union mixes both', () => {
    const service = svc({
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, nodePort: 30080 }],
    });
    const slices = [
      slice('web-1', [
        hinted(3, ['zone-a'], { ...R, node: 'n1' }),
        hinted(4, ['zone-b'], { ...R, node: 'n1' }),
        hinted(5, ['zone-c'], { ...R, node: 'n2' }),
        hinted(6, ['zone-a'], { ...R, node: 'n3' }),
      ]),
    ];
    const result = view(service, slices, nodeIn('zone-a', 'n1'));
    expect(result.clusterEndpoints).toEqual([ip(3), ip(6)]);
    expect(result.localEndpoints).toEqual([ip(3), ip(4)]);
    expect(result.ports[0].allReachableEndpoints).toEqual(['10.0.0.3:8080', '10.0.0.4:8080', '10.0.0.6:8080']);
    expect(result.topologyFiltered).toBe(true);
  });

  it('8: ITP Local ClusterIP with only remote endpoints: no cluster list, empty local list, endpoints elsewhere', () => {
    const slices = [slice('web-1', [ep('10.0.0.10', { ...R, node: 'n2' }), ep('10.0.0.11', { ...R, node: 'n3' })])];
    const result = view(svc({ internalTrafficPolicy: 'Local' }), slices, nodeIn('zone-a', 'n1'));
    expect(result.clusterEndpoints).toBeNull();
    expect(result.localEndpoints).toEqual([]);
    expect(result.ports[0].allReachableEndpoints).toEqual([]);
    expect(result.ports[0].hasAnyEndpoints).toBe(true);
    expect(result.hasAnyEndpoints).toBe(true);
  });

  describe('9: PreferSameNode hints', () => {
    const slices = () => [
      slice('web-1', [
        ep(ip(1), { ...R, zone: 'zone-a', node: 'n1', forZones: ['zone-a'], forNodes: ['n1'] }),
        ep(ip(2), { ...R, zone: 'zone-a', node: 'n2', forZones: ['zone-a'], forNodes: ['n2'] }),
        ep(ip(3), { ...R, zone: 'zone-b', node: 'n3', forZones: ['zone-b'], forNodes: ['n3'] }),
      ]),
    ];

    it('on n1 (which hosts .1) keeps only .1', () => {
      const result = view(svc(), slices(), { name: 'n1', zone: 'zone-a' });
      expect(result.clusterEndpoints).toEqual([ip(1)]);
      expect(result.topologyMode).toBe('PreferSameNode');
      expect(result.topologyFiltered).toBe(true);
      expect(result.reason).toBeNull();
    });

    it('on n4 in zone-a (no endpoint there) falls back to the zone', () => {
      const result = view(svc(), slices(), { name: 'n4', zone: 'zone-a' });
      expect(result.clusterEndpoints).toEqual([ip(1), ip(2)]);
      expect(result.topologyMode).toBe('PreferSameZone');
      expect(result.reason).toBeNull();
      expect(result.ports[0].kubeProxyLogs).toEqual([TOPOLOGY_FALLBACK.noNodeHintForNode]);
    });

    it('on n5 in zone-c falls back to everything, giving the zone reason then the node reason', () => {
      const result = view(svc(), slices(), { name: 'n5', zone: 'zone-c' });
      expect(result.clusterEndpoints).toEqual([ip(1), ip(2), ip(3)]);
      expect(result.topologyMode).toBeNull();
      expect(result.reason).toBe(`${TOPOLOGY_FALLBACK.noZoneHintForZone}; ${TOPOLOGY_FALLBACK.noNodeHintForNode}`);
    });

    it('with node hints disabled in kube-proxy only the zone logic applies', () => {
      const onN1 = view(svc(), slices(), { name: 'n1', zone: 'zone-a' }, false);
      expect(onN1.clusterEndpoints).toEqual([ip(1), ip(2)]);
      expect(onN1.topologyMode).toBe('PreferSameZone');
      expect(onN1.ports[0].kubeProxyLogs).toEqual([]);
      const onN5 = view(svc(), slices(), { name: 'n5', zone: 'zone-c' }, false);
      expect(onN5.reason).toBe(TOPOLOGY_FALLBACK.noZoneHintForZone);
    });

    it('node hints alone, disabled in kube-proxy, count as no hints at all', () => {
      const nodeOnly = [slice('web-1', [ep(ip(1), { ...R, node: 'n1', forNodes: ['n1'] })])];
      const result = view(svc(), nodeOnly, { name: 'n2', zone: 'zone-a' }, false);
      expect(result.clusterEndpoints).toEqual([ip(1)]);
      expect(result.reason).toBeNull();
    });
  });

  it('10: no ready endpoint: serving-terminating ones are used, topology ignored', () => {
    const slices = [
      slice('web-1', [
        hinted(1, ['zone-a'], ST),
        hinted(2, ['zone-b'], ST),
        ep(ip(3), { ready: false, serving: false, terminating: true }),
      ]),
    ];
    const result = view(svc(), slices, nodeIn('zone-a'));
    expect(result.clusterEndpoints).toEqual([ip(1), ip(2)]);
    expect(result.topologyMode).toBeNull();
    expect(result.topologyFiltered).toBe(false);
    expect(result.reason).toBeNull();
    expect(result.ports[0].kubeProxyLogs).toEqual([]);
  });
});

describe('kube-proxy: fallback reasons', () => {
  const nodeHinted = (last: number, node: string, zones: string[] = ['zone-a']) =>
    ep(ip(last), { ...R, forZones: zones, forNodes: [node] });

  it('node hints complete but none for this node, zone hints fine: filtered by zone, no reason', () => {
    const result = view(svc(), [slice('s', [nodeHinted(1, 'n2'), nodeHinted(2, 'n3')])], nodeIn('zone-a', 'n1'));
    expect(result.topologyMode).toBe('PreferSameZone');
    expect(result.reason).toBeNull();
    expect(result.ports[0].kubeProxyLogs).toEqual([TOPOLOGY_FALLBACK.noNodeHintForNode]);
  });

  it('some ready endpoint lacks a node hint: logged, but not part of the reason', () => {
    const slices = [slice('s', [nodeHinted(1, 'n1'), hinted(2, ['zone-b'])])];
    const result = view(svc(), slices, nodeIn('zone-c', 'n1'));
    expect(result.topologyMode).toBeNull();
    expect(result.ports[0].kubeProxyLogs).toEqual([
      TOPOLOGY_FALLBACK.endpointMissingNodeHint,
      TOPOLOGY_FALLBACK.noZoneHintForZone,
    ]);
    expect(result.reason).toBe(TOPOLOGY_FALLBACK.noZoneHintForZone);
  });

  it('node hints complete, zone hints missing on one endpoint', () => {
    const slices = [slice('s', [nodeHinted(1, 'n2'), ep(ip(2), { ...R, forNodes: ['n3'] })])];
    const result = view(svc(), slices, nodeIn('zone-a', 'n1'));
    expect(result.clusterEndpoints).toEqual([ip(1), ip(2)]);
    expect(result.reason).toBe(`${TOPOLOGY_FALLBACK.endpointMissingZoneHint}; ${TOPOLOGY_FALLBACK.noNodeHintForNode}`);
  });

  it('node without zone label', () => {
    expect(view(svc(), example1Slices(), nodeIn('')).reason).toBe(TOPOLOGY_FALLBACK.nodeMissingZoneLabel);
  });

  it('no hints for this zone', () => {
    expect(view(svc(), example1Slices(), nodeIn('zone-x')).reason).toBe(TOPOLOGY_FALLBACK.noZoneHintForZone);
  });

  it('one ready endpoint missing a zone hint', () => {
    const slices = [slice('s', [hinted(1, ['zone-a']), ep(ip(2), R)])];
    expect(view(svc(), slices, nodeIn('zone-a')).reason).toBe(TOPOLOGY_FALLBACK.endpointMissingZoneHint);
  });

  it('no reason when no ready endpoint carries any hint (the Service does not use topology)', () => {
    const slices = [slice('s', [ep(ip(1), R), hinted(2, ['zone-a'], NOT_READY)])];
    const result = view(svc(), slices, nodeIn('zone-a'));
    expect(result.reason).toBeNull();
    expect(result.topologyFiltered).toBe(false);
    expect(result.ports[0].kubeProxyLogs).toEqual([
      TOPOLOGY_FALLBACK.endpointMissingNodeHint,
      TOPOLOGY_FALLBACK.endpointMissingZoneHint,
    ]);
  });
});

describe('kube-proxy: readiness (absent ready/serving = true, absent terminating = false)', () => {
  it('reads conditions with kube-proxy defaults, unlike the controller', () => {
    expect(proxyConditions({ addresses: ['10.0.0.1'] })).toEqual({ ready: true, serving: true, terminating: false });
    expect(proxyConditions({ addresses: ['10.0.0.1'], conditions: {} })).toEqual(R);
    expect(
      proxyConditions({ addresses: ['10.0.0.1'], conditions: { ready: null, serving: null, terminating: null } }),
    ).toEqual(R);
    expect(proxyConditions({ addresses: ['10.0.0.1'], conditions: { ready: false, terminating: true } })).toEqual(ST);
  });

  // [ready, serving, terminating] as written (undefined = absent) -> where the endpoint ends up
  // for a Cluster-policy port when it is the only endpoint: 'ready' (normal pass), 'terminating'
  // (serving-terminating fallback) or 'unused'.
  type Flag = boolean | undefined;
  const table: [Flag, Flag, Flag, 'ready' | 'terminating' | 'unused'][] = [
    [undefined, undefined, undefined, 'ready'],
    [undefined, undefined, true, 'ready'],
    [undefined, undefined, false, 'ready'],
    [undefined, true, undefined, 'ready'],
    [undefined, true, true, 'ready'],
    [undefined, true, false, 'ready'],
    [undefined, false, undefined, 'ready'],
    [undefined, false, true, 'ready'],
    [undefined, false, false, 'ready'],
    [true, undefined, undefined, 'ready'],
    [true, undefined, true, 'ready'],
    [true, undefined, false, 'ready'],
    [true, true, undefined, 'ready'],
    [true, true, true, 'ready'],
    [true, true, false, 'ready'],
    [true, false, undefined, 'ready'],
    [true, false, true, 'ready'],
    [true, false, false, 'ready'],
    [false, undefined, undefined, 'unused'],
    [false, undefined, true, 'terminating'],
    [false, undefined, false, 'unused'],
    [false, true, undefined, 'unused'],
    [false, true, true, 'terminating'],
    [false, true, false, 'unused'],
    [false, false, undefined, 'unused'],
    [false, false, true, 'unused'],
    [false, false, false, 'unused'],
  ];

  it.each(table)('ready=%s serving=%s terminating=%s -> %s', (ready, serving, terminating, expected) => {
    const hintedForOtherZone = ep(ip(1), { ready, serving, terminating, node: 'n1', forZones: ['zone-b'] });
    const cluster = view(svc(), [slice('s', [hintedForOtherZone])], nodeIn('zone-a', 'n1'));
    expect(cluster.clusterEndpoints).toEqual(expected === 'unused' ? [] : [ip(1)]);
    expect(cluster.hasAnyEndpoints).toBe(expected !== 'unused');
    // Topology only ever applies to ready endpoints: a lone ready endpoint hinted elsewhere still
    // serves (the zone has no hint, so kube-proxy falls back) with the zone reason.
    expect(cluster.reason).toBe(expected === 'ready' ? TOPOLOGY_FALLBACK.noZoneHintForZone : null);

    const local = view(
      svc({ internalTrafficPolicy: 'Local' }),
      [slice('s', [hintedForOtherZone])],
      nodeIn('zone-a', 'n1'),
    );
    expect(local.localEndpoints).toEqual(expected === 'unused' ? [] : [ip(1)]);
  });

  it('Local policy prefers local ready endpoints over local serving-terminating ones', () => {
    const slices = [
      slice('s', [ep(ip(1), { ...ST, node: 'n1' }), ep(ip(2), { ...R, node: 'n1' }), ep(ip(3), { ...R, node: 'n2' })]),
    ];
    const result = view(svc({ internalTrafficPolicy: 'Local' }), slices, nodeIn('zone-a', 'n1'));
    expect(result.localEndpoints).toEqual([ip(2)]);
  });

  it('Local policy falls back to local serving-terminating endpoints and then unions them with the cluster list', () => {
    const service = svc({
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, nodePort: 30080 }],
    });
    const slices = [slice('s', [ep(ip(1), { ...ST, node: 'n1' }), ep(ip(2), { ...R, node: 'n2' })])];
    const result = view(service, slices, nodeIn('zone-a', 'n1'));
    expect(result.clusterEndpoints).toEqual([ip(2)]);
    expect(result.localEndpoints).toEqual([ip(1)]);
    expect(result.ports[0].allReachableEndpoints).toEqual(['10.0.0.1:8080', '10.0.0.2:8080']);
  });

  it('an endpoint without nodeName is never local, and a node without a name has no local endpoints', () => {
    const slices = [slice('s', [ep(ip(1), R), ep(ip(2), { ...R, node: '' })])];
    expect(view(svc({ internalTrafficPolicy: 'Local' }), slices, { name: '', zone: 'zone-a' }).localEndpoints).toEqual(
      [],
    );
  });
});

describe('kube-proxy: endpoint identities and duplicates', () => {
  it('a non-terminating duplicate replaces a terminating one whatever the slice order', () => {
    const terminating = ep(ip(1), { ...ST, node: 'n2', forZones: ['zone-b'] });
    const running = ep(ip(1), { ...R, node: 'n1', forZones: ['zone-a'] });
    for (const [first, second] of [
      [terminating, running],
      [running, terminating],
    ]) {
      const result = view(svc(), [slice('web-a', [first]), slice('web-b', [second])], nodeIn('zone-a'));
      expect(result.clusterEndpoints).toEqual([ip(1)]);
      expect(result.topologyMode).toBe('PreferSameZone');
    }
  });

  it('between two non-terminating duplicates the later slice by name wins, independent of listing order', () => {
    const notReady = ep(ip(1), { ready: false, serving: false, terminating: false });
    const ready = ep(ip(1), R);
    const asListed = view(svc(), [slice('web-a', [notReady]), slice('web-b', [ready])], nodeIn('zone-a'));
    const reversed = view(svc(), [slice('web-b', [ready]), slice('web-a', [notReady])], nodeIn('zone-a'));
    expect(asListed.clusterEndpoints).toEqual([ip(1)]);
    expect(reversed).toEqual(asListed);
    // And the other way round: the not-ready sighting in the later slice replaces the ready one.
    const later = view(svc(), [slice('web-b', [notReady]), slice('web-a', [ready])], nodeIn('zone-a'));
    expect(later.clusterEndpoints).toEqual([]);
    expect(later.hasAnyEndpoints).toBe(false);
  });

  it('between two terminating duplicates the first seen stays', () => {
    const serving = ep(ip(1), ST);
    const notServing = ep(ip(1), { ready: false, serving: false, terminating: true });
    const result = view(svc(), [slice('web-a', [serving]), slice('web-b', [notServing])], nodeIn('zone-a'));
    expect(result.clusterEndpoints).toEqual([ip(1)]);
  });

  it('identities are per port number: the same IP under two port numbers is two endpoints', () => {
    const slices = [
      slice('web-a', [ep(ip(1), R)], { ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }),
      slice('web-b', [ep(ip(1), R)], { ports: [{ name: 'http', port: 9090, protocol: 'TCP' }] }),
    ];
    const result = view(svc(), slices, nodeIn('zone-a'));
    expect(result.ports[0].clusterEndpoints).toEqual(['10.0.0.1:8080', '10.0.0.1:9090']);
    expect(result.clusterEndpoints).toEqual([ip(1)]);
  });

  it('re-serialises addresses canonically, IPv6 in brackets, and sorts by identity', () => {
    const service = svc({ clusterIP: 'fd00::10', clusterIPs: ['fd00::10'], ipFamilies: ['IPv6'] });
    const slices = [
      slice(
        'web-v6',
        [
          ep('2001:DB8:0:0:0:0:0:1', R),
          ep('2001:db8:0:0:1:0:0:1', R),
          ep('2001:db8:0:1:1:1:1:1', R),
          ep('fd00:0000::0a', R),
        ],
        { addressType: 'IPv6' },
      ),
      slice('web-v4', [ep('10.0.0.1', R)]),
    ];
    const result = view(service, slices, nodeIn('zone-a'));
    expect(result.ports[0].ipFamily).toBe('IPv6');
    expect(result.ports[0].clusterEndpoints).toEqual([
      '[2001:db8:0:1:1:1:1:1]:8080',
      '[2001:db8::1:0:0:1]:8080',
      '[2001:db8::1]:8080',
      '[fd00::a]:8080',
    ]);
    expect(result.clusterEndpoints).toEqual(['2001:db8:0:1:1:1:1:1', '2001:db8::1', '2001:db8::1:0:0:1', 'fd00::a']);
  });

  it('parses addresses as kube-proxy does (sloppy IPv4, RFC 5952 IPv6)', () => {
    expect(parseIP('010.000.000.007')).toEqual({ family: 'IPv4', text: '10.0.0.7' });
    expect(parseIP('::')).toEqual({ family: 'IPv6', text: '::' });
    expect(parseIP('0:0:0:0:0:0:0:1')).toEqual({ family: 'IPv6', text: '::1' });
    expect(parseIP('1:0:0:2:0:0:0:3')).toEqual({ family: 'IPv6', text: '1:0:0:2::3' });
    expect(parseIP('::ffff:10.1.2.3')).toEqual({ family: 'IPv4', text: '10.1.2.3' });
    expect(parseIP('64:ff9b::192.0.2.33')).toEqual({ family: 'IPv6', text: '64:ff9b::c000:221' });
    for (const bad of [
      '10.0.0',
      '10.0.0.256',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7::8',
      'fe80::1%eth0',
      'x',
    ]) {
      expect(parseIP(bad)).toBeNull();
    }
  });

  it('drops endpoints without addresses and ignores FQDN slices and ports of another name or protocol', () => {
    const slices: EndpointSlice[] = [
      slice('web-a', [{ addresses: [] }, ep(ip(1), R)]),
      slice('web-fqdn', [ep('db.example.com', R)], { addressType: 'FQDN' }),
      slice('web-udp', [ep(ip(2), R)], { ports: [{ name: 'http', port: 8080, protocol: 'UDP' }] }),
      slice('web-other', [ep(ip(3), R)], { ports: [{ name: 'metrics', port: 9100, protocol: 'TCP' }] }),
      slice('web-zero', [ep(ip(4), R)], { ports: [{ name: 'http', port: 0, protocol: 'TCP' }] }),
    ];
    expect(view(svc(), slices, nodeIn('zone-a')).clusterEndpoints).toEqual([ip(1)]);
  });

  it('unnamed ports and absent protocols match as the API server defaults them ("" and TCP)', () => {
    const service = svc({ ports: [{ port: 80 }] });
    const slices = [slice('web-a', [ep(ip(1), R)], { ports: [{ port: 8080 }] })];
    expect(view(service, slices, nodeIn('zone-a')).ports[0].clusterEndpoints).toEqual(['10.0.0.1:8080']);
  });
});

describe('kube-proxy: traffic policies', () => {
  const localAndRemote = () => [
    slice('s', [hinted(1, ['zone-a'], { ...R, node: 'n1' }), hinted(2, ['zone-b'], { ...R, node: 'n2' })]),
  ];

  it('ETP Local on a NodePort port builds both lists', () => {
    const service = svc({
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, nodePort: 30080 }],
    });
    const result = view(service, localAndRemote(), nodeIn('zone-b', 'n1'));
    expect(result.clusterEndpoints).toEqual([ip(2)]);
    expect(result.localEndpoints).toEqual([ip(1)]);
  });

  it('ETP Local on a LoadBalancer: a VIP-mode ingress IP of the family makes the port externally accessible', () => {
    const lb = (ipMode?: string, address = '203.0.113.7') =>
      svc(
        { type: 'LoadBalancer', externalTrafficPolicy: 'Local', allocateLoadBalancerNodePorts: false },
        { loadBalancer: { ingress: [{ ip: address, ...(ipMode ? { ipMode } : {}) }] } },
      );
    expect(view(lb(), localAndRemote(), nodeIn('zone-a', 'n1')).localEndpoints).toEqual([ip(1)]);
    expect(view(lb('VIP'), localAndRemote(), nodeIn('zone-a', 'n1')).localEndpoints).toEqual([ip(1)]);
    expect(view(lb('Proxy'), localAndRemote(), nodeIn('zone-a', 'n1')).localEndpoints).toBeNull();
    expect(view(lb(undefined, '2001:db8::7'), localAndRemote(), nodeIn('zone-a', 'n1')).localEndpoints).toBeNull();
  });

  it('ETP Local on a ClusterIP Service only matters with an externalIP of the family', () => {
    expect(
      view(svc({ externalTrafficPolicy: 'Local' }), localAndRemote(), nodeIn('zone-a', 'n1')).localEndpoints,
    ).toBeNull();
    const withExternalIP = svc({ externalTrafficPolicy: 'Local', externalIPs: ['198.51.100.9'] });
    expect(view(withExternalIP, localAndRemote(), nodeIn('zone-a', 'n1')).localEndpoints).toEqual([ip(1)]);
    const withV6ExternalIP = svc({ externalTrafficPolicy: 'Local', externalIPs: ['2001:db8::9'] });
    expect(view(withV6ExternalIP, localAndRemote(), nodeIn('zone-a', 'n1')).localEndpoints).toBeNull();
  });

  it('ETP Cluster on a NodePort: no local list', () => {
    const service = svc({ type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }] });
    expect(view(service, localAndRemote(), nodeIn('zone-a', 'n1')).localEndpoints).toBeNull();
  });

  it('ITP Local: topology hints are not used (topology.go CategorizeEndpoints never filters local endpoints); only local endpoints, no reason', () => {
    const result = view(svc({ internalTrafficPolicy: 'Local' }), localAndRemote(), nodeIn('zone-b', 'n1'));
    expect(result.clusterEndpoints).toBeNull();
    expect(result.localEndpoints).toEqual([ip(1)]);
    expect(result.topologyFiltered).toBe(false);
    expect(result.topologyMode).toBeNull();
    expect(result.reason).toBeNull();
    expect(result.ports[0].kubeProxyLogs).toEqual([]);
  });

  it('ITP Local with a NodePort still builds topology-filtered cluster endpoints for external traffic', () => {
    const service = svc({
      type: 'NodePort',
      internalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, nodePort: 30080 }],
    });
    const result = view(service, localAndRemote(), nodeIn('zone-b', 'n1'));
    expect(result.clusterEndpoints).toEqual([ip(2)]);
    expect(result.localEndpoints).toEqual([ip(1)]);
    expect(result.topologyFiltered).toBe(true);
  });

  it('computes usesCluster/usesLocal per port and family', () => {
    const service = svc({
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      internalTrafficPolicy: 'Local',
      ports: [
        { name: 'http', port: 80, nodePort: 30080 },
        { name: 'internal', port: 81 },
      ],
    });
    const ports = service.spec?.ports ?? [];
    expect(portTrafficPolicy(service, ports[0], 'IPv4')).toEqual({ usesCluster: true, usesLocal: true });
    expect(portTrafficPolicy(service, ports[1], 'IPv4')).toEqual({ usesCluster: false, usesLocal: true });
  });
});

describe('kube-proxy: empty and null lists', () => {
  it('a Service without endpoints builds the lists it uses, empty', () => {
    const plain = view(svc(), [], nodeIn('zone-a'));
    expect(plain.clusterEndpoints).toEqual([]);
    expect(plain.localEndpoints).toBeNull();
    expect(plain.hasAnyEndpoints).toBe(false);
    expect(plain.topologyFiltered).toBe(false);
    expect(plain.reason).toBeNull();

    const service = svc({
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, nodePort: 30080 }],
    });
    const external = view(service, [slice('s', [])], nodeIn('zone-a'));
    expect(external.clusterEndpoints).toEqual([]);
    expect(external.localEndpoints).toEqual([]);
  });

  it('a Service with no ports gets nothing programmed: both lists null', () => {
    const result = view(svc({ ports: [] }), [slice('s', [ep(ip(1), R)])], nodeIn('zone-a'));
    expect(result).toMatchObject({ clusterEndpoints: null, localEndpoints: null, topologyFiltered: false, ports: [] });
  });

  it('headless and ExternalName Services are skipped by kube-proxy', () => {
    const headless = svc({ clusterIP: 'None', clusterIPs: ['None'] });
    expect(view(headless, [slice('s', [ep(ip(1), R)])], nodeIn('zone-a')).clusterEndpoints).toBeNull();
    const external = svc({
      type: 'ExternalName',
      clusterIP: undefined,
      clusterIPs: undefined,
      externalName: 'x.example.com',
    });
    expect(view(external, [], nodeIn('zone-a')).clusterEndpoints).toBeNull();
  });

  it('an empty cluster list is distinct from null: all endpoints not ready and not terminating', () => {
    const result = view(svc(), [slice('s', [ep(ip(1), NOT_READY)])], nodeIn('zone-a'));
    expect(result.clusterEndpoints).toEqual([]);
    expect(result.hasAnyEndpoints).toBe(false);
  });
});

describe('kube-proxy: dual-stack', () => {
  const dualStack = () =>
    svc({ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::10'], ipFamilies: ['IPv4', 'IPv6'] });
  const slices = () => [
    slice('web-v4', [hinted(1, ['zone-a']), hinted(2, ['zone-b'])]),
    slice('web-v6', [ep('fd00::1', { ...R, forZones: ['zone-a'] }), ep('fd00::2', { ...R, forZones: ['zone-b'] })], {
      addressType: 'IPv6',
    }),
  ];

  it('programs both families and merges them', () => {
    const result = view(dualStack(), slices(), nodeIn('zone-a'));
    expect(result.ports.map((port) => port.ipFamily)).toEqual(['IPv4', 'IPv6']);
    expect(result.clusterEndpoints).toEqual([ip(1), 'fd00::1']);
    expect(result.topologyFiltered).toBe(true);
  });

  it('a single-stack Service ignores slices of the other family', () => {
    const result = view(svc(), slices(), nodeIn('zone-a'));
    expect(result.clusterEndpoints).toEqual([ip(1)]);
  });

  it('the Service is topology-filtered only if every port with ready endpoints is', () => {
    const mixed = [
      slice('web-v4', [hinted(1, ['zone-a'])]),
      slice('web-v6', [ep('fd00::1', R)], { addressType: 'IPv6' }),
    ];
    const result = view(dualStack(), mixed, nodeIn('zone-a'));
    expect(result.ports.map((port) => port.topologyMode)).toEqual(['PreferSameZone', null]);
    expect(result.topologyFiltered).toBe(false);
    expect(result.topologyMode).toBeNull();
    expect(result.reason).toBeNull();
  });
});

describe('categorizeEndpoints (per port)', () => {
  const proxyEndpoint = (last: number, fields: Partial<ProxyEndpoint> = {}): ProxyEndpoint => ({
    identity: `${ip(last)}:80`,
    ip: ip(last),
    nodeName: null,
    ready: true,
    serving: true,
    terminating: false,
    zoneHints: [],
    nodeHints: [],
    ...fields,
  });

  it('no endpoints at all: nothing usable, lists follow the policy', () => {
    expect(categorizeEndpoints([], { usesCluster: true, usesLocal: true }, nodeIn('zone-a'))).toEqual({
      clusterEndpoints: [],
      localEndpoints: [],
      allReachableEndpoints: [],
      hasAnyEndpoints: false,
      topologyMode: null,
      reason: null,
      kubeProxyLogs: [],
    });
  });

  it('mode none with ready-only local endpoints reuses the cluster list as all reachable', () => {
    const endpoints = [proxyEndpoint(1, { nodeName: 'n1' }), proxyEndpoint(2)];
    const result = categorizeEndpoints(endpoints, { usesCluster: true, usesLocal: true }, nodeIn('zone-a', 'n1'));
    expect(result.allReachableEndpoints.map((e) => e.identity)).toEqual(['10.0.0.1:80', '10.0.0.2:80']);
    expect(result.localEndpoints?.map((e) => e.identity)).toEqual(['10.0.0.1:80']);
  });

  const arbitraryEndpoints = fc
    .uniqueArray(
      fc.record({
        last: fc.integer({ min: 1, max: 254 }),
        ready: fc.boolean(),
        serving: fc.boolean(),
        terminating: fc.boolean(),
        nodeName: fc.option(fc.constantFrom('n1', 'n2', 'n3'), { nil: null }),
        zoneHints: fc.subarray(['zone-a', 'zone-b', 'zone-c', '']),
        nodeHints: fc.subarray(['n1', 'n2', 'n3']),
      }),
      { selector: (e) => e.last, maxLength: 12 },
    )
    .map((records) =>
      records
        .map(({ last, ...fields }) => proxyEndpoint(last, fields))
        .sort((a, b) => (a.identity < b.identity ? -1 : 1)),
    );

  it('property: with ITP Cluster, a ready endpoint always yields a non-empty cluster list, whatever the hints', () => {
    fc.assert(
      fc.property(
        arbitraryEndpoints,
        fc.constantFrom('zone-a', 'zone-b', 'zone-d', ''),
        fc.constantFrom('n1', 'n4'),
        fc.boolean(),
        fc.boolean(),
        (endpoints, zone, name, externalLocal, nodeHintsEnabled) => {
          const policy = { usesCluster: true, usesLocal: externalLocal };
          const result = categorizeEndpoints(endpoints, policy, { name, zone }, { nodeHintsEnabled });
          if (endpoints.some((e) => e.ready)) {
            expect(result.clusterEndpoints?.length).toBeGreaterThan(0);
            expect(result.clusterEndpoints?.every((e) => e.ready)).toBe(true);
            expect(result.hasAnyEndpoints).toBe(true);
          }
          const all = new Set(result.allReachableEndpoints.map((e) => e.identity));
          for (const e of [...(result.clusterEndpoints ?? []), ...(result.localEndpoints ?? [])]) {
            expect(all.has(e.identity)).toBe(true);
          }
        },
      ),
    );
  });
});

describe('kube-proxy view properties', () => {
  const arbitrarySlices = fc
    .array(
      fc.array(
        fc.record({
          last: fc.integer({ min: 1, max: 12 }),
          ready: fc.option(fc.boolean(), { nil: undefined }),
          serving: fc.option(fc.boolean(), { nil: undefined }),
          terminating: fc.option(fc.boolean(), { nil: undefined }),
          node: fc.option(fc.constantFrom('n1', 'n2', 'n3'), { nil: undefined }),
          forZones: fc.subarray(['zone-a', 'zone-b', 'zone-c']),
          forNodes: fc.subarray(['n1', 'n2', 'n3']),
        }),
        { maxLength: 6 },
      ),
      { maxLength: 4 },
    )
    .map((groups) =>
      groups.map((group, index) =>
        slice(
          `web-${index}`,
          group.map(({ last, ...options }) => ep(ip(last), options)),
        ),
      ),
    );

  const arbitraryService = fc.constantFrom(
    svc(),
    svc({ type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{ name: 'http', port: 80, nodePort: 30080 }] }),
  );

  it('property: results do not depend on slice order (duplicates included)', () => {
    fc.assert(
      fc.property(
        arbitrarySlices.chain((slices) =>
          fc.tuple(fc.constant(slices), fc.shuffledSubarray(slices, { minLength: slices.length })),
        ),
        arbitraryService,
        fc.constantFrom('zone-a', 'zone-b', ''),
        ([slices, shuffled], service, zone) => {
          const node = { name: 'n1', zone };
          expect(kubeProxyView(service, shuffled, node)).toEqual(kubeProxyView(service, slices, node));
        },
      ),
    );
  });

  it('property: with ITP Cluster, a ready endpoint (kube-proxy meaning) always yields cluster endpoints', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            ready: fc.option(fc.boolean(), { nil: undefined }),
            forZones: fc.subarray(['zone-a', 'zone-b', 'zone-c']),
            forNodes: fc.subarray(['n1', 'n2']),
          }),
          { maxLength: 8 },
        ),
        fc.constantFrom('zone-a', 'zone-c', 'zone-z', ''),
        arbitraryService,
        (records, zone, service) => {
          const slices = [
            slice(
              'web-0',
              records.map((options, index) => ep(ip(index + 1), options)),
            ),
          ];
          const result = kubeProxyView(service, slices, { name: 'n1', zone });
          const anyReady = records.some((record) => record.ready !== false);
          if (anyReady) expect(result.clusterEndpoints?.length).toBeGreaterThan(0);
          else expect(result.clusterEndpoints).toEqual([]);
        },
      ),
    );
  });
});
