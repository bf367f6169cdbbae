import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { writeFileSync } from 'node:fs';

/**
 * A small Kubernetes API server for tests, on node:http at 127.0.0.1:<any port>. It serves what the agent
 * reads, the way kube-apiserver does: paginated lists (`limit`/`continue`) with a resourceVersion, and
 * watches (`?watch=true&resourceVersion=N`) that stream newline-delimited events from a bounded history
 * and stay open for new ones. Tests can drop watch connections, end them, compact the history so that
 * watching from an old resourceVersion is answered with 410 Gone, fail lists, or not serve a resource
 * at all (404). It also answers single-object reads (ConfigMaps, Namespaces, Calico's FelixConfiguration and ClusterInformation),
 * `/version`, and, for paths a test forbids, 403 as RBAC does.
 */

type Json = Record<string, unknown>;

export interface Collection {
  path: string;
  kind: string;
  apiVersion: string;
  /** Namespaced objects are read one at a time under `…/namespaces/{namespace}/{resource}/{name}`. */
  namespaced: boolean;
  /** Part of what `kubectl get nodes,services,endpointslices,servicecidrs,pods,replicasets -A -o json` prints. */
  inSnapshot: boolean;
}

export const COLLECTIONS: Record<string, Collection> = {
  Node: { path: '/api/v1/nodes', kind: 'Node', apiVersion: 'v1', namespaced: false, inSnapshot: true },
  Service: { path: '/api/v1/services', kind: 'Service', apiVersion: 'v1', namespaced: true, inSnapshot: true },
  EndpointSlice: {
    path: '/apis/discovery.k8s.io/v1/endpointslices',
    kind: 'EndpointSlice',
    apiVersion: 'discovery.k8s.io/v1',
    namespaced: true,
    inSnapshot: true,
  },
  ServiceCIDR: {
    path: '/apis/networking.k8s.io/v1/servicecidrs',
    kind: 'ServiceCIDR',
    apiVersion: 'networking.k8s.io/v1',
    namespaced: false,
    inSnapshot: true,
  },
  Pod: { path: '/api/v1/pods', kind: 'Pod', apiVersion: 'v1', namespaced: true, inSnapshot: true },
  ReplicaSet: {
    path: '/apis/apps/v1/replicasets',
    kind: 'ReplicaSet',
    apiVersion: 'apps/v1',
    namespaced: true,
    inSnapshot: true,
  },
  Namespace: { path: '/api/v1/namespaces', kind: 'Namespace', apiVersion: 'v1', namespaced: false, inSnapshot: false },
  ConfigMap: { path: '/api/v1/configmaps', kind: 'ConfigMap', apiVersion: 'v1', namespaced: true, inSnapshot: false },
  FelixConfiguration: {
    path: '/apis/crd.projectcalico.org/v1/felixconfigurations',
    kind: 'FelixConfiguration',
    apiVersion: 'crd.projectcalico.org/v1',
    namespaced: false,
    inSnapshot: false,
  },
  ClusterInformation: {
    path: '/apis/crd.projectcalico.org/v1/clusterinformations',
    kind: 'ClusterInformation',
    apiVersion: 'crd.projectcalico.org/v1',
    namespaced: false,
    inSnapshot: false,
  },
};

/** What `/version` answers, as kube-apiserver prints it. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  [field: string]: string;
}

/** The path at which one object is read (GET), as kube-apiserver serves it. */
export function objectPath(kind: string, name: string, namespace?: string): string {
  const collection = COLLECTIONS[kind];
  if (!collection.namespaced) return `${collection.path}/${name}`;
  const cut = collection.path.lastIndexOf('/');
  return `${collection.path.slice(0, cut)}/namespaces/${namespace ?? 'default'}${collection.path.slice(cut)}/${name}`;
}

interface WatchEvent {
  resourceVersion: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Json;
}

interface OpenWatch {
  path: string;
  response: ServerResponse;
  socket: Socket;
}

