import { describe, expect, it } from 'vitest';
import type { SliceSets } from '../src/hints.js';
import type { EndpointSlice } from '../src/k8s-objects.js';
import {
  applyPreferCloseUntil133,
  applyTrafficDistribution,
  sliceNeedsHintUpdate,
  wantsNodeHints,
} from '../src/traffic-distribution.js';
import { type EndpointSpec, deepFreeze, slice } from './fixtures.js';

const hintsOf = (s: EndpointSlice | undefined) => s?.endpoints.map((e) => e.hints);
const names = (list: readonly EndpointSlice[]) => list.map((s) => s.metadata.name);

function sets(partial: Partial<SliceSets>): SliceSets {
  return deepFreeze({
    toCreate: partial.toCreate ?? [],
    toUpdate: partial.toUpdate ?? [],
    unchanged: partial.unchanged ?? [],
  });
}

describe('which unchanged slices need an update (trafficdist.go preferCloseHeuristic.needsUpdate)', () => {
  const needs = (endpoint: EndpointSpec, nodeHints = false) => sliceNeedsHintUpdate(slice('s', [endpoint]), nodeHints);

  it('an endpoint with a zone needs exactly one forZones entry naming it', () => {
    expect(needs({ zone: 'a', hints: ['a'] })).toBe(false);
    expect(needs({ zone: 'a' })).toBe(true);
    expect(needs({ zone: 'a', hints: ['b'] })).toBe(true);
    expect(needs({ zone: 'a', hints: ['a', 'b'] })).toBe(true);
    expect(needs({ zone: 'a', hints: [] })).toBe(true);
  });

  it('an endpoint with an empty zone string still "has a zone" (trafficdist.go preferCloseHeuristic.needsUpdate)', () => {
    expect(needs({ zone: '', hints: [''] })).toBe(false);
    expect(needs({ zone: '' })).toBe(true);
  });

  it('an endpoint without a zone must have no zone hints', () => {
    expect(needs({})).toBe(false);
    expect(needs({ hints: [] })).toBe(false);
    expect(needs({ hints: ['a'] })).toBe(true);
  });

  it('node hints: exactly the own node when wanted, none otherwise', () => {
    expect(needs({ zone: 'a', hints: ['a'], nodeName: 'n1', nodeHints: ['n1'] }, true)).toBe(false);
    expect(needs({ zone: 'a', hints: ['a'], nodeName: 'n1' }, true)).toBe(true);
    expect(needs({ zone: 'a', hints: ['a'], nodeName: 'n1', nodeHints: ['n2'] }, true)).toBe(true);
    expect(needs({ zone: 'a', hints: ['a'], nodeHints: ['n2'] }, true)).toBe(true);
    expect(needs({ zone: 'a', hints: ['a'] }, true)).toBe(false);
    expect(needs({ zone: 'a', hints: ['a'], nodeName: 'n1', nodeHints: ['n1'] }, false)).toBe(true);
    expect(needs({ zone: 'a', hints: ['a'], nodeName: 'n1' }, false)).toBe(false);
  });

  it('non-ready endpoints are not examined (trafficdist.go endpointReady)', () => {
    expect(needs({ zone: 'a', ready: false, hints: ['z'] })).toBe(false);
    expect(needs({ zone: 'a', ready: null })).toBe(false);
  });

  it('only PreferSameNode wants node hints', () => {
    expect(wantsNodeHints('PreferSameNode')).toBe(true);
    expect(wantsNodeHints('PreferSameZone')).toBe(false);
    expect(wantsNodeHints('PreferClose')).toBe(false);
  });
});

