import {
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  makeInformer,
  type ObjectCache,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Backoff } from './backoff.js';
import { describeError, errorStatus, type ResourceDefinition } from './kubernetes.js';
import type { AgentMetrics } from './metrics.js';

/**
 * Keeps an up-to-date cache of one resource with a client-node informer (list, then watch), and keeps it
 * going where the informer alone would not:
 * - client-node's informer stops for good on any error other than 410 Gone or a timeout (a dropped
 *   connection, a refused list, a 5xx): it is started again, with a fresh list, after a backoff;
 * - a watch that goes silent (no event and no reconnect for `stallTimeoutMs`) is replaced;
 * - every `relistIntervalMs` the whole resource is listed again by a fresh informer, in case a watch
 *   silently missed an event.
 * A replacement informer lists in the background; snapshots keep reading the previous cache until the
 * new one has its list, so a relist never shows a half-empty cluster.
 * (410 Gone itself is handled inside the informer: it lists again and carries on.)
 */

export type WatcherState = 'starting' | 'synced' | 'unavailable' | 'failed' | 'stopped';

export interface ResourceWatcherOptions {
  kubeConfig: KubeConfig;
  definition: ResourceDefinition;
  relistIntervalMs: number;
  stallTimeoutMs: number;
  /** Backoff between restarts after errors. */
  retryInitialMs?: number;
  retryMaxMs?: number;
  logger: Logger;
  metrics: AgentMetrics;
  /** Called whenever the objects a snapshot would see may have changed. */
  onChange: () => void;
}

type Cache = Informer<KubernetesObject> & ObjectCache<KubernetesObject>;

/** One informer's life: callbacks of a retired informer are recognised by this and ignored. */
interface Run {
  informer: Cache;
  failed: boolean;
  lists: number;
  connects: number;
}

export class ResourceWatcher {
  private current: Run | null = null;
  private serving: Cache | null = null;
  private everSynced = false;
  private resolved = false;
  private stopped = false;
  private lastSignalAt = Date.now();
  private restartTimer: NodeJS.Timeout | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private readonly backoff: Backoff;
  private readonly logger: Logger;
  state: WatcherState = 'starting';

  constructor(private readonly options: ResourceWatcherOptions) {
    this.backoff = new Backoff({ initialMs: options.retryInitialMs ?? 1000, maxMs: options.retryMaxMs ?? 60_000 });
    this.logger = options.logger.child({ resource: options.definition.name });
  }

  get name(): string {
    return this.options.definition.name;
  }

  /** True once the resource has been listed (or found not to exist) at least once. */
  get synced(): boolean {
    return this.resolved;
  }

  /** The objects as last seen; empty for a resource the cluster does not serve. */
  objects(): readonly KubernetesObject[] {
    return this.serving?.list() ?? [];
  }

