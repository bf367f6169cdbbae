import type { KubeConfig } from '@kubernetes/client-node';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { Backoff } from './backoff.js';
import type { AgentConfig } from './config.js';
import { type ClusterReadings, ClusterReader } from './cluster-reader.js';
import { clusterProfile, profileAnnotations } from './cluster-profile.js';
import { startHealthServer, type HealthServer } from './health-server.js';
import { loadKubeConfig, RESOURCES, type ResourceName } from './kubernetes.js';
import { AgentMetrics } from './metrics.js';
import { PushClient } from './push-client.js';
import { PushScheduler, type SnapshotTrigger } from './push-scheduler.js';
import { ResourceWatcher } from './resource-watcher.js';
import { buildSnapshot, gzipSnapshot } from './snapshot.js';
import { Shipper } from './shipper.js';
import { Spool } from './spool.js';
import { AGENT_VERSION } from './version.js';

/** A problem found while starting (unreadable kubeconfig or token file, unusable spool directory): exit 2. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * The agent: watchers keep caches of the cluster's Nodes, Services, EndpointSlices and ServiceCIDRs (and
 * the owner fields of its Pods and ReplicaSets); the
 * scheduler decides when a snapshot is due; a snapshot is compacted, annotated with the cluster's
 * Kubernetes version and data plane (read afresh each time), gzipped and written to the spool;
 * the shipper delivers the spool to the API. On shutdown the pending change becomes a last snapshot,
 * and what cannot be delivered in time stays in the spool for the next start.
 */
export class Agent {
  readonly metrics: AgentMetrics;
  private readonly watchers: ResourceWatcher[];
  private readonly scheduler: PushScheduler;
  private readonly clusterReader: ClusterReader;
  private lastReadings: ClusterReadings | null = null;
  private health: HealthServer | null = null;
  private lastContentKey: string | null = null;
  private lastCapturedAt = 0;
  private shuttingDown: Promise<number> | null = null;

  private constructor(
    private readonly config: AgentConfig,
    private readonly logger: Logger,
    kubeConfig: KubeConfig,
    private readonly shipper: Shipper,
    metrics: AgentMetrics,
  ) {
    this.metrics = metrics;
    this.clusterReader = new ClusterReader(kubeConfig, logger);
    this.watchers = RESOURCES.map(
      (definition) =>
        new ResourceWatcher({
          kubeConfig,
          definition,
          relistIntervalMs: config.relistIntervalMs,
          stallTimeoutMs: config.watchStallTimeoutMs,
          logger,
          metrics,
          onChange: () => this.onChange(),
        }),
    );
    this.scheduler = new PushScheduler({
      minIntervalMs: config.pushMinIntervalMs,
      maxIntervalMs: config.pushMaxIntervalMs,
      settleMs: config.settleMs,
      take: (trigger) => this.takeSnapshot(trigger),
      onError: (error) => this.logger.error({ error: (error as Error).message }, 'could not take a snapshot'),
    });
  }

