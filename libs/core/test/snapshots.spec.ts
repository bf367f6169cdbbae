import { describe, expect, it } from 'vitest';
import { capturedAtRetentionProblem, parseTimestamp } from '../src/captured-at.js';
import { parseSnapshot, parseSnapshotJson, SnapshotError, statedCapturedAt } from '../src/snapshots.js';
import { node, service, slice } from './fixtures.js';

function list(items: unknown[], annotations?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'List', metadata: annotations ? { annotations } : {}, items };
}

function errorOf(input: unknown): SnapshotError {
  try {
    parseSnapshot(input);
  } catch (error) {
    if (error instanceof SnapshotError) return error;
    throw error;
  }
  throw new Error('expected a SnapshotError');
}

const aNode = () => node({ name: 'n1', zone: 'zone-a', cpu: '4' });

describe('parseSnapshot: accepted forms', () => {
  it('reads a kubectl List, keeping the four kinds in input order and ignoring the others', () => {
    const snapshot = parseSnapshot(
      list([
        aNode(),
        { kind: 'Pod', metadata: { name: 'ignored' } },
        service(),
        slice('web-1', ['zone-a']),
        {
          kind: 'ServiceCIDR',
          apiVersion: 'networking.k8s.io/v1',
          metadata: { name: 'kubernetes' },
          spec: { cidrs: ['10.96.0.0/16'] },
        },
      ]),
    );
    expect(snapshot.nodes.map((n) => n.metadata.name)).toEqual(['n1']);
    expect(snapshot.services.map((s) => s.metadata.name)).toEqual(['web']);
    expect(snapshot.endpointSlices.map((s) => s.metadata.name)).toEqual(['web-1']);
    expect(snapshot.serviceCIDRs[0].spec.cidrs).toEqual(['10.96.0.0/16']);
  });

  it('reads the wrapped form, with missing lists taken as empty', () => {
    const snapshot = parseSnapshot({ nodes: [aNode()], services: [service()] });
    expect(snapshot.nodes).toHaveLength(1);
    expect(snapshot.endpointSlices).toEqual([]);
    expect(snapshot.serviceCIDRs).toEqual([]);
  });

  it('reads the zonewise List annotations', () => {
    const snapshot = parseSnapshot(
      list([], {
        'zonewise.io/service-cidr': '10.96.0.0/16, fd00::/108',
        'zonewise.io/zone-traffic-weights': 'zone-a=3, zone-b=1',
      }),
    );
    expect(snapshot.annotatedServiceCIDRs).toEqual(['10.96.0.0/16', 'fd00::/108']);
    expect(snapshot.zoneTrafficWeights).toEqual({ 'zone-a': 3, 'zone-b': 1 });
  });

  it('an EndpointSlice without endpoints (the API server omits the field) has none', () => {
    const empty = { ...slice('web-1', []), endpoints: null };
    expect(parseSnapshot(list([empty])).endpointSlices[0].endpoints).toEqual([]);
  });
});