  start(): void {
    this.launch('initial');
    const every = Math.max(200, Math.min(5000, Math.floor(this.options.stallTimeoutMs / 4)));
    this.watchdog = setInterval(() => this.checkStalled(), every);
    this.watchdog.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.state = 'stopped';
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.watchdog) clearInterval(this.watchdog);
    const run = this.current;
    this.current = null;
    await run?.informer.stop();
  }

  private launch(reason: 'initial' | 'error' | 'stalled' | 'periodic' | 'probe'): void {
    if (this.stopped) return;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const previous = this.current;
    if (previous) void previous.informer.stop(); // its cache stays readable until the new one has listed
    if (reason !== 'initial' && reason !== 'probe')
      this.options.metrics.watchRestarts.inc({ resource: this.name, reason });

    const list = this.options.definition.list(this.options.kubeConfig);
    const run: Run = { informer: null as unknown as Cache, failed: false, lists: 0, connects: 0 };
    const listFn = () => {
      run.lists++;
      if (run.lists > 1 && this.current === run) {
        // The informer lists again only after 410 Gone: its resourceVersion is too old to watch from.
        this.options.metrics.watchRestarts.inc({ resource: this.name, reason: 'gone' });
        this.logger.info('watch answered 410 Gone; listing again');
      }
      return list();
    };
    run.informer = informerOf(this.options.kubeConfig, this.options.definition, listFn);
    this.current = run;
    this.lastSignalAt = Date.now();
    if (this.state !== 'synced' && this.state !== 'unavailable') this.state = 'starting';

    const isLive = () => this.current === run && !run.failed && !this.stopped;
    for (const type of ['add', 'update', 'delete'] as const) {
      run.informer.on(type, () => {
        if (!isLive()) return;
        this.lastSignalAt = Date.now();
        this.options.metrics.watchEvents.inc({ resource: this.name, type });
        if (this.serving === run.informer) this.options.onChange();
      });
    }
    run.informer.on('connect', () => {
      if (!isLive()) return;
      this.lastSignalAt = Date.now();
      run.connects++;
      // Every connect after the first is the informer re-opening its watch (stream ended or timed out).
      if (run.connects > 1) this.options.metrics.watchRestarts.inc({ resource: this.name, reason: 'reconnect' });
    });
    run.informer.on('error', (error: unknown) => {
      if (isLive()) this.fail(run, error);
    });
    run.informer.start().then(
      () => {
        if (this.current !== run || this.stopped) {
          void run.informer.stop(); // retired while it was starting
          return;
        }
        if (!run.failed) this.markSynced(run);
      },
      (error: unknown) => {
        if (isLive()) this.fail(run, error);
      },
    );
  }

  private markSynced(run: Run): void {
    const first = !this.everSynced;
    this.serving = run.informer;
    this.everSynced = true;
    this.resolved = true;
    this.state = 'synced';
    this.backoff.reset();
    this.lastSignalAt = Date.now();
    this.logger[first ? 'info' : 'debug']({ objects: run.informer.list().length }, 'listed; watching');
    this.scheduleRestart('periodic', this.options.relistIntervalMs);
    this.options.onChange();
  }

  private fail(run: Run, error: unknown): void {
    run.failed = true;
    void run.informer.stop();
    const status = errorStatus(error);
    if (this.options.definition.optional && (status === 404 || status === 403)) {
      const wasServed = this.state !== 'unavailable';
      this.state = 'unavailable';
      this.resolved = true;
      this.serving = null;
      if (wasServed) {
        const why = status === 404 ? 'not served by this cluster (404)' : 'the agent may not list it (403)';
        const lacking = this.options.definition.withoutIt ?? 'it, and carry --service-cidr instead';
        this.logger.info(`${why}; snapshots go without ${lacking}`);
        this.options.onChange();
      }
      // Look again now and then: the cluster may be upgraded under the agent.
      this.scheduleRestart('probe', this.options.relistIntervalMs);
      return;
    }
    this.state = 'failed';
    const delayMs = this.backoff.next();
    this.logger.warn({ error: describeError(error), retryInMs: delayMs }, 'watch failed; starting again after a pause');
    this.scheduleRestart('error', delayMs);
  }

  private scheduleRestart(reason: 'error' | 'periodic' | 'probe', delayMs: number): void {
    if (this.stopped) return;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => this.launch(reason), delayMs);
    this.restartTimer.unref();
  }

  private checkStalled(): void {
    if (this.stopped || (this.state !== 'synced' && this.state !== 'starting')) return;
    const silentMs = Date.now() - this.lastSignalAt;
    if (silentMs < this.options.stallTimeoutMs) return;
    this.logger.warn({ silentMs }, 'watch silent for too long; starting it again');
    this.launch('stalled');
  }
}

/**
 * client-node's informer (list, then watch), keeping of each object only what the definition's `trim`
 * keeps: listed items and watched objects are trimmed before the cache stores them.
 */
function informerOf(
  kubeConfig: KubeConfig,
  definition: ResourceDefinition,
  list: () => Promise<KubernetesListObject<KubernetesObject>>,
): Cache {
  const trim = definition.trim;
  if (trim === undefined) return makeInformer(kubeConfig, definition.path, list);
  const trimmedList = async () => {
    const listed = await list();
    return { ...listed, items: listed.items.map(trim) };
  };
  const inner = new Watch(kubeConfig);
  const watch = {
    watch: (
      path: string,
      query: Record<string, string | number | boolean | undefined>,
      callback: (phase: string, object: KubernetesObject) => void,
      done: (error: unknown) => void,
    ) =>
      inner.watch(
        path,
        query,
        (phase: string, object: KubernetesObject) =>
          callback(phase, phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED' ? trim(object) : object),
        done,
      ),
  } as unknown as Watch;
  return new ListWatch(definition.path, watch, trimmedList, false);
}
