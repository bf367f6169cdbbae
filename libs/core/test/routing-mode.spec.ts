import { describe, expect, it } from 'vitest';
import {
  TOPOLOGY_AWARE_HINTS_ANNOTATION,
  TOPOLOGY_MODE_ANNOTATION,
  hintsEnabledByAnnotation,
  routingOf,
  usableTrafficDistribution,
} from '../src/routing-mode.js';
import { service } from './fixtures.js';

const mode = (value: string) => ({ [TOPOLOGY_MODE_ANNOTATION]: value });
const legacy = (value: string) => ({ [TOPOLOGY_AWARE_HINTS_ANNOTATION]: value });

describe('hintsEnabledByAnnotation (utils.go hintsEnabled)', () => {
  it.each([
    [{}, false],
    [mode('Auto'), true],
    [mode('auto'), true],
    [mode('AUTO'), false],
    [mode('aUto'), false],
    [mode('Disabled'), false],
    [mode('PreferZone'), false],
    [mode(''), false],
    [legacy('auto'), true],
    [legacy('Auto'), true],
    [legacy('true'), false],
    [{ ...legacy('Disabled'), ...mode('Auto') }, false],
    [{ ...legacy(''), ...mode('Auto') }, false],
    [{ ...legacy('Auto'), ...mode('Disabled') }, true],
  ])('%j -> %s', (annotations, enabled) => {
    expect(hintsEnabledByAnnotation(service({ annotations }))).toBe(enabled);
  });

  it('a Service without annotations at all is not enabled', () => {
    const svc = service();
    delete svc.metadata.annotations;
    expect(hintsEnabledByAnnotation(svc)).toBe(false);
  });
});

describe('usableTrafficDistribution (reconciler.go validTrafficDistribution)', () => {
  it.each([
    [undefined, null],
    ['PreferClose', 'PreferClose'],
    ['PreferSameZone', 'PreferSameZone'],
    ['PreferSameNode', 'PreferSameNode'],
    ['preferClose', null],
    ['PreferRegion', null],
    ['', null],
  ])('%s -> %s (Kubernetes 1.35 defaults)', (trafficDistribution, usable) => {
    expect(usableTrafficDistribution(service({ trafficDistribution }))).toBe(usable);
  });

  it('PreferSame* need the PreferSameTrafficDistribution feature; PreferClose does not', () => {
    const off = { preferSameTrafficDistribution: false };
    expect(usableTrafficDistribution(service({ trafficDistribution: 'PreferSameZone' }), off)).toBeNull();
    expect(usableTrafficDistribution(service({ trafficDistribution: 'PreferSameNode' }), off)).toBeNull();
    expect(usableTrafficDistribution(service({ trafficDistribution: 'PreferClose' }), off)).toBe('PreferClose');
  });
});

describe('routingOf: the decision table (reconciler.go reconcileByAddressType)', () => {
  it.each([
    [mode('Auto'), undefined, 'Auto'],
    [mode('Auto'), 'PreferClose', 'Auto'],
    [mode('auto'), 'PreferSameNode', 'Auto'],
    [{}, undefined, 'None'],
    [{}, 'Unknown', 'None'],
    [mode('Disabled'), undefined, 'None'],
    [{}, 'PreferClose', 'PreferClose'],
    [{}, 'PreferSameZone', 'PreferSameZone'],
    [{}, 'PreferSameNode', 'PreferSameNode'],
    [mode('Disabled'), 'PreferClose', 'PreferClose'],
    [{ ...legacy('Disabled'), ...mode('Auto') }, 'PreferSameZone', 'PreferSameZone'],
  ])('annotations %j, trafficDistribution %s -> %s', (annotations, trafficDistribution, routing) => {
    expect(routingOf(service({ annotations, trafficDistribution }))).toBe(routing);
  });

  it('without the PreferSame feature, PreferSame* route like no hints', () => {
    expect(
      routingOf(service({ trafficDistribution: 'PreferSameNode' }), { preferSameTrafficDistribution: false }),
    ).toBe('None');
  });
});
