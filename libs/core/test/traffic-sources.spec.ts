import { describe, expect, it } from 'vitest';
import {
  customTemplateProblem,
  measuredCrossZoneFraction,
  measuredTrafficNote,
  measureTraffic,
  modelVsMeasured,
  monthlyGbOf,
  monthlyTrafficGb,
  podServicesOf,
  type PromSample,
  trafficQuery,
} from '../src/index.js';
import { endpoint, slice } from './fixtures.js';

const sample = (metric: Record<string, string>, bytes: number | string): PromSample => ({
  metric,
  value: [1_700_000_000, String(bytes)],
});

describe('trafficQuery', () => {
  it('is one instant query per preset, over the window, grouped by what names the Service', () => {
    expect(trafficQuery({ preset: 'beyla', windowSeconds: 3600 })).toBe(
      'sum by (k8s_dst_namespace, k8s_dst_name, k8s_dst_type, src_zone, dst_zone) (increase(beyla_network_flow_bytes_total[3600s]))',
    );
    const istio = trafficQuery({ preset: 'istio', windowSeconds: 300 });
    expect(istio).toContain('increase(istio_request_bytes_sum{reporter="destination"}[300s])');
    expect(istio).toContain('increase(istio_response_bytes_sum{reporter="destination"}[300s])');
    expect(
      trafficQuery({
        preset: 'custom',
        windowSeconds: 60,
        template: 'sum by (namespace, service) (increase(x[$window])) / $window',
      }),
    ).toBe('sum by (namespace, service) (increase(x[60s])) / 60s');
  });

  it('refuses a custom template without the window placeholder or the Service labels', () => {
    expect(customTemplateProblem('sum by (namespace, service) (increase(x[$window]))')).toBeNull();
    expect(customTemplateProblem('sum by (namespace, service) (increase(x[1h]))')).toMatch(/\$window/);
    expect(customTemplateProblem('sum by (namespace) (increase(x[$window]))')).toMatch(/service/);
  });
});

describe('measureTraffic', () => {
  it('sums bytes per Service, skipping NaN and negative values', () => {
    const measured = measureTraffic('custom', [
      sample({ namespace: 'shop', service: 'cart' }, 100),
      sample({ namespace: 'shop', service: 'cart' }, 50),
      sample({ namespace: 'shop', service: 'ads' }, 'NaN'),
      sample({ namespace: 'shop', service: 'search' }, -3),
    ]);
    expect(measured.problem).toBeNull();
    expect(measured.services).toEqual([
      { namespace: 'shop', name: 'cart', bytes: 150, zonedBytes: 0, crossZoneBytes: 0 },
    ]);
  });

  it('says empty and wrong-labels instead of measuring nothing', () => {
    expect(measureTraffic('istio', []).problem).toBe('empty');
    const wrong = measureTraffic('istio', [sample({ job: 'mesh', instance: 'a' }, 5)]);
    expect(wrong.problem).toBe('wrong-labels');
    expect(wrong.detail).toMatch(
      /destination_service_namespace and destination_service_name; labels seen: instance, job/,
    );
  });

  it('maps Pods to their Services, splits a shared Pod, reads zones, and counts what it cannot place', () => {
    const pods = new Map([
      ['shop/cart-1', ['shop/cart']],
      ['shop/both-1', ['shop/cart', 'shop/legacy-cart']],
    ]);
    const measured = measureTraffic(
      'beyla',
      [
        sample({ k8s_dst_namespace: 'shop', k8s_dst_name: 'cart-1', src_zone: 'a', dst_zone: 'a' }, 300),
        sample({ k8s_dst_namespace: 'shop', k8s_dst_name: 'cart-1', src_zone: 'b', dst_zone: 'a' }, 100),
        sample({ k8s_dst_namespace: 'shop', k8s_dst_name: 'both-1', src_zone: 'b', dst_zone: 'a' }, 200),
        sample({ k8s_dst_namespace: 'shop', k8s_dst_name: 'gone-1', src_zone: 'a', dst_zone: 'a' }, 999),
        sample({ k8s_dst_namespace: 'shop', k8s_dst_name: 'checkout', k8s_dst_type: 'Service' }, 70),
      ],
      pods,
    );
    expect(measured.unmatchedSeries).toBe(1);
    const byName = new Map(measured.services.map((entry) => [entry.name, entry]));
    expect(byName.get('cart')).toEqual({
      namespace: 'shop',
      name: 'cart',
      bytes: 500,
      zonedBytes: 500,
      crossZoneBytes: 200,
    });
    expect(byName.get('legacy-cart')?.bytes).toBe(100);
    expect(byName.get('checkout')).toMatchObject({ bytes: 70, zonedBytes: 0 });
    expect(measuredCrossZoneFraction(byName.get('cart')!)).toBeCloseTo(0.4, 12);
    expect(measuredCrossZoneFraction(byName.get('checkout')!)).toBeNull();
  });

  it('reads OpenCost same_zone as the crossing', () => {
    const measured = measureTraffic(
      'opencost',
      [
        sample({ namespace: 'shop', pod_name: 'cart-1', same_zone: 'true' }, 75),
        sample({ namespace: 'shop', pod_name: 'cart-1', same_zone: 'false' }, 25),
      ],
      new Map([['shop/cart-1', ['shop/cart']]]),
    );
    expect(measuredCrossZoneFraction(measured.services[0])).toBeCloseTo(0.25, 12);
  });
});

describe('podServicesOf', () => {
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