  /** Checks what can be checked before starting; throws StartupError for a problem the operator must fix. */
  static async create(config: AgentConfig, logger: Logger, metrics = new AgentMetrics()): Promise<Agent> {
    let kubeConfig: KubeConfig;
    try {
      kubeConfig = loadKubeConfig(config);
    } catch (error) {
      throw new StartupError(`cannot load the Kubernetes configuration: ${(error as Error).message}`);
    }
    if (config.tokenFile) {
      const token = await readFile(config.tokenFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new StartupError(`--token-file ${config.tokenFile}: cannot read it (${error.code ?? error.message})`);
      });
      if (token.trim() === '') throw new StartupError(`--token-file ${config.tokenFile}: the file is empty`);
    }
    let opened: Awaited<ReturnType<typeof Spool.open>>;
    try {
      opened = await Spool.open(config.spoolDir, {
        maxSnapshots: config.spoolMaxSnapshots,
        maxBytes: config.spoolMaxBytes,
      });
    } catch (error) {
      throw new StartupError(`--spool-dir ${config.spoolDir}: ${(error as Error).message}`);
    }
    if (opened.spool.size > 0) {
      logger.info(
        { spoolSnapshots: opened.spool.size, spoolBytes: opened.spool.bytes },
        'found snapshots spooled by an earlier run',
      );
    }
    if (opened.dropped.length > 0) metrics.spoolDropped.inc(opened.dropped.length);
    const client = new PushClient({
      apiUrl: config.apiUrl,
      token: config.tokenFile ? { file: config.tokenFile } : { value: config.token ?? '' },
      cluster: config.cluster,
      timeoutMs: config.pushTimeoutMs,
      userAgent: `zonewise-agent/${AGENT_VERSION}`,
    });
    const shipper = new Shipper(
      opened.spool,
      client,
      new Backoff({ initialMs: config.retryInitialMs, maxMs: config.retryMaxMs }),
      metrics,
      logger,
    );
    return new Agent(config, logger, kubeConfig, shipper, metrics);
  }

  /** Starts the health server, the watchers and the delivery of anything already spooled. */
  async start(): Promise<void> {
    this.health = await startHealthServer(this.config.healthHost, this.config.healthPort, this.metrics, () =>
      this.status(),
    );
    this.logger.info(
      {
        healthPort: this.health.port,
        apiUrl: this.config.apiUrl,
        version: AGENT_VERSION,
        spool: this.config.spoolDir ?? '(memory)',
      },
      'zonewise agent started',
    );
    this.shipper.start();
    for (const watcher of this.watchers) watcher.start();
  }

  get healthPort(): number | null {
    return this.health?.port ?? null;
  }

  /**
   * Graceful stop: no more watching; a change not yet in a snapshot becomes one; then delivery of the
   * spool until it is empty, a push fails, or --shutdown-timeout passes. Resolves with the number of
   * snapshots left in the spool.
   */
  shutdown(): Promise<number> {
    this.shuttingDown ??= this.doShutdown();
    return this.shuttingDown;
  }

  private async doShutdown(): Promise<number> {
    const deadline = Date.now() + this.config.shutdownTimeoutMs;
    this.logger.info('shutting down');
    await Promise.all(this.watchers.map((watcher) => watcher.stop()));
    const pendingChange = await this.scheduler.stop();
    if (pendingChange && this.allSynced()) {
      try {
        await this.takeSnapshot('shutdown');
      } catch (error) {
        this.logger.error({ error: (error as Error).message }, 'could not take the final snapshot');
      }
    }
    const left = await this.shipper.drain(deadline - Date.now());
    if (left > 0) {
      this.logger.warn(
        { spoolSnapshots: left },
        this.config.spoolDir
          ? 'snapshots left in the spool for the next start'
          : 'snapshots not delivered are lost: no --spool-dir',
      );
    }
    await this.health?.close();
    this.logger.info({ spoolSnapshots: left }, 'stopped');
    return left;
  }

  private onChange(): void {
    if (this.shuttingDown) return;
    if (!this.allSynced()) return; // the first snapshot waits for every resource's first list
    if (this.scheduler.isStarted) this.scheduler.changed();
    else this.scheduler.start();
  }

  private allSynced(): boolean {
    return this.watchers.every((watcher) => watcher.synced);
  }

  private watcher(name: ResourceName): ResourceWatcher {
    return this.watchers.find((watcher) => watcher.name === name)!;
  }

  /** Builds, compresses and spools a snapshot; false when it would repeat what was last sent. */
  private async takeSnapshot(trigger: SnapshotTrigger | 'shutdown'): Promise<boolean> {
    // At shutdown the time left is for delivery: the version and data plane read for the previous
    // snapshot stand (only a watched object's change can be pending then).
    const readings = trigger === 'shutdown' && this.lastReadings ? this.lastReadings : await this.clusterReader.read();
    this.lastReadings = readings;
    const capturedAt = new Date(Math.max(Date.now(), this.lastCapturedAt + 1)); // unique per cluster, as the API requires
    const nodes = this.watcher('nodes').objects();
    const services = this.watcher('services').objects();
    const snapshot = buildSnapshot(
      {
        nodes,
        services,
        endpointSlices: this.watcher('endpointslices').objects(),
        serviceCIDRs: this.watcher('servicecidrs').objects(),
        pods: this.watcher('pods').objects(),
        replicaSets: this.watcher('replicasets').objects(),
      },
      capturedAt,
      this.config.serviceCidrs,
      profileAnnotations(clusterProfile(readings, nodes, services)),
    );
    const unchanged = snapshot.contentKey === this.lastContentKey;
    // An unchanged state is sent again only as a heartbeat, and not while a backlog already carries it.
    if (unchanged && (trigger !== 'heartbeat' || this.shipper.pending > 0)) {
      this.logger.debug({ trigger }, 'cluster state unchanged; nothing to send');
      return false;
    }
    const body = await gzipSnapshot(snapshot.json);
    this.lastCapturedAt = capturedAt.getTime();
    this.metrics.snapshots.inc({ trigger });
    this.metrics.lastSnapshotBytes.set({ encoding: 'identity' }, Buffer.byteLength(snapshot.json));
    this.metrics.lastSnapshotBytes.set({ encoding: 'gzip' }, body.length);
    await this.shipper.enqueue(capturedAt, body);
    this.lastContentKey = snapshot.contentKey;
    this.logger.info(
      {
        trigger,
        capturedAt: capturedAt.toISOString(),
        objects: snapshot.objectCount,
        bytes: Buffer.byteLength(snapshot.json),
        gzipBytes: body.length,
      },
      'snapshot taken',
    );
    return true;
  }

  private status() {
    const resources = Object.fromEntries(this.watchers.map((watcher) => [watcher.name, watcher.state]));
    return {
      ready: this.allSynced() && this.shuttingDown === null,
      details: { resources, spoolSnapshots: this.shipper.pending, shuttingDown: this.shuttingDown !== null },
    };
  }
}
