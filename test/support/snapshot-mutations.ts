import {
  DAY_MS,
  LAST_APPLIED_ANNOTATION,
  MONTHLY_TRAFFIC_ANNOTATION,
  SERVICE_NAME_LABEL,
  STATIC_CLUSTER_IP_ANNOTATION,
  TOPOLOGY_MODE_ANNOTATION,
  ZONE_TRAFFIC_WEIGHTS_ANNOTATION,
} from '@zw/core';
import fc from 'fast-check';
import { CAPTURED_AT, fleet } from './snapshots.js';

/**
 * Property-based mutations of valid snapshots, for fuzzing everything that reads them (ingest, simulate,
 * the worker). A case is a valid base document with one to three mutations at paths taken from the
 * document itself, so the fuzz reaches every field the core reads, not only the top level.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A dual-stack LoadBalancer Service with its slices, a ServiceCIDR and the annotations the core reads. */
function richItems(): Json[] {
  const service = 'edge';
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: service,
        namespace: 'shop',
        annotations: {
          [TOPOLOGY_MODE_ANNOTATION]: 'Auto',
          [MONTHLY_TRAFFIC_ANNOTATION]: '120',
          [STATIC_CLUSTER_IP_ANNOTATION]: 'true',
          [LAST_APPLIED_ANNOTATION]: JSON.stringify({ spec: { clusterIP: '10.96.0.40' } }),
        },
      },
      spec: {
        type: 'LoadBalancer',
        clusterIP: '10.96.0.40',
        clusterIPs: ['10.96.0.40', 'fd00::40'],
        ipFamilies: ['IPv4', 'IPv6'],
        ipFamilyPolicy: 'PreferDualStack',
        externalIPs: ['192.0.2.7'],
        internalTrafficPolicy: 'Cluster',
        externalTrafficPolicy: 'Local',
        publishNotReadyAddresses: false,
        ports: [{ name: 'https', port: 443, targetPort: 8443, protocol: 'TCP', nodePort: 30443 }],
      },
      status: { loadBalancer: { ingress: [{ ip: '198.51.100.9', ipMode: 'VIP' }, { hostname: 'lb.example' }] } },
    },
    ...(['IPv4', 'IPv6'] as const).map((family, f) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${service}-${family.toLowerCase()}`,
        namespace: 'shop',
        labels: {
          [SERVICE_NAME_LABEL]: service,
          'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
        },
      },
      addressType: family,
      ports: [{ name: 'https', port: 8443, protocol: 'TCP' }],
      endpoints: ['zone-a', 'zone-b', 'zone-c'].map((zone, i) => ({
        addresses: [family === 'IPv4' ? `10.1.${f}.${i + 1}` : `fd00:1::${i + 1}`],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: `node-${i}`,
        zone,
        hints: { forZones: [{ name: zone }], forNodes: [{ name: `node-${i}` }] },
      })),
    })),
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'ServiceCIDR',
      metadata: { name: 'kubernetes' },
      spec: { cidrs: ['10.96.0.0/12', 'fd00::/108'] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    },
  ];
}

/** The valid documents mutations start from: a List (with the rich items) and the agent's wrapped form. */
export function baseSnapshots(): Json[] {
  const list = fleet(3, 3) as unknown as { metadata: { annotations: Record<string, string> }; items: Json[] };
  const listForm: Json = {
    ...list,
    metadata: {
      annotations: { ...list.metadata.annotations, [ZONE_TRAFFIC_WEIGHTS_ANNOTATION]: 'zone-a=2,zone-b=1,zone-c=1' },
    },
    items: [...list.items, ...richItems()],
  } as unknown as Json;
  const byKind = (kind: string) => list.items.filter((item) => (item as { kind: string }).kind === kind);
  const wrapped: Json = {
    nodes: byKind('Node'),
    services: byKind('Service'),
    endpointSlices: byKind('EndpointSlice'),
    serviceCIDRs: [],
  };
  return [listForm, wrapped];
}

type Step = string | number;

/** Every path of a document (containers and leaves), root excluded. */
function pathsOf(document: Json): Step[][] {
  const paths: Step[][] = [];
  const stack: [Json, Step[]][] = [[document, []]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (path.length > 0) paths.push(path);
    if (Array.isArray(value)) value.forEach((child, i) => stack.push([child, [...path, i]]));
    else if (value !== null && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) stack.push([child, [...path, key]]);
  }
  return paths;
}

/** Strings Postgres or the core choke on, beside ordinary junk. */
const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom('', 'a\u0000b', '\u0000', 'x\ud800', '\udc00y', '\ud83d', 'ok\ud83d\ude00', 'x'.repeat(300)),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

/**
 * Nesting just inside and well past the depth limit, and the 4,150 levels an attack used. Held as a
 * marker string until {@link snapshotText} writes the brackets: JSON.stringify itself (and fast-check's
 * report of a failing case) would overflow the stack on such a value.
 */
const DEEP = /"@nested:(\d+)@"/g;
const deepNesting = fc.constantFrom(50, 99, 101, 4150).map((depth) => `@nested:${depth}@`);

/** The JSON text of a (mutated) document, deep nesting markers written out. */
export function snapshotText(document: Json): string {
  return JSON.stringify(document).replace(
    DEEP,
    (_, depth: string) => `${'['.repeat(Number(depth))}${']'.repeat(Number(depth))}`,
  );
}

const replacement: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<Json>(null, false, true, 0, -1, 1.5, 70000, '', [], {}, [null], { name: null }),
  },
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: deepNesting },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Json>(
      '2099-01-01T00:00:00Z',
      'yesterday',
      '2026-01-31T12:00:00+01:00',
      'zone-a=-1',
      'zone-a=x',
    ),
  },
);

/**
 * Captured-at values ingest must refuse or take: days a month does not have, hour 24, words; a time just
 * past the default history retention (90 days), and one just inside it (taken, and processed by the worker
 * although it ages a little further while it waits), each a few minutes apart so they do not collide.
 */
const capturedAtValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '2026-02-30T00:00:00Z',
    '2025-02-29T12:00:00Z',
    '2026-04-31T08:00:00Z',
    '2026-01-31T24:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-31T12:00:00',
    '2019-06-01T00:00:00Z',
    'yesterday',
  ),
  fc.nat({ max: 100_000 }).map((minutes) => new Date(Date.now() - 91 * DAY_MS - minutes * 60_000).toISOString()),
  fc.nat({ max: 1000 }).map((minutes) => new Date(Date.now() - 88 * DAY_MS - minutes * 60_000).toISOString()),
);

type Mutation =
  | { kind: 'replace'; at: number; value: Json }
  | { kind: 'delete'; at: number }
  | { kind: 'rename'; at: number; key: string }
  /** An object listed again: `at` picks which, or (`all`) every one, as two kubectl outputs concatenated give. */
  | { kind: 'duplicate'; at: number; all: boolean }
  | { kind: 'capturedAt'; value: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: replacement }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), at: fc.nat(), key: hostileString }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), all: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('capturedAt' as const), value: capturedAtValue }) },
);

/** The object lists of a document: a List's items, or the grouped form's lists. */
function objectLists(document: Json): Json[][] {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return [];
  const lists = Array.isArray(document.items)
    ? [document.items]
    : ['nodes', 'services', 'endpointSlices', 'serviceCIDRs'].map((field) => document[field]);
  return lists.filter((list): list is Json[] => Array.isArray(list) && list.length > 0);
}

function duplicate(document: Json, at: number, all: boolean): void {
  const lists = objectLists(document);
  if (lists.length === 0) return;
  const list = lists[at % lists.length];
  if (all) list.push(...structuredClone(list));
  else list.push(structuredClone(list[at % list.length]));
}

function apply(document: Json, change: Mutation): void {
  if (change.kind === 'duplicate') return duplicate(document, change.at, change.all);
  if (change.kind === 'capturedAt') {
    const stamped = withCapturedAt(document, new Date(), change.value);
    if (stamped !== document && stamped !== null && typeof stamped === 'object' && !Array.isArray(stamped)) {
      Object.assign(document as Record<string, Json>, stamped);
    }
    return;
  }
  const paths = pathsOf(document);
  if (paths.length === 0) return;
  const path = paths[change.at % paths.length];
  let parent = document as Record<Step, Json>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<Step, Json>;
  const last = path[path.length - 1];
  if (change.kind === 'replace') parent[last] = change.value;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else if (change.kind === 'delete') delete parent[last];
  else {
    const value = parent[last];
    delete parent[last];
    parent[change.key] = value;
  }
}

/** A mutated copy of one of the base snapshots; `mutations` says what was done, for a failure's report. */
export interface MutatedSnapshot {
  document: Json;
  mutations: Mutation[];
}

export function mutatedSnapshots(): fc.Arbitrary<MutatedSnapshot> {
  const bases = baseSnapshots();
  return fc
    .record({ base: fc.nat({ max: bases.length - 1 }), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }) })
    .map(({ base, mutations }) => {
      const document = structuredClone(bases[base]);
      for (const change of mutations) apply(document, change);
      return { document, mutations };
    });
}

/**
 * Stamps a document (List or wrapped form) with a captured-at time, so each pushed case is its own
 * snapshot; `value`, when given, is written as it is (and replaces one already there).
 */
export function withCapturedAt(document: Json, at: Date, value?: string): Json {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return document;
  if (Array.isArray(document.items)) {
    const metadata = (document.metadata ?? {}) as Record<string, Json>;
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return document;
    const annotations = metadata.annotations;
    if (
      annotations !== undefined &&
      (annotations === null || typeof annotations !== 'object' || Array.isArray(annotations))
    )
      return document;
    if (value === undefined && annotations && CAPTURED_AT in annotations) return document; // a mutation set one
    const stamped = value ?? at.toISOString();
    return { ...document, metadata: { ...metadata, annotations: { ...annotations, [CAPTURED_AT]: stamped } } };
  }
  if (value !== undefined) return { ...document, capturedAt: value };
  return 'capturedAt' in document ? document : { ...document, capturedAt: at.toISOString() };
}