describe('parseSnapshot: bad input names the JSON path and what was expected', () => {
  it.each([
    ['not an object', [1, 2], '', 'expected a Kubernetes List'],
    ['no recognisable shape', { hello: 'world' }, '', 'expected a Kubernetes List'],
    ['an item that is not an object', list([42]), 'items[0]', 'expected an object, got number 42'],
    ['an item without kind', list([{ metadata: { name: 'x' } }]), 'items[0].kind', 'expected a string'],
    ['a Node without a name', list([{ kind: 'Node', metadata: {} }]), 'items[0].metadata.name', 'expected a string'],
    [
      'a CPU quantity that is not a quantity',
      list([{ ...aNode(), status: { allocatable: { cpu: 'four' } } }]),
      'items[0].status.allocatable.cpu',
      '"four"',
    ],
    [
      'a label value of the wrong type',
      list([{ kind: 'Node', metadata: { name: 'n', labels: { 'topology.kubernetes.io/zone': 3 } } }]),
      'items[0].metadata.labels["topology.kubernetes.io/zone"]',
      'expected a string, got number 3',
    ],
    [
      'a bogus address type',
      list([{ ...slice('s', ['zone-a']), addressType: 'IPv5' }]),
      'items[0].addressType',
      '"IPv5" is not an address type',
    ],
    [
      'endpoint addresses that are not a list',
      list([{ ...slice('s', []), endpoints: [{ addresses: '10.0.0.1' }] }]),
      'items[0].endpoints[0].addresses',
      'expected an array',
    ],
    [
      'a ready condition that is a string',
      list([{ ...slice('s', []), endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: 'yes' } }] }]),
      'items[0].endpoints[0].conditions.ready',
      'expected true, false or null',
    ],
    [
      'a zone hint without a name',
      list([{ ...slice('s', []), endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{}] } }] }]),
      'items[0].endpoints[0].hints.forZones[0].name',
      'expected a string',
    ],
    [
      'a port that is not a port',
      list([{ ...service(), spec: { ports: [{ port: 70000 }] } }]),
      'items[0].spec.ports[0].port',
      'expected a port number',
    ],
    [
      'a bogus ServiceCIDR',
      list([{ kind: 'ServiceCIDR', metadata: { name: 'k' }, spec: { cidrs: ['10.96.0.0/33'] } }]),
      'items[0].spec.cidrs[0]',
      '10.96.0.0/33',
    ],
    [
      'a bogus CIDR annotation',
      list([], { 'zonewise.io/service-cidr': 'banana' }),
      'metadata.annotations["zonewise.io/service-cidr"]',
      'banana',
    ],
    [
      'a bad zone weight',
      list([], { 'zonewise.io/zone-traffic-weights': 'zone-a=lots' }),
      'metadata.annotations["zonewise.io/zone-traffic-weights"]',
      '"zone-a=lots" is not a zone weight',
    ],
    ['a wrapped list that is not an array', { nodes: {} }, 'nodes', 'expected an array of Node objects'],
    [
      'IP families that are not a list',
      list([{ ...service(), spec: { ipFamilies: false } }]),
      'items[0].spec.ipFamilies',
      'expected an array, got boolean false',
    ],
    [
      'a load-balancer ingress address that is not a string',
      list([{ ...service(), status: { loadBalancer: { ingress: [{ ip: 7 }] } } }]),
      'items[0].status.loadBalancer.ingress[0].ip',
      'expected a string',
    ],
    [
      'a NUL character in a name',
      list([node({ name: 'n\u00001', zone: 'zone-a' })]),
      'items[0].metadata.name',
      'NUL character',
    ],
    [
      'a NUL character in a field the analysis never reads',
      list([{ ...aNode(), spec: { providerID: 'aws:///\u0000' } }]),
      'items[0].spec.providerID',
      'NUL character',
    ],
    [
      'a lone surrogate in an annotation key',
      list([{ ...service(), metadata: { name: 'web', annotations: { 'x\ud800': 'y' } } }]),
      'items[0].metadata.annotations["x\\ud800"]',
      'key contains a lone UTF-16 surrogate',
    ],
    [
      'a lone low surrogate in a label value',
      list([node({ name: 'n1', zone: '\udc00zone' })]),
      'items[0].metadata.labels["topology.kubernetes.io/zone"]',
      'lone UTF-16 surrogate',
    ],
    [
      'a name longer than Kubernetes allows',
      list([node({ name: 'n'.repeat(254), zone: 'zone-a' })]),
      'items[0].metadata.name',
      'expected at most 253 characters',
    ],
    [
      '4,150 levels of nesting',
      { ...list([]), extra: JSON.parse(`${'['.repeat(4150)}${']'.repeat(4150)}`) as unknown },
      `extra${'[0]'.repeat(99)}`,
      'nested deeper than 100 levels',
    ],
  ])('%s', (_name, input, path, message) => {
    const error = errorOf(input);
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
    expect(error.message.split('\n')).toHaveLength(1);
  });
});

describe('parseSnapshot: each object once', () => {
  it('refuses a List whose objects appear twice (two kubectl outputs concatenated), naming both paths', () => {
    const twice = list([
      aNode(),
      service(),
      slice('web-1', ['zone-a']),
      aNode(),
      service(),
      slice('web-1', ['zone-a']),
    ]);
    const error = errorOf(twice);
    expect(error.path).toBe('items[3]');
    expect(error.message).toBe(
      'items[3]: the same object as items[0] (Node n1): each object may appear once (was the List put together from two kubectl outputs?)',
    );
    expect(errorOf(list([service(), slice('web-1', ['zone-a']), slice('web-1', ['zone-a'])])).message).toMatch(
      /^items\[2\]: the same object as items\[1\] \(EndpointSlice default\/web-1\)/,
    );
  });

  it('takes a namespace left out as `default`, so such a Service and its `default` copy are one object', () => {
    const bare = service();
    delete (bare.metadata as { namespace?: string }).namespace;
    expect(errorOf(list([service(), bare])).message).toMatch(
      /^items\[1\]: the same object as items\[0\] \(Service default\/web\)/,
    );
  });

  it('refuses duplicates in the grouped form too, and tells kinds and namespaces apart', () => {
    expect(errorOf({ nodes: [aNode()], services: [service(), service()] }).message).toMatch(
      /^services\[1\]: the same object as services\[0\] \(Service default\/web\)/,
    );
    const pod = { kind: 'Pod', metadata: { name: 'web-1', namespace: 'shop' } };
    expect(errorOf({ services: [service()], pods: [pod, structuredClone(pod)] }).message).toMatch(
      /^pods\[1\]: the same object as pods\[0\] \(Pod shop\/web-1\)/,
    );
    const distinct = parseSnapshot(
      list([
        service(),
        service({ namespace: 'other' }),
        slice('web', ['zone-a']), // a slice may share its Service's name
        node({ name: 'web', zone: 'zone-a', cpu: '4' }),
        { kind: 'ConfigMap', metadata: { name: 'p' } },
        { kind: 'ConfigMap', metadata: { name: 'p' } }, // kinds zonewise does not read are not checked
      ]),
    );
    expect(distinct.services).toHaveLength(2);
  });
});

