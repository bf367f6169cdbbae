import { describe, expect, it } from 'vitest';
import {
  customTemplateProblem,
  measuredTrafficNote,
  measureTraffic,
  modelVsMeasured,
  monthlyGbOf,
  monthlyTrafficGb,
  labelDiscoveryQuery,
  podServicesOf,
  type PromSample,
  type ServiceMap,
  serviceMapOf,
  trafficQuery,
  wrongLabelsDetail,
} from '../src/index.js';
import { endpoint, podsOwnedBy, slice } from './fixtures.js';

const sample = (metric: Record<string, string>, bytes: number | string): PromSample => ({
  metric,
  value: [1_700_000_000, String(bytes)],
});

describe('trafficQuery', () => {
  it('is one instant query per preset: each metric a tagged part summed by what names the Service, and its coverage', () => {
    const beyla = trafficQuery({ preset: 'beyla', windowSeconds: 3600 });
    expect(beyla).toBe(
      [
        'label_replace(sum by (k8s_src_namespace, k8s_src_owner_name, k8s_src_owner_type, k8s_dst_namespace, k8s_dst_owner_name, k8s_dst_owner_type, direction, src_zone, dst_zone, cluster) (increase(beyla_network_flow_bytes_total[3600s])), "zw_part", "flow", "", "")',
        'label_replace(sum by (k8s_src_namespace, k8s_src_owner_name, k8s_src_owner_type, k8s_dst_namespace, k8s_dst_owner_name, k8s_dst_owner_type, direction, cluster) (increase(beyla_network_inter_zone_bytes_total[3600s])), "zw_part", "inter_zone", "", "")',
        'label_replace(min_over_time(timestamp(count({__name__=~"beyla_network_flow_bytes_total|beyla_network_inter_zone_bytes_total"}))[3600s:60s]), "zw_part", "coverage", "", "")',
      ].join(' or '),
    );
    const istio = trafficQuery({
      preset: 'istio',
      windowSeconds: 300,
      cluster: { label: 'k8s_cluster', value: 'eu-1' },
    });
    for (const metric of [
      'istio_request_bytes_sum',
      'istio_response_bytes_sum',
      'istio_tcp_received_bytes_total',
      'istio_tcp_sent_bytes_total',
    ]) {
      expect(istio).toContain(`increase(${metric}{reporter="destination", k8s_cluster="eu-1"}[300s])`);
    }
    expect(trafficQuery({ preset: 'opencost', windowSeconds: 60 })).toContain(
      'sum by (namespace, pod_name, pod, same_zone, sameZone, cluster) (increase(kubecost_pod_network_ingress_bytes_total{internet="false"}[60s]))',
    );
    expect(trafficQuery({ preset: 'linkerd', windowSeconds: 60 })).toContain(
      'sum by (dst_namespace, dst_service, dst_zone_locality, cluster) (increase(tcp_read_bytes_total{direction="outbound", dst_service!=""}[60s]))',
    );
    expect(
      trafficQuery({
        preset: 'custom',
        windowSeconds: 60,
        template: 'sum by (namespace, service) (increase(x{$cluster}[$window])) / $window',
        cluster: { label: 'cluster', value: 'a"b' },
      }),
    ).toBe('sum by (namespace, service) (increase(x{cluster="a\\"b"}[60s])) / 60s');
    expect(labelDiscoveryQuery({ preset: 'istio-ambient', windowSeconds: 60 })).toBe(
      'topk(20, {__name__=~"istio_tcp_received_bytes_total|istio_tcp_sent_bytes_total"})',
    );
  });

  it('refuses a custom template without the window placeholder or the Service labels', () => {
    expect(customTemplateProblem('sum by (namespace, service) (increase(x[$window]))')).toBeNull();
    expect(customTemplateProblem('sum by (namespace, service) (increase(x[1h]))')).toMatch(/\$window/);
    expect(customTemplateProblem('sum by (namespace) (increase(x[$window]))')).toMatch(/service/);
  });
});

const WINDOW = { windowSeconds: 300 };
const part = (id: string, metric: Record<string, string>, bytes: number | string) =>
  sample({ zw_part: id, ...metric }, bytes);