export interface RequestRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
}

/** How a watch from a compacted resourceVersion is refused: an ERROR event in a 200 stream (as kube-apiserver's watch cache does) or a plain HTTP 410. */
export type GoneStyle = 'event' | 'status';

export class FakeApiServer {
  private server: Server | null = null;
  private resourceVersion = 100;
  private readonly objects = new Map<string, Map<string, Json>>();
  private readonly history = new Map<string, WatchEvent[]>();
  /** Per path: watches from a resourceVersion below this are answered 410 Gone. */
  private readonly compactedBelow = new Map<string, number>();
  private readonly watches = new Set<OpenWatch>();
  private readonly unserved = new Set<string>();
  private readonly failures = new Map<string, { status: number; remaining: number }>();
  private readonly forbidden = new Set<string>();
  private readonly stalled = new Set<string>();
  private version: VersionInfo | null = null;
  readonly requests: RequestRecord[] = [];
  goneStyle: GoneStyle = 'event';
  /** Watches answered 410 Gone so far. */
  goneAnswers = 0;
  url = '';

  constructor() {
    for (const { path } of Object.values(COLLECTIONS)) {
      this.objects.set(path, new Map());
      this.history.set(path, []);
    }
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const watch of this.watches) watch.socket.destroy();
    this.watches.clear();
    await new Promise<void>((resolve) => {
      this.server?.close(() => resolve());
      this.server?.closeAllConnections();
    });
  }

  /**
   * A kubeconfig for client-node: plain HTTP needs `insecure-skip-tls-verify` (without it client-node
   * refuses with "HTTP protocol is not allowed when skipTLSVerify is not set or false").
   */
  writeKubeconfig(file: string): string {
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: fake',
        '  cluster:',
        `    server: ${this.url}`,
        '    insecure-skip-tls-verify: true',
        'users:',
        '- name: tester',
        '  user:',
        '    token: fake-token',
        'contexts:',
        '- name: fake',
        '  context:',
        '    cluster: fake',
        '    user: tester',
        'current-context: fake',
        '',
      ].join('\n'),
    );
    return file;
  }

  // ─── Cluster state ──────────────────────────────────────────────────────────────────────────

  /** Creates or replaces an object (by kind, namespace and name), notifying watchers. */
  apply(object: Json): void {
    const collection = collectionOf(object);
    const key = keyOf(object);
    const existing = this.objects.get(collection.path)!.get(key);
    const stored = structuredClone(object);
    const metadata = stored.metadata as Json;
    metadata.resourceVersion = String(++this.resourceVersion);
    metadata.uid ??= (existing?.metadata as Json | undefined)?.uid ?? `uid-${this.resourceVersion}`;
    this.objects.get(collection.path)!.set(key, stored);
    this.emit(collection.path, {
      resourceVersion: this.resourceVersion,
      type: existing ? 'MODIFIED' : 'ADDED',
      object: stored,
    });
  }

  remove(kind: string, name: string, namespace?: string): void {
    const collection = COLLECTIONS[kind];
    const key = `${namespace ?? ''}/${name}`;
    const existing = this.objects.get(collection.path)!.get(key);
    if (!existing) throw new Error(`no ${kind} ${key}`);
    this.objects.get(collection.path)!.delete(key);
    const deleted = structuredClone(existing);
    (deleted.metadata as Json).resourceVersion = String(++this.resourceVersion);
    this.emit(collection.path, { resourceVersion: this.resourceVersion, type: 'DELETED', object: deleted });
  }

  /** Every stored object of a snapshot's kinds, as `kubectl get … -o json` would print them. */
  list(): Json[] {
    const all: Json[] = [];
    for (const collection of Object.values(COLLECTIONS)) {
      if (this.unserved.has(collection.path) || !collection.inSnapshot) continue;
      for (const object of this.objects.get(collection.path)!.values()) all.push(structuredClone(object));
    }
    return all;
  }

  /** What `/version` answers; null (the default) answers 404. */
  setVersion(version: VersionInfo | null): void {
    this.version = version;
  }

  // ─── Faults ─────────────────────────────────────────────────────────────────────────────────

  /** Requests for this path are never answered (the connection stays open), as an overloaded server does. */
  stall(path: string): void {
    this.stalled.add(path);
  }

  /** Requests for this path (e.g. {@link objectPath} or `/version`) are answered 403, as RBAC refuses them. */
  forbid(path: string): void {
    this.forbidden.add(path);
  }

  /** The resource is not served (404 for list and watch), as ServiceCIDR before Kubernetes 1.33. */
  unserve(kind: string): void {
    this.unserved.add(COLLECTIONS[kind].path);
  }

  /** The next `count` lists of this kind fail with `status`. */
  failLists(kind: string, status: number, count: number): void {
    this.failures.set(COLLECTIONS[kind].path, { status, remaining: count });
  }

  /** Kills every open watch connection mid-stream (no clean end), as a dying load balancer does. */
  dropWatches(kind?: string): number {
    return this.closeWatches(kind, (watch) => watch.socket.destroy());
  }

  /** Ends every open watch cleanly, as kube-apiserver does when a watch's timeout expires. */
  endWatches(kind?: string): number {
    return this.closeWatches(kind, (watch) => watch.response.end());
  }

  /**
   * Forgets the event history of a kind: watching from any resourceVersion seen so far is then answered
   * 410 Gone, and open watches of that kind are ended (so their informers must re-watch, and get 410).
   */
  compact(kind: string): void {
    const path = COLLECTIONS[kind].path;
    this.compactedBelow.set(path, this.resourceVersion + 1);
    this.history.set(path, []);
    this.closeWatches(kind, (watch) => watch.response.end());
  }

  openWatches(kind?: string): number {
    return [...this.watches].filter((watch) => !kind || watch.path === COLLECTIONS[kind].path).length;
  }

  requestsFor(kind: string, what: 'list' | 'watch'): RequestRecord[] {
    const path = COLLECTIONS[kind].path;
    return this.requests.filter(
      (request) => request.path === path && (request.query.watch === 'true') === (what === 'watch'),
    );
  }

  private closeWatches(kind: string | undefined, close: (watch: OpenWatch) => void): number {
    let closed = 0;
    for (const watch of [...this.watches]) {
      if (kind && watch.path !== COLLECTIONS[kind].path) continue;
      this.watches.delete(watch);
      close(watch);
      closed++;
    }
    return closed;
  }

  // ─── HTTP ───────────────────────────────────────────────────────────────────────────────────

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const record: RequestRecord = { method: request.method ?? 'GET', path: url.pathname, query, status: 200 };
    this.requests.push(record);
    const reply = (status: number, body: Json) => {
      record.status = status;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== 'Bearer fake-token')
      return reply(401, status(401, 'Unauthorized', 'Unauthorized'));
    if (this.stalled.has(url.pathname.replace(/(.)\/$/, '$1'))) return;
    if (this.forbidden.has(url.pathname.replace(/(.)\/$/, '$1'))) {
      return reply(403, status(403, 'Forbidden', `${url.pathname} is forbidden: the user cannot get it`));
    }
    if (request.method === 'GET' && (url.pathname === '/version' || url.pathname === '/version/')) {
      return this.version ? reply(200, { ...this.version }) : reply(404, status(404, 'NotFound', 'not found'));
    }
    const object = request.method === 'GET' ? this.objectAt(url.pathname) : undefined;
    if (object !== undefined) {
      return object ? reply(200, object) : reply(404, status(404, 'NotFound', `${url.pathname} not found`));
    }
    const collection = Object.values(COLLECTIONS).find((candidate) => candidate.path === url.pathname);
    if (!collection || this.unserved.has(collection.path) || request.method !== 'GET') {
      return reply(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    }
    if (query.watch === 'true') return this.serveWatch(collection, query, response, record);
    const failure = this.failures.get(collection.path);
    if (failure && failure.remaining > 0) {
      failure.remaining--;
      return reply(failure.status, status(failure.status, 'InternalError', 'injected failure'));
    }
    reply(200, this.listPage(collection, query));
  }

  /** The object a single-object path names (null: no such object); undefined when the path names none. */
  private objectAt(pathname: string): Json | null | undefined {
    for (const collection of Object.values(COLLECTIONS)) {
      if (this.unserved.has(collection.path)) continue;
      const cut = collection.path.lastIndexOf('/');
      const pattern = collection.namespaced
        ? `^${collection.path.slice(0, cut)}/namespaces/([^/]+)${collection.path.slice(cut)}/([^/]+)$`
        : `^${collection.path}/([^/]+)$`;
      const match = new RegExp(pattern).exec(pathname);
      if (!match) continue;
      const key = collection.namespaced ? `${match[1]}/${match[2]}` : `/${match[1]}`;
      const found = this.objects.get(collection.path)!.get(key);
      return found ? structuredClone(found) : null;
    }
    return undefined;
  }

  private listPage(collection: Collection, query: Record<string, string>): Json {
    const all = [...this.objects.get(collection.path)!.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
    const token = query.continue
      ? (JSON.parse(Buffer.from(query.continue, 'base64url').toString()) as { offset: number; rv: number })
      : null;
    const offset = token?.offset ?? 0;
    const limit = query.limit ? Number(query.limit) : all.length;
    const page = all.slice(offset, offset + limit);
    const more = offset + limit < all.length;
    const resourceVersion = String(token?.rv ?? this.resourceVersion);
    return {
      kind: `${collection.kind}List`,
      apiVersion: collection.apiVersion,
      metadata: {
        resourceVersion,
        ...(more
          ? {
              continue: Buffer.from(JSON.stringify({ offset: offset + limit, rv: Number(resourceVersion) })).toString(
                'base64url',
              ),
            }
          : {}),
      },
      // kube-apiserver leaves kind and apiVersion out of list items.
      items: page.map(({ kind: _kind, apiVersion: _apiVersion, ...rest }) => structuredClone(rest)),
    };
  }

  private serveWatch(
    collection: Collection,
    query: Record<string, string>,
    response: ServerResponse,
    record: RequestRecord,
  ): void {
    const from = Number(query.resourceVersion ?? '0');
    const compactedBelow = this.compactedBelow.get(collection.path) ?? 0;
    if (from < compactedBelow) {
      const gone = status(410, 'Expired', `too old resource version: ${from} (${compactedBelow - 1})`);
      this.goneAnswers++;
      if (this.goneStyle === 'status') {
        record.status = 410;
        response.writeHead(410, { 'content-type': 'application/json' });
        response.end(JSON.stringify(gone));
        return;
      }
      record.status = 200;
      response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      response.end(`${JSON.stringify({ type: 'ERROR', object: gone })}\n`);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.flushHeaders();
    const watch: OpenWatch = { path: collection.path, response, socket: response.socket as Socket };
    this.watches.add(watch);
    response.on('close', () => this.watches.delete(watch));
    for (const event of this.history.get(collection.path)!) {
      if (event.resourceVersion > from)
        response.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    }
  }

  private emit(path: string, event: WatchEvent): void {
    const history = this.history.get(path)!;
    history.push(event);
    if (history.length > 10_000) history.shift();
    for (const watch of this.watches) {
      if (watch.path === path) watch.response.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    }
  }
}

function status(code: number, reason: string, message: string): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

function collectionOf(object: Json): Collection {
  const collection = COLLECTIONS[String(object.kind)];
  if (!collection) throw new Error(`the fake API server does not serve kind ${String(object.kind)}`);
  return collection;
}

function keyOf(object: Json): string {
  const metadata = object.metadata as Json;
  return `${(metadata.namespace as string | undefined) ?? ''}/${String(metadata.name)}`;
}