describe('applyTrafficDistribution (trafficdist.go ReconcileHints)', () => {
  it.each(['PreferClose', 'PreferSameZone'] as const)('%s hints every ready endpoint for its own zone only', (mode) => {
    const result = applyTrafficDistribution(
      sets({
        toCreate: [
          slice('c', [
            { zone: 'a', nodeName: 'n1' },
            { zone: 'b', hints: ['a'], nodeHints: ['n9'] },
            { nodeName: 'n3' },
          ]),
        ],
      }),
      mode,
    );
    expect(hintsOf(result.toCreate[0])).toEqual([
      { forZones: [{ name: 'a' }] },
      { forZones: [{ name: 'b' }] },
      undefined,
    ]);
    expect('hints' in (result.toCreate[0]?.endpoints[2] ?? {})).toBe(false);
  });

  it('PreferSameNode adds the own node; an endpoint with only a node name gets only forNodes', () => {
    const result = applyTrafficDistribution(
      sets({ toUpdate: [slice('u', [{ zone: 'a', nodeName: 'n1' }, { nodeName: 'n3' }, { zone: 'b' }])] }),
      'PreferSameNode',
    );
    expect(hintsOf(result.toUpdate[0])).toEqual([
      { forZones: [{ name: 'a' }], forNodes: [{ name: 'n1' }] },
      { forNodes: [{ name: 'n3' }] },
      { forZones: [{ name: 'b' }] },
    ]);
  });

  it('leaves non-ready endpoints exactly as they were', () => {
    const result = applyTrafficDistribution(
      sets({
        toCreate: [
          slice('c', [
            { zone: 'a', ready: false, hints: ['z'] },
            { zone: 'a', ready: null },
          ]),
        ],
      }),
      'PreferClose',
    );
    expect(hintsOf(result.toCreate[0])).toEqual([{ forZones: [{ name: 'z' }] }, undefined]);
  });

  it('rewrites unchanged slices only when needed, appending them to toUpdate in unchanged order', () => {
    const good = slice('good', [{ zone: 'a', hints: ['a'] }]);
    const stale = slice('stale', [{ zone: 'a', hints: ['b'] }]);
    const bare = slice('bare', ['b']);
    const result = applyTrafficDistribution(
      sets({ toUpdate: [slice('u', ['a'])], unchanged: [stale, good, bare] }),
      'PreferClose',
    );
    expect(names(result.toUpdate)).toEqual(['u', 'stale', 'bare']);
    expect(result.toUpdateSources[1]).toBe(stale);
    expect(result.unchanged).toHaveLength(1);
    expect(result.unchanged[0]).toBe(good);
    expect(hintsOf(result.toUpdate[1])).toEqual([{ forZones: [{ name: 'a' }] }]);
    expect(hintsOf(result.toUpdate[2])).toEqual([{ forZones: [{ name: 'b' }] }]);
  });

  it('does not use CPU, minimum counts or zones of other endpoints: 4 endpoints in 3 zones all keep their zone', () => {
    const result = applyTrafficDistribution(sets({ toCreate: [slice('c', ['a', 'a', 'b', 'c'])] }), 'PreferClose');
    expect(result.toCreate[0]?.endpoints.map((e) => e.hints?.forZones?.[0]?.name)).toEqual(['a', 'a', 'b', 'c']);
  });

  it('returns new slice objects and does not mutate input', () => {
    const s = slice('c', ['a']);
    const result = applyTrafficDistribution(sets({ toCreate: [s] }), 'PreferClose');
    expect(result.toCreate[0]).not.toBe(s);
    expect(s.endpoints[0]?.hints).toBeUndefined();
  });
});

describe('applyPreferCloseUntil133 (trafficdist.go preferCloseHeuristic, k8s.io/endpointslice v0.30.0 to v0.32.x)', () => {
  it('hints a ready endpoint without a zone for the zone "" (update, lines 137-141 at v0.32.0)', () => {
    const result = applyPreferCloseUntil133(
      sets({ toCreate: [slice('c', [{ zone: 'a' }, { nodeName: 'n3' }, { zone: 'b', ready: false }])] }),
    );
    expect(hintsOf(result.toCreate[0])).toEqual([
      { forZones: [{ name: 'a' }] },
      { forZones: [{ name: '' }] },
      undefined,
    ]);
  });

  it('compares only zone hints, as "" for an endpoint without a zone (needsUpdate)', () => {
    const withNodeHints = slice('node-hinted', [{ zone: 'a', hints: ['a'], nodeHints: ['n1'] }]);
    const emptyZoneHinted = slice('empty-zone', [{ nodeName: 'n3', hints: [''] }]);
    const unhinted = slice('unhinted', [{ zone: 'a', hints: ['a'] }, { nodeName: 'n3' }]);
    const result = applyPreferCloseUntil133(sets({ unchanged: [withNodeHints, emptyZoneHinted, unhinted] }));
    // A stale node hint is not looked at (v0.33.0 on rewrites it away: applyTrafficDistribution).
    expect(result.unchanged).toEqual([withNodeHints, emptyZoneHinted]);
    expect(names(result.toUpdate)).toEqual(['unhinted']);
    expect(hintsOf(result.toUpdate[0])).toEqual([{ forZones: [{ name: 'a' }] }, { forZones: [{ name: '' }] }]);
    expect(names(applyTrafficDistribution(sets({ unchanged: [withNodeHints] }), 'PreferClose').toUpdate)).toEqual([
      'node-hinted',
    ]);
  });

  it('replaces the whole hints of an endpoint it rewrites, node hints included', () => {
    const result = applyPreferCloseUntil133(
      sets({ toUpdate: [slice('u', [{ zone: 'a', hints: ['b'], nodeHints: ['n1'] }])] }),
    );
    expect(hintsOf(result.toUpdate[0])).toEqual([{ forZones: [{ name: 'a' }] }]);
  });
});