describe('measureTraffic', () => {
  it('sums bytes per Service', () => {
    const measured = measureTraffic(
      'custom',
      [sample({ namespace: 'shop', service: 'cart' }, 100), sample({ namespace: 'shop', service: 'cart' }, 50)],
      WINDOW,
    );
    expect(measured.problem).toBeNull();
    expect(measured.services).toEqual([
      { namespace: 'shop', name: 'cart', bytes: 150, zonedBytes: 0, crossZoneBytes: 0 },
    ]);
  });

  it('refuses a negative or non-finite increase as invalid-values, measuring nothing', () => {
    for (const bad of ['NaN', '-3', '+Inf']) {
      const measured = measureTraffic(
        'custom',
        [sample({ namespace: 'shop', service: 'cart' }, 100), sample({ namespace: 'shop', service: 'ads' }, bad)],
        WINDOW,
      );
      expect(measured.problem).toBe('invalid-values');
      expect(measured.services).toEqual([]);
      expect(measured.detail).toContain(`${bad} for {namespace="shop", service="ads"}`);
    }
  });

  it('says empty and wrong-labels instead of measuring nothing', () => {
    expect(measureTraffic('istio', [], WINDOW).problem).toBe('empty');
    const wrong = measureTraffic('istio', [part('http_request', { job: 'mesh' }, 5)], WINDOW);
    expect(wrong.problem).toBe('wrong-labels');
    expect(
      wrongLabelsDetail(wrong.detail!, [
        sample({ __name__: 'istio_request_bytes_sum', job: 'mesh', instance: 'a' }, 1),
      ]),
    ).toBe(
      'no series carries the labels destination_service_namespace and destination_service_name; labels the series carry: instance, job',
    );
  });

  it('is ambiguous when the series span several clusters and the source names none; the selector settles it', () => {
    const samples = [
      part('read', { dst_namespace: 'shop', dst_service: 'cart', cluster: 'eu-1' }, 10),
      part('read', { dst_namespace: 'shop', dst_service: 'cart', cluster: 'us-1' }, 10),
    ];
    const measured = measureTraffic('linkerd', samples, WINDOW);
    expect(measured.problem).toBe('ambiguous');
    expect(measured.clusters).toEqual(['eu-1', 'us-1']);
    expect(measured.detail).toMatch(/span 2 clusters \(cluster: eu-1, us-1\)/);
    const named = measureTraffic('linkerd', samples.slice(0, 1), {
      ...WINDOW,
      cluster: { label: 'cluster', value: 'eu-1' },
    });
    expect(named.problem).toBeNull();
  });

  it('istio and ztunnel: zones from source_zone/destination_zone, unknown ones left out', () => {
    const measured = measureTraffic(
      'istio-ambient',
      [
        part(
          'tcp_received',
          {
            destination_service_namespace: 'db',
            destination_service_name: 'pg',
            source_zone: 'a',
            destination_zone: 'a',
          },
          30,
        ),
        part(
          'tcp_sent',
          {
            destination_service_namespace: 'db',
            destination_service_name: 'pg',
            source_zone: 'b',
            destination_zone: 'a',
          },
          10,
        ),
        part(
          'tcp_sent',
          {
            destination_service_namespace: 'db',
            destination_service_name: 'pg',
            source_zone: 'unknown',
            destination_zone: 'a',
          },
          5,
        ),
        part('tcp_sent', { destination_service_namespace: 'unknown', destination_service_name: 'unknown' }, 99),
      ],
      WINDOW,
    );
    expect(measured.services).toEqual([{ namespace: 'db', name: 'pg', bytes: 45, zonedBytes: 40, crossZoneBytes: 10 }]);
    expect(measured.unmatchedSeries).toBe(1);
  });

  it('linkerd: dst_zone_locality remote crossed, local did not', () => {
    const measured = measureTraffic(
      'linkerd',
      [
        part('read', { dst_namespace: 'shop', dst_service: 'cart', dst_zone_locality: 'local' }, 60),
        part('write', { dst_namespace: 'shop', dst_service: 'cart', dst_zone_locality: 'remote' }, 40),
      ],
      WINDOW,
    );
    expect(measured.services).toEqual([
      { namespace: 'shop', name: 'cart', bytes: 100, zonedBytes: 100, crossZoneBytes: 40 },
    ]);
  });

  describe('beyla', () => {
    const services: ServiceMap = {
      pods: new Map(),
      owners: new Map([
        ['shop/cart', ['shop/cart']],
        ['shop/checkout', ['shop/checkout']],
      ]),
    };
    const flow = (
      src: string,
      dst: string,
      direction: string | null,
      bytes: number,
      extra: Record<string, string> = {},
    ) =>
      part(
        'flow',
        {
          k8s_src_namespace: 'shop',
          k8s_src_owner_name: src,
          k8s_src_owner_type: 'Deployment',
          k8s_dst_namespace: 'shop',
          k8s_dst_owner_name: dst,
          k8s_dst_owner_type: 'Deployment',
          ...(direction === null ? {} : { direction }),
          ...extra,
        },
        bytes,
      );

    it('credits requests to the destination and responses to the source: a Service’s own calls are not its traffic', () => {
      // checkout calls cart: 10 bytes of request, 90 of answer. A web client calls checkout: 5 and 50.
      const measured = measureTraffic(
        'beyla',
        [
          flow('checkout', 'cart', 'request', 10),
          flow('cart', 'checkout', 'response', 90),
          flow('web', 'checkout', 'request', 5),
          flow('checkout', 'web', 'response', 50),
        ],
        { ...WINDOW, services },
      );
      expect(measured.services.map(({ name, bytes }) => [name, bytes])).toEqual([
        ['cart', 100],
        ['checkout', 55],
      ]);
    });

    it('skips the copy Beyla reports against the Service in front of the workload', () => {
      const measured = measureTraffic(
        'beyla',
        [
          flow('web', 'checkout', 'request', 5),
          flow('web', 'checkout', 'request', 5, { k8s_dst_owner_type: 'Service' }),
        ],
        { ...WINDOW, services },
      );
      expect(measured.services).toEqual([
        { namespace: 'shop', name: 'checkout', bytes: 5, zonedBytes: 0, crossZoneBytes: 0 },
      ]);
      expect(measured.notes[0]).toMatch(/1 series name a Service as owner type/);
    });

    it('without a direction, the one end that backs a Service; neither or both: unmatched', () => {
      const measured = measureTraffic(
        'beyla',
        [flow('web', 'checkout', null, 5), flow('checkout', 'web', null, 50), flow('checkout', 'cart', null, 7)],
        { ...WINDOW, services },
      );
      expect(measured.services.map(({ name, bytes }) => [name, bytes])).toEqual([['checkout', 55]]);
      expect(measured.unmatchedSeries).toBe(1);
    });

    it('zones from src_zone/dst_zone, else from the inter-zone metric with owner attributes', () => {
      const zoned = measureTraffic(
        'beyla',
        [
          flow('web', 'cart', 'request', 30, { src_zone: 'a', dst_zone: 'a' }),
          flow('web', 'cart', 'request', 10, { src_zone: 'b', dst_zone: 'a' }),
        ],
        { ...WINDOW, services },
      );
      expect(zoned.services[0]).toMatchObject({ bytes: 40, zonedBytes: 40, crossZoneBytes: 10 });
      const interZone = measureTraffic(
        'beyla',
        [
          flow('web', 'cart', 'request', 40),
          flow('web', 'checkout', 'request', 20),
          {
            ...flow('web', 'cart', null, 10),
            metric: { ...flow('web', 'cart', null, 10).metric, zw_part: 'inter_zone' },
          },
        ],
        { ...WINDOW, services },
      );
      expect(
        interZone.services.map(({ name, zonedBytes, crossZoneBytes }) => [name, zonedBytes, crossZoneBytes]),
      ).toEqual([
        ['cart', 40, 10],
        ['checkout', 20, 0],
      ]);
    });

    it('an inter-zone metric with its default attributes (zones only) is noted, not used', () => {
      const measured = measureTraffic(
        'beyla',
        [flow('web', 'cart', 'request', 40), part('inter_zone', { src_zone: 'a', dst_zone: 'b' }, 9)],
        { ...WINDOW, services },
      );
      expect(measured.services[0]).toMatchObject({ bytes: 40, zonedBytes: 0 });
      expect(measured.notes.join()).toMatch(/carries no owner attributes/);
    });
  });

  it('opencost: a Pod’s ingress and egress, both label spellings of the zone', () => {
    const services: ServiceMap = { pods: new Map([['shop/cart-1', ['shop/cart']]]), owners: new Map() };
    const measured = measureTraffic(
      'opencost',
      [
        part('ingress', { namespace: 'shop', pod_name: 'cart-1', same_zone: 'true' }, 10),
        part('egress', { namespace: 'shop', pod_name: 'cart-1', sameZone: 'false' }, 30),
        part('egress', { namespace: 'shop', pod: 'cart-1', same_zone: 'true' }, 60),
        part('egress', { namespace: 'shop', pod_name: 'unknown-pod', same_zone: 'true' }, 5),
      ],
      { ...WINDOW, services },
    );
    expect(measured.services).toEqual([
      { namespace: 'shop', name: 'cart', bytes: 100, zonedBytes: 100, crossZoneBytes: 30 },
    ]);
    expect(measured.unmatchedSeries).toBe(1);
  });

  it('coverage: the share of the window the source has data for', () => {
    const at = (first: number) => ({ metric: { zw_part: 'coverage' }, value: [10_000, String(first)] as const });
    const data = part('read', { dst_namespace: 'shop', dst_service: 'cart' }, 1);
    expect(measureTraffic('linkerd', [data, at(10_000 - 300 + 5)], WINDOW).coverage).toBe(1);
    const half = measureTraffic('linkerd', [data, at(10_000 - 150)], WINDOW);
    expect(half.coverage).toBe(0.5);
    expect(half.coveredSeconds).toBe(150);
  });
});