describe('parseSnapshot: the captured-at', () => {
  const at = (value: unknown) => list([aNode()], { 'zonewise.io/captured-at': value as string });
  const path = 'metadata.annotations["zonewise.io/captured-at"]';

  it('reads an RFC 3339 timestamp, with Z or an offset and fractional seconds', () => {
    expect(statedCapturedAt(at('2026-01-31T12:00:00Z'))?.toISOString()).toBe('2026-01-31T12:00:00.000Z');
    expect(statedCapturedAt(at('2026-01-31T13:30:00.25+01:30'))?.toISOString()).toBe('2026-01-31T12:00:00.250Z');
    expect(statedCapturedAt(at('2024-02-29T00:00:00Z'))?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(statedCapturedAt(list([aNode()]))).toBeNull();
    expect(statedCapturedAt({ nodes: [], capturedAt: '2026-01-31T12:00:00Z' })?.toISOString()).toBe(
      '2026-01-31T12:00:00.000Z',
    );
  });

  it.each([
    ['a day February does not have', '2026-02-30T00:00:00Z'],
    ['February 29th outside a leap year', '2025-02-29T00:00:00Z'],
    ['a day April does not have', '2026-04-31T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['hour 24', '2026-01-31T24:00:00Z'],
    ['minute 60', '2026-01-31T12:60:00Z'],
    ['no offset', '2026-01-31T12:00:00'],
    ['a date alone', '2026-01-31'],
    ['words', 'yesterday'],
  ])('refuses %s (%s), naming the path, as parseSnapshot does', (_what, value) => {
    const error = errorOf(at(value));
    expect(error.path).toBe(path);
    expect(error.message).toBe(
      `${path}: expected an RFC 3339 timestamp of a real date and time, such as 2026-01-31T12:00:00Z, got the string ${JSON.stringify(value)}`,
    );
    expect(parseTimestamp(value)).toBeNull();
  });

  it('refuses a captured-at that is no string, in either form', () => {
    expect(errorOf({ nodes: [], capturedAt: 1769860800000 }).message).toBe(
      'capturedAt: expected an RFC 3339 timestamp of a real date and time, such as 2026-01-31T12:00:00Z, got number 1769860800000',
    );
  });

  it('says why a snapshot captured before the history retention window cannot be placed, and nothing otherwise', () => {
    const now = new Date('2026-05-01T00:00:00Z');
    expect(capturedAtRetentionProblem(new Date('2026-01-31T00:00:00Z'), now, 90)).toBeNull();
    expect(capturedAtRetentionProblem(new Date('2026-01-30T23:59:59Z'), now, 90)).toBe(
      'captured at 2026-01-30T23:59:59.000Z, before the 90-day history retention window (history is kept from 2026-01-31T00:00:00.000Z): a snapshot that old can no longer be placed in it',
    );
  });
});

describe('parseSnapshot: what it accepts', () => {
  it('takes null annotations and labels as none', () => {
    const snapshot = parseSnapshot(
      list([{ ...service(), metadata: { name: 'web', namespace: 'shop', annotations: null, labels: null } }]),
    );
    expect(snapshot.services[0].metadata.name).toBe('web');
    expect(snapshot.services[0].metadata.annotations).toBeUndefined();
    expect(snapshot.services[0].metadata.labels).toBeUndefined();
  });

  it('takes paired surrogates (emoji) and nesting up to the limit', () => {
    const nested = JSON.parse(`${'['.repeat(98)}${']'.repeat(98)}`) as unknown;
    const snapshot = parseSnapshot({ ...list([node({ name: 'n1', zone: 'zone-\ud83d\ude00' })]), extra: nested });
    expect(snapshot.nodes[0].metadata.labels?.['topology.kubernetes.io/zone']).toBe('zone-\ud83d\ude00');
  });
});

describe('parseSnapshotJson: the limits, read from JSON text', () => {
  const text = (extra: string) => `{"kind":"List","items":[],"metadata":{"annotations":{"a":${extra}}}}`;

  it.each([
    ['a NUL escape', text('"x\\u0000"'), 'metadata.annotations.a', 'NUL character'],
    ['a lone surrogate escape', text('"\\udfff"'), 'metadata.annotations.a', 'lone UTF-16 surrogate'],
    ['a raw lone surrogate', text('"x\ud800"'), 'metadata.annotations.a', 'lone UTF-16 surrogate'],
    [
      '4,150 levels',
      text(`${'['.repeat(4150)}${']'.repeat(4150)}`),
      `metadata.annotations.a${'[0]'.repeat(97)}`,
      'nested deeper',
    ],
  ])('refuses %s, naming its path', (_name, json, path, problem) => {
    let error: unknown;
    try {
      parseSnapshotJson(json);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).path).toBe(path);
    expect((error as SnapshotError).message).toContain(problem);
  });

  it('takes an escaped backslash before a u, emoji, and what parseSnapshot then reads', () => {
    const document = parseSnapshotJson(text('"C:\\\\u0000 \\ud83d\\ude00"'));
    expect(parseSnapshot(document).services).toEqual([]);
  });

  it('leaves syntax errors to JSON.parse', () => {
    expect(() => parseSnapshotJson('{')).toThrow(SyntaxError);
  });
});