describe('serviceMapOf', () => {
  it('reads Pod targetRefs of the EndpointSlices, in the slice namespace unless the ref names one', () => {
    const cart = slice('cart-abc', ['a', 'b'], { service: 'cart', namespace: 'shop' });
    cart.endpoints[0] = { ...cart.endpoints[0], targetRef: { kind: 'Pod', name: 'cart-1' } };
    cart.endpoints[1] = { ...cart.endpoints[1], targetRef: { kind: 'Node', name: 'node-1' } };
    const other = slice('ext-abc', ['a'], { service: 'ext', namespace: 'external' });
    other.endpoints[0] = { ...endpoint('a'), targetRef: { kind: 'Pod', name: 'cart-1', namespace: 'shop' } };
    expect(podServicesOf({ endpointSlices: [cart, other] })).toEqual(
      new Map([['shop/cart-1', ['external/ext', 'shop/cart']]]),
    );
  });

  it('maps workload owners through the snapshot’s Pods, else through the names controllers give Pods', () => {
    const web = slice('web-abc', ['a', 'b'], { service: 'web', namespace: 'shop' });
    const owned = podsOwnedBy([web], () => ({ kind: 'Deployment', name: 'storefront' }));
    expect(serviceMapOf({ endpointSlices: [web], ...owned }).owners.get('shop/storefront')).toEqual(['shop/web']);
    const bare = slice('db-abc', ['a'], { service: 'db', namespace: 'shop' });
    bare.endpoints[0].targetRef = { kind: 'Pod', name: 'ledger-0' };
    const byName = serviceMapOf({ endpointSlices: [bare] });
    expect(byName.owners.get('shop/ledger')).toEqual(['shop/db']);
    expect(byName.owners.get('shop/ledger-0')).toEqual(['shop/db']);
  });
});

describe('the savings model with a measured volume', () => {
  it('puts the measurement after the API value and before the annotation and the default', () => {
    const measured = { gb: 120, note: 'measured: istio, query q, window 3600s, at t' };
    const annotations = { 'zonewise.io/monthly-traffic-gb': '999' };
    expect(monthlyTrafficGb({ explicitGb: 5, annotations, readyEndpoints: 2, measured })).toMatchObject({
      gb: 5,
      source: 'api',
    });
    expect(monthlyTrafficGb({ annotations, readyEndpoints: 2, measured })).toEqual({
      gb: 120,
      source: 'measured',
      estimate: false,
      note: measured.note,
    });
    expect(monthlyTrafficGb({ annotations, readyEndpoints: 2, measured: null }).source).toBe('annotation');
  });

  it('turns bytes over a window into GB per 730-hour month, and says where it came from', () => {
    expect(monthlyGbOf(1e9, 730 * 3600)).toBeCloseTo(1, 12);
    expect(monthlyGbOf(3600e9, 3600)).toBeCloseTo(730 * 3600, 6);
    expect(measuredTrafficNote({ preset: 'linkerd', query: 'q', windowSeconds: 300, measuredAt: new Date(0) })).toBe(
      'measured: linkerd, query q, window 300s, at 1970-01-01T00:00:00.000Z',
    );
  });

  it('compares the model with the measurement: errors are estimate − measured', () => {
    const compared = modelVsMeasured({
      estimatedGb: 150,
      estimatedCrossZone: 0.6,
      measuredGb: 100,
      measuredCrossZone: 0.25,
      pricePerGb: 0.02,
    });
    expect(compared.estimated.trafficGb).toBe(150);
    expect(compared.measured.trafficGb).toBe(100);
    expect(compared.error.trafficGb).toBe(50);
    expect(compared.error.crossZone).toBeCloseTo(0.35, 12);
    expect(compared.estimated.cost).toBeCloseTo(1.8, 12);
    expect(compared.measured.cost).toBeCloseTo(0.5, 12);
    expect(compared.error.cost).toBeCloseTo(1.3, 12);
    const noZones = modelVsMeasured({
      estimatedGb: 1,
      estimatedCrossZone: 0.5,
      pricePerGb: 0.02,
      measuredGb: 2,
      measuredCrossZone: null,
    });
    expect(noZones.measured).toEqual({ trafficGb: 2, crossZone: null, cost: null });
    expect(noZones.error).toEqual({ trafficGb: -1, crossZone: null, cost: null });
  });
});
